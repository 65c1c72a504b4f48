"""Application commands: /oom-check, the "OOM check" message menu, /oom-estimate, /oom-explain,
/oom-rules, /oom-config and /oom-stats. Every reply is deferred first, since a diagnosis may take seconds."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import engine_jobs
from bot.budget import QueueFull
from bot.inputs import (
    Candidate,
    Gathered,
    SourcedText,
    gather_message,
    input_size,
    merge,
    parse_message_ref,
    read_attachment,
    select_from_history,
)
from bot.ocr import is_image_name
from bot.permissions import interaction_is_moderator
from bot.request import Request
from bot.send import NO_MENTIONS, Outgoing, from_text
from bot.service import ReplyService
from bot.store import Answer, GuildSettings
from bot.textfile import RawText
from bot.translator import catalogue_lookup, key_str
from locales import LANGUAGES

_log = logging.getLogger("oomcheck.bot")  # the bot's one logger (bot/service.py)


def _choices(first: str) -> list[app_commands.Choice[str]]:
    """`first` (auto, default), then every reply language of the registry (locales.LANGUAGES)."""
    return [app_commands.Choice(name=value, value=value) for value in (first, *LANGUAGES)]


def k(key: str) -> app_commands.locale_str:
    """A command's or option's text: English by default, the key for the translator. Read when the
    class is defined, so from the catalogue itself rather than through the service's engine port."""
    return key_str(catalogue_lookup, f"bot.{key}")


async def _say(interaction: discord.Interaction, text: str, *, ephemeral: bool = True) -> None:
    """A short answer, whether or not the interaction was already deferred."""
    if interaction.response.is_done():
        await interaction.edit_original_response(content=text, allowed_mentions=NO_MENTIONS)
    else:
        await interaction.response.send_message(text, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)


async def _decline_public(interaction: discord.Interaction, text: str) -> None:
    """The public "thinking…" of a deferred check goes away; only the one who asked reads why."""
    await interaction.delete_original_response()
    await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)


def _reply_link(answer: Answer) -> str:
    return f"https://discord.com/channels/{answer.guild_id or '@me'}/{answer.channel_id}/{answer.reply_id}"


async def _send_text(interaction: discord.Interaction, outgoing: Outgoing) -> None:
    await interaction.edit_original_response(**outgoing.edit_kwargs())


def _bytes_held(item: SourcedText) -> int:
    content = item.content
    return len(content.data) if isinstance(content, RawText) else len(content.encode())


async def _history(
    service: ReplyService, channel: discord.abc.Messageable, author_id: int | None
) -> Gathered:
    """The latest config and log of one author among the recent messages of the channel or thread."""
    cap = service.settings.input_cap_bytes
    budget = 2 * cap  # attachments read from history in total: 25 large logs must not fill the memory
    user = service.client.user
    messages: list[tuple[discord.Message, Gathered]] = []
    async for message in channel.history(limit=service.settings.history_depth):
        if message.author.bot:
            continue
        # Once the budget is spent, later messages still count by their text but no file is read.
        own = await gather_message(
            message,
            cap=min(cap, budget),
            bot_user_id=user.id if user else None,
            files=budget > 0,
        )
        budget -= sum(_bytes_held(i) for i in own.inputs if i.source != "message")
        messages.append((message, own))

    read = [(message, gathered) for message, gathered in messages if gathered.inputs]
    # Attachments stay bytes here: the worker reads them.
    contents = [tuple(i.content for i in gathered.inputs) for _, gathered in read]
    kinds = await service.run_engine(engine_jobs.kinds_of_each, contents)
    candidates = [
        Candidate(message_id=message.id, author_id=message.author.id, inputs=gathered.inputs, kinds=kind)
        for (message, gathered), kind in zip(read, kinds, strict=True)
    ]
    chosen = select_from_history(candidates, author_id=author_id)
    inputs = tuple(
        SourcedText(f"message {n}" if item.source == "message" else item.source, item.content)
        for n, candidate in enumerate(chosen, start=1)
        for item in candidate.inputs
    )
    return Gathered(inputs)


