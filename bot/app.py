"""The bot: a `commands.Bot` whose handlers are cogs around one `ReplyService`.

`create_bot(settings, **client_options)` builds it; client options pass straight to discord.py
(`connector`, `guild_ready_timeout`, `max_ratelimit_timeout`, …).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import engine_jobs
from bot.buttons import ButtonHandlers
from bot.catchup import catch_up
from bot.commands import OomCommands
from bot.diagnosis_port import INLINE_INPUT_CHARS, DiagnosisEngine, EnginePort
from bot.heartbeat import write_heartbeat
from bot.listeners import MessageListeners
from bot.send import NO_MENTIONS
from bot.service import ReplyService
from bot.settings import BotSettings
from bot.translator import CatalogueTranslator, catalogue_lookup
from bot.views import ButtonAction
from bot.workers import DiagnosisTimedOut, ProcessWorkers, hand_back_big_buffers

log = logging.getLogger("oomcheck.bot")


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
    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """Every command is tracked until it completes or fails, so that a stop can finish or
        clearly fail it; a stopping bot takes no new one."""
        client = interaction.client
        if (
            not isinstance(client, OomBot)
            or interaction.type is not discord.InteractionType.application_command
        ):
            return True
        if client.service.inflight.closing:
            await client.service.say_restarting(interaction)
            return False
        client.service.inflight.begin(interaction)
        return True

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
            if isinstance(getattr(error, "original", error), DiagnosisTimedOut):
                await client.service.say_too_slow(interaction)
            else:
                await client.service.apologize(interaction)
            client.service.inflight.end(interaction)


class OomBot(commands.Bot):
    def __init__(
        self,
        settings: BotSettings,
        engine: EnginePort,
        *,
        inline_input_chars: int = 0,
        workers: ProcessWorkers | None = None,
        **client_options: Any,
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
        self.service = ReplyService(
            self, settings, engine, inline_input_chars=inline_input_chars, workers=workers
        )
        self.messages = MessageListeners(self.service)
        self.slash_commands = OomCommands(self.service)
        self.buttons = ButtonHandlers(self.service)
        # `add_cog` is a coroutine, run in `setup_hook`; the tree knows the commands from here on
        # already, since callers read it before the bot starts (the command list in the operator
        # docs' test, a sync from a script). `add_cog(..., override=True)` puts the same objects back.
        for command in self.slash_commands.tree_commands():
            self.tree.add_command(command)
        self._heartbeat_task: asyncio.Task[None] | None = None
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
        if self.service.workers is not None:
            hand_back_big_buffers()  # big inputs pass through this process too, on their way
        await self.service.open_store()
        for cog in (self.messages, self.slash_commands, self.buttons):
            await self.add_cog(cog, override=True)
        await self.tree.set_translator(CatalogueTranslator(catalogue_lookup))
        await self._sync_commands()
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop(), name="oomcheck-heartbeat")

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
        service = self.service
        last_purge = time.time()
        while not self.is_closed():
            if self.connected():
                try:
                    await asyncio.to_thread(write_heartbeat, self.settings.heartbeat_path)
                except OSError as exc:
                    log.warning("cannot write the heartbeat file: %s", exc.strerror)
            try:
                # The event loop's connection never checkpoints (see `Store`); keep the log short.
                await service.db(service.store.checkpoint)
            except sqlite3.Error as exc:
                log.warning("checkpoint failed: %s", exc)
            if time.time() - last_purge > 3600:
                last_purge = time.time()
                try:
                    await service.purge_expired()
                except sqlite3.Error as exc:
                    log.warning("retention purge failed: %s", exc)
            await asyncio.sleep(self.settings.heartbeat_interval_seconds)

    def connected(self) -> bool:
        """Ready and holding an open gateway connection (an outage stops the heartbeat)."""
        ws = self.ws
        return self.is_ready() and ws is not None and ws.open and math.isfinite(self.latency)

    async def shutdown(self) -> None:
        """A graceful stop (SIGTERM): nothing new is started, what is in flight gets
        `shutdown_grace_seconds` to finish, what still is not is failed clearly, then the bot closes."""
        inflight = self.service.inflight
        inflight.closing = True
        if not await inflight.drain(self.settings.shutdown_grace_seconds):
            for where in inflight.unfinished_messages():
                log.warning(
                    "stopping: the reply to message %s (guild=%s channel=%s) did not finish in %.0f s; "
                    "the next start answers it if it is still within the catch-up window",
                    where.message_id,
                    where.guild_id,
                    where.channel_id,
                    self.settings.shutdown_grace_seconds,
                )
            for interaction in inflight.unfinished_interactions():
                log.warning(
                    "stopping: interaction %s (guild=%s channel=%s) did not finish; told the member",
                    interaction.id,
                    interaction.guild_id,
                    interaction.channel_id,
                )
                await self.service.say_restarting(interaction)
        await self.close()

    async def close(self) -> None:
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
        await self.service.aclose()
        await super().close()
        # A stopped bot is not healthy: the next `--health` must not read an old beat as fresh.
        with contextlib.suppress(OSError):
            self.settings.heartbeat_path.unlink(missing_ok=True)
        self.service.close()

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        # The arguments are Discord objects holding user text: log where it happened, never what was said.
        log.exception("error in event %s", event_method)

    # ------------------------------------------------------------------ events

    async def on_message(self, message: discord.Message, /) -> None:
        # The cogs' listeners answer messages. `commands.Bot.on_message` would also look for a
        # prefix command in each one; the bot has none.
        return

    async def on_ready(self) -> None:
        # READY comes after every IDENTIFY (a start, an invalidated session), never after a RESUME,
        # whose missed events Discord replays itself.
        service = self.service
        await catch_up(
            self,
            self.settings,
            lambda mid: service.store.answer_for(mid) is not None,
            self.messages.on_message,
        )

    async def on_app_command_completion(self, interaction: discord.Interaction, command: object) -> None:
        self.service.inflight.end(interaction)

    async def on_oom_button(self, interaction: discord.Interaction, action: ButtonAction) -> None:
        """Where `OomButton.callback` sends a click (awaited there, not dispatched as an event)."""
        inflight = self.service.inflight
        if inflight.closing:
            await self.service.say_restarting(interaction)
            return
        inflight.begin(interaction)
        try:
            await self.buttons.on_button(interaction, action)
        finally:
            inflight.end(interaction)


def create_bot(settings: BotSettings, **client_options: Any) -> OomBot:
    """The bot with the real engine. Start it with `await bot.start(token)` (or login + connect).
    Big inputs are diagnosed in `engine_workers` worker processes, each with an engine of its own."""
    # The bot never joins a voice channel: discord.py's start-up warnings about voice libraries would
    # only make an operator wonder what is missing.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    workers = ProcessWorkers(
        engine_jobs.real_engine, settings.worker_count(), warm=engine_jobs.warm, preload=["bot.engine_jobs"]
    )
    return OomBot(
        settings, DiagnosisEngine(), inline_input_chars=INLINE_INPUT_CHARS, workers=workers, **client_options
    )
