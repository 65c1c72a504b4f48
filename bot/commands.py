"""Application commands: /oom-check, the "OOM check" message menu, /oom-explain, /oom-rules,
/oom-config and /oom-stats. Every reply is deferred first, since a diagnosis may take seconds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands

from bot.inputs import (
    Candidate,
    Gathered,
    SourcedText,
    gather_message,
    merge,
    parse_message_ref,
    read_attachment,
    select_from_history,
)
from bot.permissions import interaction_is_moderator
from bot.request import Request
from bot.send import NO_MENTIONS, Outgoing, from_text
from bot.store import GuildSettings
from bot.translator import key_str

if TYPE_CHECKING:
    from bot.app import OomBot


async def _say(interaction: discord.Interaction, text: str, *, ephemeral: bool = True) -> None:
    """A short answer, whether or not the interaction was already deferred."""
    if interaction.response.is_done():
        await interaction.edit_original_response(content=text, allowed_mentions=NO_MENTIONS)
    else:
        await interaction.response.send_message(text, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)


async def _send_text(interaction: discord.Interaction, outgoing: Outgoing) -> None:
    await interaction.edit_original_response(**outgoing.edit_kwargs())


async def _history(bot: OomBot, channel: discord.abc.Messageable, author_id: int | None) -> Gathered:
    """The latest config and log of one author among the recent messages of the channel or thread."""
    cap = bot.settings.input_cap_bytes
    budget = 2 * cap  # attachments read from history in total: 25 large logs must not fill the memory
    messages: list[tuple[discord.Message, Gathered]] = []
    async for message in channel.history(limit=bot.settings.history_depth):
        if message.author.bot:
            continue
        # Once the budget is spent, later messages still count by their text but no file is read.
        own = await gather_message(
            message,
            cap=min(cap, budget),
            bot_user_id=bot.user.id if bot.user else None,
            files=budget > 0,
        )
        budget -= sum(len(i.text.encode()) for i in own.inputs if i.source != "message")
        messages.append((message, own))

    def classify() -> list[Candidate]:
        return [
            Candidate(
                message_id=message.id,
                author_id=message.author.id,
                inputs=gathered.inputs,
                kinds=bot.engine.kinds("\n".join(i.text for i in gathered.inputs)),
            )
            for message, gathered in messages
            if gathered.inputs
        ]

    chosen = select_from_history(await bot.run_engine(classify), author_id=author_id)
    inputs = tuple(
        SourcedText(f"message {n}" if item.source == "message" else item.source, item.text)
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


async def _run_check(
    bot: OomBot,
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
    """Shared by /oom-check and the message menu; the interaction is already deferred."""
    moderator = interaction_is_moderator(interaction, bot.settings.moderator_role_ids)
    lang = await bot.ui_language(interaction, explicit)
    if read_history and isinstance(interaction.channel, discord.abc.Messageable):
        parts.append(await _history(bot, interaction.channel, None if moderator else interaction.user.id))
    gathered = merge(*parts)
    if not gathered.inputs:
        text = bot.t(
            "nothing_in_history" if read_history else "nothing_to_check",
            lang,
            depth=bot.settings.history_depth,
        )
        await _say(interaction, "\n".join([*bot.ignored_notes(gathered.ignored, lang), text]))
        return
    request = Request(
        gathered=gathered,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id or 0,
        author_id=target.author.id if target is not None else interaction.user.id,
        source_id=None,
        explicit_language=explicit,
        user_locale=str(interaction.locale.value),
        gpu_vram_gib=gpu,
        deletable=public,
        notes=notes,
    )
    prepared = await bot.prepare(request)
    sent = await interaction.edit_original_response(
        **prepared.outgoing.edit_kwargs(), view=prepared.buttons.view()
    )
    await bot.remember(prepared, sent.id)


def register(bot: OomBot) -> None:
    def k(key: str) -> app_commands.locale_str:
        return key_str(bot.lookup, f"bot.{key}")

    def cooldown_left(interaction: discord.Interaction, moderator: bool) -> float:
        return 0.0 if moderator else bot.cooldown.try_acquire(interaction.user.id)

    @bot.tree.command(name="oom-check", description=k("command.check.description"))
    @app_commands.describe(
        text=k("option.text"),
        file=k("option.file"),
        message=k("option.message"),
        lang=k("option.lang"),
        gpu=k("option.gpu"),
        public=k("option.public"),
    )
    async def oom_check(
        interaction: discord.Interaction,
        text: str | None = None,
        file: discord.Attachment | None = None,
        message: str | None = None,
        lang: Literal["auto", "ja", "en"] = "auto",
        gpu: app_commands.Range[float, 1.0, 1024.0] | None = None,
        public: bool = False,
    ) -> None:
        explicit = None if lang == "auto" else lang
        moderator = interaction_is_moderator(interaction, bot.settings.moderator_role_ids)
        ui = await bot.ui_language(interaction, explicit)
        left = cooldown_left(interaction, moderator)
        if left > 0:
            await _say(interaction, bot.t("cooldown", ui, seconds=max(1, round(left))))
            return
        visible = public and moderator
        await interaction.response.defer(ephemeral=not visible, thinking=True)
        parts: list[Gathered] = []
        target: discord.Message | None = None
        if message:
            target = await _fetch_target(interaction, message)
            if target is None:
                await _say(interaction, bot.t("message_not_found", ui))
                return
            if target.author.id != interaction.user.id and not moderator:
                await _say(interaction, bot.t("not_your_message", ui))
                return
            parts.append(await bot.read_message(target))
        if text:
            parts.append(Gathered((SourcedText("text", text),)))
        if file is not None:
            parts.append(
                await read_attachment(
                    file, cap=bot.settings.input_cap_bytes, read_limit=bot.settings.attachment_read_bytes
                )
            )
        await _run_check(
            bot,
            interaction,
            parts=parts,
            target=target,
            explicit=explicit,
            gpu=gpu,
            public=visible,
            read_history=not (message or text or file),
            notes=(bot.t("public_needs_moderator", ui),) if public and not moderator else (),
        )

    async def check_message(interaction: discord.Interaction, message: discord.Message) -> None:
        moderator = interaction_is_moderator(interaction, bot.settings.moderator_role_ids)
        ui = await bot.ui_language(interaction)
        if message.author.id != interaction.user.id and not moderator:
            await _say(interaction, bot.t("not_your_message", ui))
            return
        left = cooldown_left(interaction, moderator)
        if left > 0:
            await _say(interaction, bot.t("cooldown", ui, seconds=max(1, round(left))))
            return
        # A moderator answers on the member's behalf, in the open; members see their own result only.
        await interaction.response.defer(ephemeral=not moderator, thinking=True)
        await _run_check(
            bot,
            interaction,
            parts=[await bot.read_message(message)],
            target=message,
            explicit=None,
            gpu=None,
            public=moderator,
            read_history=False,
        )

    bot.tree.add_command(
        app_commands.ContextMenu(name=k("command.context_menu.name"), callback=check_message)
    )

    async def complete_rule(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        needle = current.strip().lower()
        return [app_commands.Choice(name=r, value=r) for r in bot.engine.rule_ids if needle in r][:25]

    @bot.tree.command(name="oom-explain", description=k("command.explain.description"))
    @app_commands.describe(rule_id=k("option.rule_id"))
    @app_commands.autocomplete(rule_id=complete_rule)
    async def oom_explain(interaction: discord.Interaction, rule_id: str) -> None:
        lang = await bot.ui_language(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = bot.engine.explain(rule_id.strip(), lang)
        if text is None:
            await _say(interaction, bot.t("unknown_rule", lang, rule_id=rule_id[:64]))
            return
        await _send_text(interaction, from_text(text, filename=f"{rule_id}.md"))

    @bot.tree.command(name="oom-rules", description=k("command.rules.description"))
    async def oom_rules(interaction: discord.Interaction) -> None:
        lang = await bot.ui_language(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await _send_text(interaction, from_text(bot.engine.rules_text(lang), filename="oomcheck-rules.md"))

    @bot.tree.command(name="oom-config", description=k("command.config.description"))
    @app_commands.guild_only()
    @app_commands.describe(language=k("option.language"), auto_mode=k("option.auto_mode"))
    async def oom_config(
        interaction: discord.Interaction,
        language: Literal["default", "ja", "en"] | None = None,
        auto_mode: bool | None = None,
    ) -> None:
        lang = await bot.ui_language(interaction)
        if (
            not interaction_is_moderator(interaction, bot.settings.moderator_role_ids)
            or interaction.guild_id is None
        ):
            await _say(interaction, bot.t("not_moderator", lang))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        current = await bot.guild_prefs(interaction.guild_id)
        changed = language is not None or auto_mode is not None
        if changed:
            current = GuildSettings(
                language=current.language
                if language is None
                else (None if language == "default" else language),
                auto_mode=current.auto_mode if auto_mode is None else auto_mode,
            )
            await bot.db(bot.store.set_guild_settings, interaction.guild_id, current)
        lang = await bot.ui_language(interaction)
        auto = bot.settings.auto_mode if current.auto_mode is None else current.auto_mode
        shown_language = current.language or bot.t(
            "config.default", lang, value=bot.settings.default_language
        )
        text = bot.t(
            "config.saved" if changed else "config.current",
            lang,
            language=shown_language,
            auto_mode=bot.t("config.enabled" if auto else "config.disabled", lang),
        )
        await _say(interaction, text)

    @bot.tree.command(name="oom-stats", description=k("command.stats.description"))
    @app_commands.guild_only()
    async def oom_stats(interaction: discord.Interaction) -> None:
        lang = await bot.ui_language(interaction)
        if not interaction_is_moderator(interaction, bot.settings.moderator_role_ids):
            await _say(interaction, bot.t("not_moderator", lang))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        rows = await bot.db(bot.store.stats, interaction.guild_id)
        total = await bot.db(bot.store.reply_count, interaction.guild_id)
        if not rows:
            await _say(interaction, bot.t("stats.empty", lang))
            return
        lines = [bot.t("stats.header", lang, total=total)]
        for row in rows:
            votes = row.helpful + row.unhelpful
            ratio = f"{100 * row.helpful / votes:.0f}%" if votes else bot.t("stats.no_votes", lang)
            lines.append(
                bot.t(
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