async def _fetch_target(interaction: discord.Interaction, reference: str) -> discord.Message | None:
    ref = parse_message_ref(reference)
    if ref is None or interaction.guild is None:
        return None
    channel: object = interaction.channel
    if ref.channel_id is not None and ref.channel_id != interaction.channel_id:
        channel = interaction.guild.get_channel_or_thread(ref.channel_id)
        # The bot may read more than the member: never fetch from a channel they cannot see.
        user = interaction.user
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread) or not isinstance(
            user, discord.Member
        ):
            return None
        if not channel.permissions_for(user).read_message_history:
            return None
    if not isinstance(channel, discord.abc.Messageable):
        return None
    try:
        return await channel.fetch_message(ref.message_id)
    except discord.HTTPException:
        return None


def _permission_names(service: ReplyService, lang: str) -> dict[str, str]:
    """The permissions a reply may lack (`bot.delivery.needed_for`), as Discord's settings name them."""
    return {
        "view_channel": service.t("permission.view_channel", lang),
        "send_messages": service.t("permission.send_messages", lang),
        "send_messages_in_threads": service.t("permission.send_messages_in_threads", lang),
        "read_message_history": service.t("permission.read_message_history", lang),
        "embed_links": service.t("permission.embed_links", lang),
        "attach_files": service.t("permission.attach_files", lang),
        "unknown": service.t("permission.unknown", lang),
    }


