"""The bot: a `commands.Bot` that adapts Discord events to the engine and back.

`create_bot(settings, **client_options)` builds it; client options pass straight to discord.py
(`connector`, `guild_ready_timeout`, `max_ratelimit_timeout`, …).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot import buttons, listeners
from bot import commands as bot_commands
from bot.diagnosis_port import INLINE_INPUT_CHARS, DiagnosisEngine, EnginePort, kinds_of_report
from bot.heartbeat import write_heartbeat
from bot.inputs import (
    MAX_TEXT_ATTACHMENTS,
    Gathered,
    IgnoredFile,
    bot_role_id,
    gather_message,
    input_size,
    inputs_hash,
    largest_read,
)
from bot.ratelimit import Cooldown, WindowLimiter
from bot.request import Prepared, Request
from bot.send import NO_MENTIONS, from_reply, say_privately
from bot.settings import BotSettings
from bot.store import Answer, Case, GuildSettings, Store
from bot.translator import CatalogueTranslator
from bot.triggers import AutoScope
from bot.views import ButtonAction, ButtonLabels, OomButton, ReplyButtons
from diagnosis.models import Report

log = logging.getLogger("oomcheck.bot")
T = TypeVar("T")


def _mib(size: int) -> str:
    """Bytes as MiB for a sentence: "8", "12.5"."""
    return f"{size / (1024 * 1024):.1f}".removesuffix(".0")


def skip_own_messages(
    parse: Callable[[dict[str, Any]], None], own_id: Callable[[], int | None]
) -> Callable[[dict[str, Any]], None]:
    """discord.py's MESSAGE_CREATE handler, minus the bot's own messages. The gateway echoes every
    reply back; discord.py would build a full `Message` of it (the quoted message, the embeds, the
    buttons) and schedule `on_message`, only for the bot to ignore it (`listeners._from_a_member`)."""

    def parse_message_create(data: dict[str, Any]) -> None:
        author = data.get("author")
        if isinstance(author, dict) and str(author.get("id")) == str(own_id()):
            return
        parse(data)

    return parse_message_create


class OomTree(app_commands.CommandTree[Any]):
    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        client = interaction.client
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error(
            "command %s failed (guild=%s channel=%s user=%s): %s",
            command,
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            type(getattr(error, "original", error)).__name__,
            exc_info=getattr(error, "original", error),
        )
        if isinstance(client, OomBot):
            await client.apologize(interaction)


class _Turn:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.waiting = 0


class OomBot(commands.Bot):
    def __init__(
        self, settings: BotSettings, engine: EnginePort, *, inline_input_chars: int = 0, **client_options: Any
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.guild_messages = True
        intents.message_content = True
        # Never ping anyone, whatever a caller passes: the bot echoes user-controlled text.
        client_options["allowed_mentions"] = NO_MENTIONS
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=OomTree,
            **client_options,
        )
        self.settings = settings
        self.engine = engine
        # Engine work on at most this many characters of input runs on the event loop (see `engine_call`).
        self.inline_input_chars = inline_input_chars
        self.scope = AutoScope(frozenset(settings.help_channel_ids), frozenset(settings.forum_channel_ids))
        self.cooldown = Cooldown(settings.user_cooldown_seconds)
        self.channel_limiter = WindowLimiter(settings.channel_replies_per_minute, 60.0)
        self._store: Store | None = None
        self._inflight: set[int] = set()
        self._turns: dict[int, _Turn] = {}
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._engine_pool = ThreadPoolExecutor(settings.engine_workers, thread_name_prefix="oomcheck-engine")
        bot_commands.register(self)
        # `parsers` is discord.py's private table of gateway handlers (pinned to 2.7 in pyproject).
        # Skipping an own message also keeps it out of the message cache and `last_message_id`;
        # nothing here reads either for the bot's own messages (a reply to one is recognised from
        # the payload, see `listeners._gather`). tests/e2e/test_bot_own_messages fails if
        # discord.py stops dispatching through this table.
        parsers = self._connection.parsers
        parsers["MESSAGE_CREATE"] = skip_own_messages(
            parsers["MESSAGE_CREATE"], lambda: self._connection.self_id
        )

    # ------------------------------------------------------------------ lifecycle

    async def setup_hook(self) -> None:
        await self.open_store()
        self.add_dynamic_items(OomButton)
        await self.tree.set_translator(CatalogueTranslator(self.lookup))
        await self._sync_commands()
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop(), name="oomcheck-heartbeat")

    async def open_store(self) -> None:
        """Open (and migrate) the database, then drop what is past the retention period."""
        if self._store is None:
            self._store = await asyncio.to_thread(Store, self.settings.database_path)
        await self.db(self.store.purge, time.time() - self.settings.retention_days * 86400)

    async def _sync_commands(self) -> None:
        if not self.settings.guild_ids:
            await self.tree.sync()
            return
        for guild_id in self.settings.guild_ids:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            try:
                await self.tree.sync(guild=guild)
            except discord.HTTPException as exc:
                # One server without the applications.commands scope must not keep the others down.
                log.warning("command sync failed for guild %s: HTTP %s", guild_id, exc.status)

    async def _heartbeat_loop(self) -> None:
        await self.wait_until_ready()
        last_purge = time.time()
        while not self.is_closed():
            if self.connected():
                try:
                    await asyncio.to_thread(write_heartbeat, self.settings.heartbeat_path)
                except OSError as exc:
                    log.warning("cannot write the heartbeat file: %s", exc.strerror)
            try:
                # The event loop's connection never checkpoints (see `Store`); keep the log short.
                await self.db(self.store.checkpoint)
            except sqlite3.Error as exc:
                log.warning("checkpoint failed: %s", exc)
            if time.time() - last_purge > 3600:
                last_purge = time.time()
                try:
                    await self.db(self.store.purge, last_purge - self.settings.retention_days * 86400)
                except sqlite3.Error as exc:
                    log.warning("retention purge failed: %s", exc)
            await asyncio.sleep(self.settings.heartbeat_interval_seconds)

    def connected(self) -> bool:
        """Ready and holding an open gateway connection (an outage stops the heartbeat)."""
        ws = self.ws
        return self.is_ready() and ws is not None and ws.open and math.isfinite(self.latency)

    async def close(self) -> None:
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
        await super().close()
        self._engine_pool.shutdown(wait=False, cancel_futures=True)
        # A stopped bot is not healthy: the next `--health` must not read an old beat as fresh.
        with contextlib.suppress(OSError):
            self.settings.heartbeat_path.unlink(missing_ok=True)
        if self._store is not None:
            self._store.close()
            self._store = None

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        # The arguments are Discord objects holding user text: log where it happened, never what was said.
        log.exception("error in event %s", event_method)

    # ------------------------------------------------------------------ events

    async def on_message(self, message: discord.Message) -> None:
        await listeners.on_message(self, message)

    async def on_thread_create(self, thread: discord.Thread) -> None:
        await listeners.on_thread_create(self, thread)

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        await listeners.on_raw_message_edit(self, payload)

    async def on_oom_button(self, interaction: discord.Interaction, action: ButtonAction) -> None:
        await buttons.on_button(self, interaction, action)

    # ------------------------------------------------------------------ services for the handlers

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store opens in setup_hook")
        return self._store

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    async def run_engine(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Engine work runs on its own small pool, so a pathological input can hold at most
        `engine_workers` threads and never starves the store or the gateway; past the timeout the
        event gives up (the thread finishes in the background) and the usual error path apologizes."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._engine_pool, functools.partial(fn, *args, **kwargs))
        return await asyncio.wait_for(future, self.settings.diagnosis_timeout_seconds)

    async def engine_call(self, size: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Engine work over `size` characters of input. Up to `inline_input_chars` it runs right here,
        without the timeout: the engine's own limits keep such an input to milliseconds (a chat
        message is well under one), less than the hop to a worker thread and back costs. Anything
        bigger goes to the engine pool, under the timeout."""
        if size <= self.inline_input_chars:
            return fn(*args, **kwargs)
        return await self.run_engine(fn, *args, **kwargs)

    def claim(self, message_id: int) -> bool:
        """Mark a message as being answered; False when another event is already on it."""
        if message_id in self._inflight:
            return False
        self._inflight.add(message_id)
        return True

    def release(self, message_id: int) -> None:
        self._inflight.discard(message_id)

    @contextlib.asynccontextmanager
    async def member_turn(self, user_id: int) -> AsyncIterator[None]:
        """One message of a member at a time: the cooldown a reply takes is then seen by that
        member's next message before it is diagnosed, even when a burst arrives all at once (and
        one member can never hold more than one engine worker)."""
        turn = self._turns.setdefault(user_id, _Turn())
        turn.waiting += 1
        try:
            async with turn.lock:
                yield
        finally:
            turn.waiting -= 1
            if turn.waiting == 0:
                del self._turns[user_id]

    def lookup(self, key: str, lang: str) -> str | None:
        try:
            text = self.engine.message(key, lang)
        except KeyError:
            return None
        return text if text and text != key else None

    def t(self, key: str, lang: str, **params: object) -> str:
        return self.engine.message(f"bot.{key}", lang, **params)

    async def guild_prefs(self, guild_id: int | None) -> GuildSettings:
        if guild_id is None:
            return GuildSettings()
        known = self.store.known_guild_settings(guild_id)
        if known is not None:
            return known
        return await self.db(self.store.guild_settings, guild_id)

    async def guild_language(self, guild_id: int | None) -> str:
        return (await self.guild_prefs(guild_id)).language or self.settings.default_language

    async def ui_language(self, interaction: discord.Interaction, explicit: str | None = None) -> str:
        guild_default = await self.guild_language(interaction.guild_id)
        return self.engine.choose_language(explicit, str(interaction.locale.value), guild_default, None)

    async def read_message(self, message: discord.Message, *, strip_mentions: bool = False) -> Gathered:
        """A message's text and readable attachments, within the input cap and the read limit;
        `strip_mentions` drops mentions of the bot and its role (a message asking the bot by name)."""
        return await gather_message(
            message,
            cap=self.settings.input_cap_bytes,
            bot_user_id=self.user.id if strip_mentions and self.user else None,
            bot_role_id=bot_role_id(message),
            read_limit=self.settings.attachment_read_bytes,
        )

    def ignored_notes(self, ignored: Sequence[IgnoredFile], lang: str) -> list[str]:
        limit_mib = _mib(self.settings.input_cap_bytes)
        read_mib = _mib(largest_read(self.settings.input_cap_bytes, self.settings.attachment_read_bytes))
        notes = []
        for f in ignored:
            if f.reason == "size":
                notes.append(self.t("attachment_ignored_size", lang, name=f.name, limit_mib=read_mib))
            elif f.reason == "tail":
                notes.append(
                    self.t("attachment_tail", lang, name=f.name, size_mib=_mib(f.size), limit_mib=limit_mib)
                )
            elif f.reason == "many":
                notes.append(
                    self.t(
                        "attachment_ignored_many",
                        lang,
                        name=f.name,
                        count=MAX_TEXT_ATTACHMENTS,
                        limit_mib=limit_mib,
                    )
                )
            else:
                notes.append(self.t("attachment_ignored_type", lang, name=f.name))
        return notes

    async def diagnose(self, request: Request, *, steps: int = 1) -> Report:
        """The report, with corrected configs written for ladder steps 1 to `steps` (the one shown)."""
        inputs = request.gathered.inputs
        return await self.engine_call(
            input_size(inputs),
            self.engine.diagnose,
            [i.text for i in inputs],
            locale=request.explicit_language,
            gpu_vram_gib=request.gpu_vram_gib,
            sources=[i.source for i in inputs],
            steps=steps,
        )

    async def build(
        self, request: Request, report: Report, *, step: int = 1, lang: str | None = None
    ) -> Prepared:
        if lang is None:
            guild_default = await self.guild_language(request.guild_id)
            lang = self.engine.choose_language(
                request.explicit_language, request.user_locale, guild_default, report.language
            )
        # The report (and so the reply) grows with the input it was made from.
        size = input_size(request.gathered.inputs)
        reply = await self.engine_call(size, self.engine.render, report, lang=lang, step=step)
        notes = [*request.notes, *self.ignored_notes(request.gathered.ignored, lang)]
        labels = ButtonLabels(
            next_step=self.t("button.next_step", lang),
            language=self.t("button.language", lang),
            delete=self.t("button.delete", lang),
        )
        buttons = ReplyButtons(
            labels, step=step, has_next=step < len(report.ladder), lang=lang, deletable=request.deletable
        )
        return Prepared(request, report, lang, step, from_reply(reply, notes), buttons)

    async def prepare(self, request: Request, *, step: int = 1, lang: str | None = None) -> Prepared:
        return await self.build(request, await self.diagnose(request, steps=step), step=step, lang=lang)

    async def remember(self, prepared: Prepared, reply_id: int, *, answered_at: float | None = None) -> None:
        """Store the scrubbed inputs for the buttons, the rules for the stats, and the answered marker."""
        request = prepared.request
        now = time.time()
        kinds = kinds_of_report(prepared.report)

        inputs = request.gathered.inputs

        def scrub_all() -> tuple[tuple[str, str], ...]:
            return tuple((i.source, self.engine.scrub(i.text, i.source)) for i in inputs)

        # Scrubbing reads up to the input cap per input: engine work, so (unless small) on the engine
        # pool and under its timeout, like the diagnosis itself.
        scrubbed = await self.engine_call(input_size(inputs), scrub_all)
        case = Case(
            reply_id=reply_id,
            source_id=request.source_id,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
            author_id=request.author_id,
            inputs=scrubbed,
            language=prepared.language,
            explicit_language=request.explicit_language is not None,
            gpu_vram_gib=request.gpu_vram_gib,
            step=prepared.step,
            created=now,
            has_config=kinds.config,
            has_log=kinds.log,
        )
        rule_ids = [f.rule_id for f in prepared.report.findings]
        sources = () if request.source_id is None else (request.source_id, *request.also_answers)

        def answers() -> list[Answer]:
            # Every merged message gets the merged hash: an edit of either compares against the whole.
            digest = inputs_hash(inputs)
            return [
                Answer(
                    source_id=source_id,
                    reply_id=reply_id,
                    channel_id=request.channel_id,
                    guild_id=request.guild_id,
                    author_id=request.author_id,
                    inputs_hash=digest,
                    created=now if answered_at is None else answered_at,
                )
                for source_id in sources
            ]

        # A small case is a few rows: written right here unless the store is busy, since a thread
        # hop (and the GIL hand-over to it while the loop works) costs more than the write. The
        # member's next message waits for this (see `member_turn`), so it must not wait for a hop.
        small = input_size(inputs) <= self.inline_input_chars
        if not (small and self.store.try_save_reply(case, rule_ids, answers())):
            await self.db(lambda: self.store.save_reply(case, rule_ids, answers()))
        log.info(
            "reply %s (guild=%s channel=%s source=%s step=%s): %s",
            reply_id,
            request.guild_id,
            request.channel_id,
            request.source_id,
            prepared.step,
            ",".join(rule_ids) or "-",
        )

    async def apologize(self, interaction: discord.Interaction) -> None:
        try:
            await say_privately(interaction, self.t("apology", await self.ui_language(interaction)))
        except (discord.HTTPException, discord.RateLimited):
            log.warning("could not send the apology for interaction %s", interaction.id)


def create_bot(settings: BotSettings, **client_options: Any) -> OomBot:
    """The bot with the real engine. Start it with `await bot.start(token)` (or login + connect)."""
    return OomBot(settings, DiagnosisEngine(), inline_input_chars=INLINE_INPUT_CHARS, **client_options)
