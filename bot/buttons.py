"""Clicks on the follow-up buttons: next ladder step, other language, feedback, delete, whole file.

The inputs come back from the store (scrubbed), so the buttons work after a restart. The asker and
moderators change the reply in place; anyone else gets their own private copy, so nobody can rewrite
a reply under someone else's eyes. The whole corrected config is never posted in the channel: the
asker and moderators get it privately, anyone else a polite refusal.
"""

from __future__ import annotations

import logging
import time

import discord
from discord.ext import commands

from bot.inputs import Gathered, SourcedText
from bot.permissions import interaction_is_moderator
from bot.request import Request
from bot.send import Outgoing, say_privately
from bot.service import ReplyService
from bot.store import Case
from bot.views import ButtonAction, OomButton, OomLanguageMenu

log = logging.getLogger("oomcheck.bot")


class ButtonHandlers(commands.Cog):
    def __init__(self, service: ReplyService) -> None:
        self.service = service

    async def cog_load(self) -> None:
        # Clicks are routed by custom_id, so buttons of replies sent before a restart work too.
        self.service.client.add_dynamic_items(OomButton, OomLanguageMenu)

    async def cog_unload(self) -> None:
        self.service.client.remove_dynamic_items(OomButton, OomLanguageMenu)

    async def on_button(self, interaction: discord.Interaction, action: ButtonAction) -> None:
        try:
            await self._dispatch(interaction, action)
        except Exception:
            log.exception(
                "button %s failed (guild=%s channel=%s user=%s)",
                action.encode(),
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
            )
            await self.service.apologize(interaction)

    async def _dispatch(self, interaction: discord.Interaction, action: ButtonAction) -> None:
        service = self.service
        message = interaction.message
        if message is None:
            return
        case = await service.db(service.store.case, message.id)
        lang = case.language if case is not None else await service.ui_language(interaction)
        moderator = interaction_is_moderator(interaction, service.settings.moderator_role_ids)
        owner = case is not None and case.author_id == interaction.user.id

        if action.action in ("up", "down"):
            await service.db(
                service.store.record_feedback,
                message.id,
                interaction.user.id,
                action.action == "up",
                time.time(),
            )
            await say_privately(interaction, service.t("feedback_thanks", lang))
            return
        if action.action == "del":
            # The case is dropped after the retention period; who the reply answers is kept longer.
            if case is None and not moderator:
                owner = await service.db(service.store.reply_author, message.id) == interaction.user.id
            if not (owner or moderator):
                await say_privately(interaction, service.t("delete_forbidden", lang))
                return
            await interaction.response.defer()
            await interaction.delete_original_response()
            await service.db(service.store.forget_reply, message.id)
            # A follow-up: the response was the defer.
            await say_privately(interaction, service.t("deleted", lang))
            return
        if case is None:
            # The asker is known from the case alone: once it is gone, nothing can be rebuilt for anyone.
            await say_privately(interaction, service.t("case_expired", lang))
            return
        if action.action == "file":
            if owner or moderator:
                await self._send_whole_file(interaction, case, int(action.arg))
            else:
                await say_privately(interaction, service.t("whole_file_forbidden", lang))
            return
        await self._rerender(interaction, case, action, in_place=owner or moderator)

    async def _send_whole_file(self, interaction: discord.Interaction, case: Case, step: int) -> None:
        """The whole corrected config of `step`, built again from the stored inputs, to the clicker
        alone (an ephemeral follow-up)."""
        service = self.service
        await interaction.response.defer(ephemeral=True, thinking=True)
        request = _request_of(case, case.language if case.explicit_language else None, deletable=False)
        # One trip to the engine (a big case's report would otherwise cross to a worker twice); the
        # file is not a reply that is stored, so its inputs need no scrubbing.
        prepared = await service.prepare(request, step=step, lang=case.language, stored=False)
        whole = prepared.whole_config
        if whole is None:
            await say_privately(interaction, service.t("whole_file_gone", case.language))
            return
        text = service.t("whole_file_here", case.language, step=step)
        outgoing = Outgoing(content=text, files=(whole,))
        await interaction.followup.send(**outgoing.send_kwargs(), ephemeral=True)

    async def _rerender(
        self, interaction: discord.Interaction, case: Case, action: ButtonAction, *, in_place: bool
    ) -> None:
        service = self.service
        step = int(action.arg) if action.action == "step" else case.step
        lang = action.arg if action.action == "lang" else case.language
        explicit = action.action == "lang" or case.explicit_language
        if in_place:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        deletable = in_place and interaction.message is not None and not interaction.message.flags.ephemeral
        request = _request_of(case, lang if explicit else None, deletable=deletable)
        # One trip to the engine; a reply redone in place is not stored again, so it needs no scrub.
        prepared = await service.prepare(request, step=step, lang=lang, stored=not in_place)
        if step > max(1, len(prepared.report.ladder)):
            await say_privately(interaction, service.t("no_more_steps", lang))
            return
        if in_place:
            await service.respond_in_place(interaction, prepared, case)
        else:
            await service.follow_up(interaction, prepared)


def _request_of(case: Case, explicit_language: str | None, *, deletable: bool) -> Request:
    """The request a stored case is answered again from."""
    return Request(
        gathered=Gathered(tuple(SourcedText(source, text) for source, text in case.inputs)),
        guild_id=case.guild_id,
        channel_id=case.channel_id,
        author_id=case.author_id,
        source_id=None,
        explicit_language=explicit_language,
        gpu_vram_gib=case.gpu_vram_gib,
        deletable=deletable,
    )
