"""Clicks on the follow-up buttons: next ladder step, other language, feedback, delete.

The inputs come back from the store (scrubbed), so the buttons work after a restart. The asker and
moderators change the reply in place; anyone else gets their own private copy, so nobody can rewrite
a reply under someone else's eyes.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import discord

from bot.inputs import Gathered, SourcedText
from bot.permissions import interaction_is_moderator
from bot.request import Request
from bot.send import say_privately
from bot.store import Case
from bot.views import ButtonAction

if TYPE_CHECKING:
    from bot.app import OomBot

log = logging.getLogger("oomcheck.bot")


async def on_button(bot: OomBot, interaction: discord.Interaction, action: ButtonAction) -> None:
    try:
        await _dispatch(bot, interaction, action)
    except Exception:
        log.exception(
            "button %s failed (guild=%s channel=%s user=%s)",
            action.encode(),
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
        )
        await bot.apologize(interaction)


async def _dispatch(bot: OomBot, interaction: discord.Interaction, action: ButtonAction) -> None:
    message = interaction.message
    if message is None:
        return
    case = await bot.db(bot.store.case, message.id)
    lang = case.language if case is not None else await bot.ui_language(interaction)
    moderator = interaction_is_moderator(interaction, bot.settings.moderator_role_ids)
    owner = case is not None and case.author_id == interaction.user.id

    if action.action in ("up", "down"):
        await bot.db(
            bot.store.record_feedback, message.id, interaction.user.id, action.action == "up", time.time()
        )
        await say_privately(interaction, bot.t("feedback_thanks", lang))
        return
    if action.action == "del":
        if not (owner or moderator):
            await say_privately(interaction, bot.t("delete_forbidden", lang))
            return
        await interaction.response.defer()
        await interaction.delete_original_response()
        await bot.db(bot.store.forget_reply, message.id)
        await say_privately(interaction, bot.t("deleted", lang))  # a follow-up: the response was the defer
        return
    if case is None:
        await say_privately(interaction, bot.t("case_expired", lang))
        return
    await _rerender(bot, interaction, case, action, in_place=owner or moderator)


async def _rerender(
    bot: OomBot, interaction: discord.Interaction, case: Case, action: ButtonAction, *, in_place: bool
) -> None:
    step = int(action.arg) if action.action == "step" else case.step
    lang = action.arg if action.action == "lang" else case.language
    explicit = action.action == "lang" or case.explicit_language
    if in_place:
        await interaction.response.defer()
    else:
        await interaction.response.defer(ephemeral=True, thinking=True)
    request = Request(
        gathered=Gathered(tuple(SourcedText(source, text) for source, text in case.inputs)),
        guild_id=case.guild_id,
        channel_id=case.channel_id,
        author_id=case.author_id,
        source_id=None,
        explicit_language=lang if explicit else None,
        gpu_vram_gib=case.gpu_vram_gib,
        deletable=in_place and interaction.message is not None and not interaction.message.flags.ephemeral,
    )
    report = await bot.diagnose(request, steps=step)
    if step > max(1, len(report.ladder)):
        await say_privately(interaction, bot.t("no_more_steps", lang))
        return
    prepared = await bot.build(request, report, step=step, lang=lang)
    if in_place:
        await interaction.edit_original_response(
            **prepared.outgoing.edit_kwargs(), view=prepared.buttons.view()
        )
        await bot.db(bot.store.update_view, case.reply_id, lang, explicit, step)
        return
    sent = await interaction.followup.send(
        **prepared.outgoing.send_kwargs(), view=prepared.buttons.view(), ephemeral=True, wait=True
    )
    await bot.remember(prepared, sent.id)