class OomCommands(commands.Cog):
    def __init__(self, service: ReplyService) -> None:
        self.service = service
        # A context menu cannot be declared in a class (discord.py refuses it): it is made per cog.
        self.menu = app_commands.ContextMenu(name=k("command.context_menu.name"), callback=self.check_message)

    def tree_commands(self) -> list[app_commands.Command[Any, ..., Any] | app_commands.ContextMenu]:
        """Every application command of the cog, the message menu included."""
        return [*self.get_app_commands(), self.menu]  # type: ignore[list-item]

    async def cog_load(self) -> None:
        self.service.client.tree.add_command(self.menu, override=True)

    async def cog_unload(self) -> None:
        self.service.client.tree.remove_command(self.menu.name, type=self.menu.type)

    def _moderator(self, interaction: discord.Interaction) -> bool:
        return interaction_is_moderator(interaction, self.service.settings.moderator_role_ids)

    async def _on_cooldown(self, interaction: discord.Interaction, moderator: bool, ui: str) -> bool:
        """Take the member's cooldown for a check; True (and the member told how long to wait) when
        it is still running. Moderators are exempt."""
        left = 0.0 if moderator else self.service.cooldown.try_acquire(interaction.user.id)
        if left > 0:
            await _say(interaction, self.service.t("cooldown", ui, seconds=max(1, round(left))))
        return left > 0

    def _bytes_given(self, text: str | None, file: discord.Attachment | None) -> int:
        """What a command's own text and file hold at most, before anything is downloaded."""
        cap = self.service.settings.input_cap_bytes
        return len((text or "").encode()) + (min(file.size, cap) if file is not None else 0)

    async def _read_file(self, file: discord.Attachment) -> Gathered:
        """A command's text file, streamed like a message's (only its end is kept past the cap)."""
        service = self.service
        return await read_attachment(
            file,
            cap=service.settings.input_cap_bytes,
            read_limit=service.settings.attachment_read_bytes,
            fetch=service.download(),
        )

    async def _charged(
        self,
        interaction: discord.Interaction,
        moderator: bool,
        size: int,
        ui: str,
        check: Callable[[], Awaitable[None]],
    ) -> None:
        """`check` with its bytes held (`ReplyService.admitted`); when the bot is too busy the member
        is told so. The cooldown taken for the check is given back when no answer was delivered."""
        service = self.service
        try:
            async with service.admitted(size):
                await check()
        except QueueFull:
            if not moderator:
                service.cooldown.refund(interaction.user.id)
            await _say(interaction, service.t("busy_command", ui))
        except BaseException:
            if not moderator:
                service.cooldown.refund(interaction.user.id)
            raise

    # ------------------------------------------------------------------ checks

    @app_commands.command(name="oom-check", description=k("command.check.description"))
    @app_commands.describe(
        text=k("option.text"),
        file=k("option.file"),
        message=k("option.message"),
        lang=k("option.lang"),
        gpu=k("option.gpu"),
        public=k("option.public"),
    )
    @app_commands.choices(lang=_choices("auto"))
    async def oom_check(
        self,
        interaction: discord.Interaction,
        text: str | None = None,
        file: discord.Attachment | None = None,
        message: str | None = None,
        lang: str = "auto",
        gpu: app_commands.Range[float, 1.0, 1024.0] | None = None,
        public: bool = False,
    ) -> None:
        service = self.service
        explicit = None if lang == "auto" else lang
        moderator = self._moderator(interaction)
        ui = await service.ui_language(interaction, explicit)
        if await self._on_cooldown(interaction, moderator, ui):
            return
        visible = public and moderator
        await interaction.response.defer(ephemeral=not visible, thinking=True)

        async def check() -> None:
            parts: list[Gathered] = []
            target: discord.Message | None = None
            if message:
                target = await _fetch_target(interaction, message)
                if target is None:
                    await _say(interaction, service.t("message_not_found", ui))
                    return
                if target.author.id != interaction.user.id and not moderator:
                    await _say(interaction, service.t("not_your_message", ui))
                    return
                parts.append(await service.read_message(target))
            if text:
                parts.append(Gathered((SourcedText("text", text),)))
                parts.append(await service.read_links(text, used=len(text)))
            if file is not None and is_image_name(file.filename, file.content_type):
                parts.append(await service.screens.read_attachment(file))
            elif file is not None:
                parts.append(await self._read_file(file))
            await self._run_check(
                interaction,
                parts=parts,
                target=target,
                explicit=explicit,
                gpu=gpu,
                public=visible,
                read_history=not (message or text or file),
                notes=(service.t("public_needs_moderator", ui),) if public and not moderator else (),
            )

        await self._charged(interaction, moderator, self._bytes_given(text, file), ui, check)

    async def check_message(self, interaction: discord.Interaction, message: discord.Message) -> None:
        service = self.service
        moderator = self._moderator(interaction)
        ui = await service.ui_language(interaction)
        if message.author.id != interaction.user.id and not moderator:
            await _say(interaction, service.t("not_your_message", ui))
            return
        if await self._on_cooldown(interaction, moderator, ui):
            return
        answered = service.store.answer_for(message.id) if moderator else None
        if answered is not None:
            await _say(interaction, service.t("already_answered", ui, link=_reply_link(answered)))
            return
        # A moderator answers on the member's behalf, in the open; members see their own result only.
        await interaction.response.defer(ephemeral=not moderator, thinking=True)

        async def check() -> None:
            await self._run_check(
                interaction,
                parts=[await service.read_message(message)],
                target=message,
                explicit=None,
                gpu=None,
                public=moderator,
                read_history=False,
            )

        await self._charged(interaction, moderator, service.bytes_to_read(message), ui, check)

    async def _run_check(
        self,
        interaction: discord.Interaction,
        *,
        parts: list[Gathered],
        target: discord.Message | None,
        explicit: str | None,
        gpu: float | None,
        public: bool,
        read_history: bool,
        notes: tuple[str, ...] = (),
    ) -> None:
        """Shared by /oom-check and the message menu; the interaction is already deferred. A public
        check of a message is its one public answer: it waits for any other trigger at work on the
        message (auto mode, another moderator), and points to the answer that one gave."""
        checks = functools.partial(
            self._check,
            interaction,
            parts=parts,
            target=target,
            explicit=explicit,
            gpu=gpu,
            public=public,
            read_history=read_history,
            notes=notes,
        )
        if not public or target is None:
            await checks()
            return
        service = self.service
        await service.claims.claim_when_free(target.id)
        try:
            answered = service.store.answer_for(target.id)
            if answered is None:
                await checks()
                return
            lang = await service.ui_language(interaction, explicit)
            await _decline_public(
                interaction, service.t("already_answered", lang, link=_reply_link(answered))
            )
        finally:
            service.claims.release(target.id)

    async def _check(
        self,
        interaction: discord.Interaction,
        *,
        parts: list[Gathered],
        target: discord.Message | None,
        explicit: str | None,
        gpu: float | None,
        public: bool,
        read_history: bool,
        notes: tuple[str, ...],
    ) -> None:
        service = self.service
        moderator = self._moderator(interaction)
        lang = await service.ui_language(interaction, explicit)
        if read_history and isinstance(interaction.channel, discord.abc.Messageable):
            author = None if moderator else interaction.user.id
            parts.append(await _history(service, interaction.channel, author))
        gathered = merge(*parts)
        if not gathered.inputs:
            text = service.t(
                "nothing_in_history" if read_history else "nothing_to_check",
                lang,
                depth=service.settings.history_depth,
            )
            await _say(interaction, "\n".join([*service.ignored_notes(gathered.ignored, lang), text]))
            return
        request = Request(
            gathered=gathered,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            author_id=target.author.id if target is not None else interaction.user.id,
            # A public check answers the message for good: no trigger answers it again.
            source_id=target.id if public and target is not None else None,
            explicit_language=explicit,
            user_locale=str(interaction.locale.value),
            gpu_vram_gib=gpu,
            deletable=public,
            notes=notes,
        )
        await service.respond(interaction, await service.prepare(request))

    # ------------------------------------------------------------------ the memory estimate

    @app_commands.command(name="oom-estimate", description=k("command.estimate.description"))
    @app_commands.describe(
        text=k("option.estimate_text"),
        file=k("option.estimate_file"),
        gpu=k("option.gpu"),
        lang=k("option.lang"),
    )
    @app_commands.choices(lang=_choices("auto"))
    async def oom_estimate(
        self,
        interaction: discord.Interaction,
        text: str | None = None,
        file: discord.Attachment | None = None,
        gpu: app_commands.Range[float, 1.0, 1024.0] | None = None,
        lang: str = "auto",
    ) -> None:
        service = self.service
        ui = await service.ui_language(interaction, None if lang == "auto" else lang)
        moderator = self._moderator(interaction)
        if await self._on_cooldown(interaction, moderator, ui):
            return
        await interaction.response.defer(ephemeral=True, thinking=True)

        async def estimate() -> None:
            parts = [Gathered((SourcedText("text", text),))] if text else []
            if file is not None:
                parts.append(await self._read_file(file))
            gathered = merge(*parts)
            if not gathered.inputs:
                notes = service.ignored_notes(gathered.ignored, ui)
                await _say(interaction, "\n".join([*notes, service.t("nothing_to_check", ui)]))
                return
            inputs = [item.content for item in gathered.inputs]
            try:
                size = input_size(gathered.inputs)
                body = await service.engine_call(size, engine_jobs.estimate_text, inputs, ui, gpu)
            except Exception:
                # Past the time limit, or a bug: the member gets the apology, the log the traceback.
                _log.exception("/oom-estimate failed")
                await _say(interaction, service.t("apology", ui))
                return
            await _send_text(interaction, from_text(body, filename="oomcheck-estimate.txt"))

        await self._charged(interaction, moderator, self._bytes_given(text, file), ui, estimate)

    # ------------------------------------------------------------------ the rules

    @app_commands.command(name="oom-explain", description=k("command.explain.description"))
    @app_commands.describe(rule_id=k("option.rule_id"))
    async def oom_explain(self, interaction: discord.Interaction, rule_id: str) -> None:
        service = self.service
        lang = await service.ui_language(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = service.engine.explain(rule_id.strip(), lang)
        if text is None:
            await _say(interaction, service.t("unknown_rule", lang, rule_id=rule_id[:64]))
            return
        await _send_text(interaction, from_text(text, filename=f"{rule_id}.md"))

    @oom_explain.autocomplete("rule_id")
    async def complete_rule(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        needle = current.strip().lower()
        return [app_commands.Choice(name=r, value=r) for r in self.service.engine.rule_ids if needle in r][
            :25
        ]

    @app_commands.command(name="oom-rules", description=k("command.rules.description"))
    async def oom_rules(self, interaction: discord.Interaction) -> None:
        service = self.service
        lang = await service.ui_language(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await _send_text(
            interaction, from_text(service.engine.rules_text(lang), filename="oomcheck-rules.md")
        )

    # ------------------------------------------------------------------ moderators

    @app_commands.command(name="oom-config", description=k("command.config.description"))
    @app_commands.guild_only()
    @app_commands.describe(language=k("option.language"), auto_mode=k("option.auto_mode"))
    @app_commands.choices(language=_choices("default"))
    async def oom_config(
        self,
        interaction: discord.Interaction,
        language: str | None = None,
        auto_mode: bool | None = None,
    ) -> None:
        service = self.service
        lang = await service.ui_language(interaction)
        if not self._moderator(interaction) or interaction.guild_id is None:
            await _say(interaction, service.t("not_moderator", lang))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        current = await service.guild_prefs(interaction.guild_id)
        changed = language is not None or auto_mode is not None
        if changed:
            current = GuildSettings(
                language=current.language
                if language is None
                else (None if language == "default" else language),
                auto_mode=current.auto_mode if auto_mode is None else auto_mode,
            )
            await service.db(service.store.set_guild_settings, interaction.guild_id, current)
        lang = await service.ui_language(interaction)
        auto = service.settings.auto_mode if current.auto_mode is None else current.auto_mode
        shown_language = current.language or service.t(
            "config.default", lang, value=service.settings.default_language
        )
        text = service.t(
            "config.saved" if changed else "config.current",
            lang,
            language=shown_language,
            auto_mode=service.t("config.enabled" if auto else "config.disabled", lang),
        )
        problem = service.delivery.permissions.last(interaction.guild_id)
        if problem is not None:
            text += "\n" + service.t(
                "config.permission_problem",
                lang,
                channel=f"<#{problem.channel_id}>",
                when=f"<t:{int(problem.at)}:R>",
                permissions=", ".join(
                    _permission_names(service, lang).get(name, name) for name in problem.missing
                ),
            )
        await _say(interaction, text)

    @app_commands.command(name="oom-stats", description=k("command.stats.description"))
    @app_commands.guild_only()
    async def oom_stats(self, interaction: discord.Interaction) -> None:
        service = self.service
        lang = await service.ui_language(interaction)
        if not self._moderator(interaction):
            await _say(interaction, service.t("not_moderator", lang))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        rows = await service.db(service.store.stats, interaction.guild_id)
        total = await service.db(service.store.reply_count, interaction.guild_id)
        if not rows:
            await _say(interaction, service.t("stats.empty", lang))
            return
        lines = [service.t("stats.header", lang, total=total)]
        for row in rows:
            votes = row.helpful + row.unhelpful
            ratio = f"{100 * row.helpful / votes:.0f}%" if votes else service.t("stats.no_votes", lang)
            lines.append(
                service.t(
                    "stats.line",
                    lang,
                    rule_id=row.rule_id,
                    count=row.diagnoses,
                    helpful=row.helpful,
                    unhelpful=row.unhelpful,
                    ratio=ratio,
                )
            )
        await _send_text(interaction, from_text("\n".join(lines), filename="oomcheck-stats.txt"))
