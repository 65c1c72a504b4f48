"""The reply service: the one object the handlers (the cogs in listeners.py, commands.py and
buttons.py) share. It reads a message's inputs, diagnoses them, builds the reply, sends or edits it,
and stores what the buttons and the stats need afterwards; it also holds the state the handlers
share (the store, the engine pool, cooldowns and budgets, the messages being answered).

It knows the client only as a `commands.Bot`, never `bot.app`, so the handlers can import it
while `bot.app` imports them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

import aiohttp
import discord
from discord.ext import commands

from bot import engine_jobs
from bot.budget import ByteBudget
from bot.claims import MessageClaims
from bot.delivery import Delivery, Where, needed_for
from bot.diagnosis_port import DiscordReplyLike, EnginePort, kinds_of_report
from bot.download import fetch_tail
from bot.engine_jobs import Diagnosis
from bot.inflight import InFlight
from bot.inputs import (
    MAX_TEXT_ATTACHMENTS,
    Fetch,
    Gathered,
    IgnoredFile,
    bot_role_id,
    gather_message,
    input_size,
    is_text_attachment,
    largest_read,
    merge,
)
from bot.languages import reply_languages
from bot.links import REFUSALS, FetchLimits, LinkFetcher
from bot.media import ScreenReader, gather_links
from bot.ocr import OcrLimits
from bot.ratelimit import Cooldown, WindowLimiter
from bot.request import Prepared, Request
from bot.send import NO_MENTIONS, for_channel, from_reply, say_privately
from bot.settings import BotSettings
from bot.store import Answer, Case, GuildSettings, Store
from bot.triggers import AutoScope
from bot.views import ButtonLabels, LanguageChoice, ReplyButtons
from bot.workers import ProcessWorkers
from diagnosis.report import Report

log = logging.getLogger("oomcheck.bot")
T = TypeVar("T")


def _mib(size: int) -> str:
    """Bytes as MiB for a sentence: "8", "12.5"."""
    return f"{size / (1024 * 1024):.1f}".removesuffix(".0")


def _where(what: str, message: discord.Message) -> Where:
    guild_id = message.guild.id if message.guild is not None else None
    return Where(what, guild_id, message.channel.id, message.id)


# The notes on screenshots and links (bot/media.py): an ignored file's reason → its sentence.
MEDIA_NOTES = {
    "screenshot": "image.screenshot",
    "no_ocr": "image.no_ocr",
    "unsure": "image.unsure",
    "unsure_case": "image.unsure",
    "no_text": "image.no_text",
    "image_size": "image.refused",
    "image_refused": "image.refused",
    "link_read": "link.read",
    **{f"link_{reason}": f"link.{reason}" for reason in REFUSALS},
}


class _Turn:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.waiting = 0


class ReplyService:
    def __init__(
        self,
        client: commands.Bot,
        settings: BotSettings,
        engine: EnginePort,
        *,
        inline_input_chars: int = 0,
        workers: ProcessWorkers | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.engine = engine
        # Worker processes for big inputs; without them (an engine that cannot be rebuilt in another
        # process, as in the unit tests' fakes) big inputs go to threads, which cannot be stopped.
        self.workers = workers
        # Engine work on at most this many characters of input runs on the event loop (see `engine_call`).
        self.inline_input_chars = inline_input_chars
        self.scope = AutoScope(frozenset(settings.help_channel_ids), frozenset(settings.forum_channel_ids))
        self.cooldown = Cooldown(settings.user_cooldown_seconds)
        self.channel_limiter = WindowLimiter(settings.channel_replies_per_minute, 60.0)
        self._store: Store | None = None
        self.claims = MessageClaims()
        self._turns: dict[int, _Turn] = {}
        self._engine_pool = ThreadPoolExecutor(settings.worker_count(), thread_name_prefix="oomcheck-engine")
        # Every reply goes out through this: retries, permission problems, vanished channels.
        self.delivery = Delivery(
            attempts=settings.delivery_attempts,
            backoff=settings.delivery_backoff_seconds,
            max_wait=settings.delivery_max_wait_seconds,
        )
        self.inflight = InFlight()
        self.screens = ScreenReader(
            OcrLimits(max_bytes=settings.screenshot_max_bytes),
            engine.kinds,
            enabled=settings.read_screenshots,
        )
        # Replaced by the tests with one that reaches their local server (see tests/pasteserver.py).
        self.links = LinkFetcher(
            FetchLimits(max_bytes=settings.link_max_bytes, timeout_seconds=settings.link_timeout_seconds)
        )
        self.budget = ByteBudget(settings.inflight_bytes, settings.queue_limit)
        self._cdn: aiohttp.ClientSession | None = None
        self._later: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lifecycle

    async def open_store(self) -> None:
        """Open (and migrate) the database, then drop what is past the retention period."""
        if self._store is None:
            self._store = await asyncio.to_thread(Store, self.settings.database_path)
        await self.purge_expired()
        if self.workers is not None:
            await self.workers.start()

    async def purge_expired(self) -> int:
        """Drop what is past the retention periods (see `Store.purge`); the number of cases dropped."""
        now = time.time()
        before = now - self.settings.retention_days * 86400
        stats_before = now - self.settings.stats_retention_days * 86400
        return await self.db(functools.partial(self.store.purge, before, stats_before=stats_before))

    async def aclose(self) -> None:
        """What must be closed on the event loop: the download and link sessions, the pending retries."""
        for task in self._later:
            task.cancel()
        if self._cdn is not None:
            await self._cdn.close()
            self._cdn = None
        await self.links.close()

    def close(self) -> None:
        self._engine_pool.shutdown(wait=False, cancel_futures=True)
        if self.workers is not None:
            self.workers.close()
        if self._store is not None:
            self._store.close()
            self._store = None

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store opens in setup_hook")
        return self._store

    # ------------------------------------------------------------------ where work runs

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    async def run_engine(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(engine, *args)` (a job of `bot.engine_jobs`) in a worker process, under the time limit:
        past it the worker is killed and replaced (`bot.workers.DiagnosisTimedOut`). Without worker
        processes, on a thread of the engine's own small pool; past the timeout the event gives up
        there (the thread finishes in the background)."""
        timeout = self.settings.diagnosis_timeout_seconds
        if self.workers is not None:
            return await self.workers.run(timeout, fn, *args, **kwargs)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._engine_pool, functools.partial(fn, self.engine, *args, **kwargs))
        return await asyncio.wait_for(future, timeout)

    async def engine_call(self, size: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(engine, *args)` over `size` characters of input. Up to `inline_input_chars` it runs
        right here, without the timeout: the engine's own limits keep such an input to milliseconds
        (a chat message is well under one), less than the hop to a worker and back costs
        (`make bench` measures both). Anything bigger goes to `run_engine`."""
        if size <= self.inline_input_chars:
            return fn(self.engine, *args, **kwargs)
        return await self.run_engine(fn, *args, **kwargs)

    # ------------------------------------------------------------------ bytes in flight

    def bytes_to_read(self, message: discord.Message) -> int:
        """What answering `message` holds at most: its text and the part of each readable attachment
        the engine gets, known from the message alone, before anything is downloaded."""
        cap = self.settings.input_cap_bytes
        limit = largest_read(cap, self.settings.attachment_read_bytes)
        files = [
            min(a.size, cap)
            for a in message.attachments
            if is_text_attachment(a.filename, a.content_type) and a.size <= limit
        ]
        return len((message.content or "").encode()) + sum(sorted(files, reverse=True)[:MAX_TEXT_ATTACHMENTS])

    @contextlib.asynccontextmanager
    async def admitted(
        self, size: int, on_wait: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[None]:
        """Hold `size` bytes of the budget for the block (`bot.budget`); chat-sized cases never wait
        behind big ones. Raises `QueueFull` when too many cases already wait."""
        if size <= self.inline_input_chars:
            yield
            return
        async with self.budget.hold(size, on_wait):
            yield

    def later(self, delay: float, fn: Callable[[], Awaitable[None]]) -> None:
        """Run `fn` after `delay` seconds (a message to answer once the bot has room again)."""

        async def run() -> None:
            await asyncio.sleep(delay)
            await fn()

        task = asyncio.get_running_loop().create_task(run())
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    def download(self) -> Fetch | None:
        """Streaming downloads through the client's own connection pool, once it is logged in."""
        connector = getattr(self.client.http, "connector", None)
        if not isinstance(connector, aiohttp.BaseConnector):
            return None
        if self._cdn is None or self._cdn.closed:
            self._cdn = aiohttp.ClientSession(connector=connector, connector_owner=False)
        return functools.partial(fetch_tail, self._cdn)

    # ------------------------------------------------------------------ who is being answered

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

    # ------------------------------------------------------------------ language and texts

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

    def ignored_notes(self, ignored: Sequence[IgnoredFile], lang: str) -> list[str]:
        limit_mib = _mib(self.settings.input_cap_bytes)
        read_mib = _mib(largest_read(self.settings.input_cap_bytes, self.settings.attachment_read_bytes))
        notes = []
        for f in ignored:
            if f.reason in MEDIA_NOTES:
                key = MEDIA_NOTES[f.reason]
                notes.append(self.t(key, lang, name=f.name, url=f.name, limit_mib=self._media_mib(f.reason)))
            elif f.reason == "size":
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

    def _media_mib(self, reason: str) -> str:
        if reason.startswith("link_"):
            return _mib(self.settings.link_max_bytes)
        return _mib(self.settings.screenshot_max_bytes)

    # ------------------------------------------------------------------ reading

    async def read_message(self, message: discord.Message, *, strip_mentions: bool = False) -> Gathered:
        """A message's text and readable attachments, within the input cap and the read limit;
        `strip_mentions` drops mentions of the bot and its role (a message asking the bot by name)."""
        user = self.client.user
        gathered = await gather_message(
            message,
            cap=self.settings.input_cap_bytes,
            bot_user_id=user.id if strip_mentions and user else None,
            bot_role_id=bot_role_id(message),
            read_limit=self.settings.attachment_read_bytes,
            read_image=self.screens.read_attachment,
            fetch=self.download(),
        )
        return merge(gathered, await self.read_links(message.content or "", used=input_size(gathered.inputs)))

    async def read_links(self, text: str, *, used: int = 0) -> Gathered:
        """What the allowlisted links in `text` point to; it shares the input cap with the `used`
        characters already read for the same case."""
        if not self.settings.read_links:
            return Gathered(())
        return await gather_links(text, self.links, self.screens, cap=self.settings.input_cap_bytes - used)

    # ------------------------------------------------------------------ diagnosing and building

    async def _diagnosis(self, request: Request, steps: int) -> Diagnosis:
        inputs = request.gathered.inputs
        # The server's default language answers a post with no words of its own (a bare config or
        # log); a post written in a language is answered in it.
        default = await self.guild_language(request.guild_id)
        return Diagnosis(
            inputs=tuple(i.content for i in inputs),
            sources=tuple(i.source for i in inputs),
            locale=request.explicit_language,
            gpu_vram_gib=request.gpu_vram_gib,
            steps=steps,
            default_language=default,
        )

    def language_menu(self, lang: str) -> tuple[LanguageChoice, ...]:
        """The reply's language menu, each language named in itself; none while there are two
        languages, which one toggle button serves."""
        languages = reply_languages()
        if len(languages) <= 2:
            return ()
        return tuple(LanguageChoice(code, self.t("language_name", code), code == lang) for code in languages)

    def _prepared(
        self, request: Request, report: Report, lang: str, step: int, reply: DiscordReplyLike
    ) -> Prepared:
        notes = [*request.notes, *self.ignored_notes(request.gathered.ignored, lang)]
        labels = ButtonLabels(
            next_step=self.t("button.next_step", lang),
            language=self.t("button.language", lang),
            delete=self.t("button.delete", lang),
            whole_file=self.t("button.whole_file", lang),
        )
        buttons = ReplyButtons(
            labels,
            step=step,
            has_next=step < len(report.ladder),
            lang=lang,
            deletable=request.deletable,
            menu=self.language_menu(lang),
            whole_file=reply.whole_config is not None,
        )
        whole = reply.whole_config
        whole_config = None if whole is None else (whole.name, whole.data)
        return Prepared(request, report, lang, step, from_reply(reply, notes), buttons, whole_config)

    async def prepare(
        self, request: Request, *, step: int = 1, lang: str | None = None, stored: bool = True
    ) -> Prepared:
        """The reply to `request`, diagnosed and rendered in one trip to the engine; `stored=False`
        for a reply that is never stored (`remember`), whose inputs then need no scrubbing."""
        screened = await self._screened(request, step=step, lang=lang, screen=False, scrub=stored)
        if screened is None:  # never: only screening leaves a reply unrendered
            raise RuntimeError("a reply was not rendered")
        return replace(
            self._prepared(request, screened.report, screened.language, step, screened.reply),
            stored=screened.stored,
        )

    async def prepare_case(self, request: Request) -> Prepared | None:
        """The reply to a message in auto mode, or None when the engine finds no case in it (chat):
        decided before any diagnosis when the engine can tell, else before any reply is rendered."""
        screened = await self._screened(request, step=1, lang=None, screen=True, scrub=True)
        if screened is None:
            return None
        prepared = self._prepared(request, screened.report, screened.language, 1, screened.reply)
        return replace(prepared, stored=screened.stored)

    async def _screened(
        self, request: Request, *, step: int, lang: str | None, screen: bool, scrub: bool
    ) -> engine_jobs.Screened | None:
        # Diagnosed and rendered in one trip: a big input's report never crosses to a worker twice.
        return await self.engine_call(
            input_size(request.gathered.inputs),
            engine_jobs.diagnose_and_render,
            await self._diagnosis(request, step),
            user_locale=request.user_locale,
            lang=lang,
            step=step,
            screen=screen,
            scrub=scrub,
        )

    # ------------------------------------------------------------------ sending

    async def reply_to(
        self, message: discord.Message, prepared: Prepared, *, refund: Callable[[], None] | None = None
    ) -> bool:
        """A new reply under a member's message; False (and `refund` run) when it could not be
        delivered."""
        outgoing = for_channel(message.channel, prepared.outgoing)

        async def send() -> discord.Message:
            return await message.reply(
                **outgoing.reply_kwargs(), view=prepared.buttons.for_send(), mention_author=False
            )

        sent = await self._deliver_reply(
            message, send, embeds=bool(outgoing.embeds), files=bool(outgoing.files), refund=refund
        )
        if sent is None:
            return False
        await self.remember(prepared, sent.id)
        return True

    async def _deliver_reply(
        self,
        message: discord.Message,
        send: Callable[[], Awaitable[discord.Message]],
        *,
        embeds: bool = False,
        files: bool = False,
        refund: Callable[[], None] | None = None,
    ) -> discord.Message | None:
        """A reply under `message` through `delivery`; None (and `refund` run) when it was not
        delivered, `refund` run too when sending raised."""
        channel = message.channel
        needs = needed_for(channel, reply=True, embeds=embeds, files=files)
        try:
            sent = await self.delivery.send(send, _where("reply", message), channel=channel, needs=needs)
        except BaseException:
            if refund is not None:
                refund()
            raise
        if sent is None:
            if refund is not None:
                refund()
            return None
        return sent.value

    async def edit_reply(
        self, channel_id: int, reply_id: int, prepared: Prepared, *, answered_at: float
    ) -> bool:
        """An earlier reply of the bot, redone (an edit, a config completed by its log); False when
        the edit could not be delivered."""
        reply = self.client.get_partial_messageable(channel_id).get_partial_message(reply_id)
        outgoing = for_channel(self.client.get_channel(channel_id), prepared.outgoing)

        async def edit() -> discord.Message:
            return await reply.edit(**outgoing.edit_kwargs(), view=prepared.buttons.view())

        request = prepared.request
        where = Where("edited reply", request.guild_id, channel_id, request.source_id)
        channel = self.client.get_channel(channel_id)
        needs = needed_for(channel, embeds=bool(outgoing.embeds), files=bool(outgoing.files))
        if await self.delivery.send(edit, where, channel=channel, needs=needs) is None:
            return False
        await self.remember(prepared, reply_id, answered_at=answered_at)
        return True

    async def respond(self, interaction: discord.Interaction, prepared: Prepared) -> None:
        """The answer to a deferred command."""
        sent = await interaction.edit_original_response(
            **prepared.outgoing.edit_kwargs(), view=prepared.buttons.view()
        )
        await self.remember(prepared, sent.id)

    async def respond_in_place(
        self, interaction: discord.Interaction, prepared: Prepared, case: Case
    ) -> None:
        """The clicked reply itself, redone: its case stays, only what it shows changes."""
        await interaction.edit_original_response(
            **prepared.outgoing.edit_kwargs(), view=prepared.buttons.view()
        )
        explicit = prepared.request.explicit_language is not None
        await self.db(self.store.update_view, case.reply_id, prepared.language, explicit, prepared.step)

    async def follow_up(self, interaction: discord.Interaction, prepared: Prepared) -> None:
        """A private copy for someone who clicked another member's reply."""
        sent = await interaction.followup.send(
            **prepared.outgoing.send_kwargs(), view=prepared.buttons.view(), ephemeral=True, wait=True
        )
        await self.remember(prepared, sent.id)

    async def say_in_reply(
        self, message: discord.Message, text: str, *, refund: Callable[[], None] | None = None
    ) -> discord.Message | None:
        """A short reply; None (and `refund` run) when it could not be delivered."""

        async def send() -> discord.Message:
            return await message.reply(text, allowed_mentions=NO_MENTIONS, mention_author=False)

        return await self._deliver_reply(message, send, refund=refund)

    async def say_restarting(self, interaction: discord.Interaction) -> None:
        """The clear end of an interaction the bot stops before finishing (a deferred one would
        otherwise stay "thinking" for good)."""
        try:
            text = self.t("restarting", await self.ui_language(interaction))
            if interaction.response.is_done():
                await interaction.edit_original_response(
                    content=text, embeds=[], attachments=[], view=None, allowed_mentions=NO_MENTIONS
                )
            else:
                await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except (discord.HTTPException, discord.RateLimited):
            log.warning("could not tell interaction %s that the bot is stopping", interaction.id)

    async def say_too_slow(self, interaction: discord.Interaction) -> None:
        seconds = round(self.settings.diagnosis_timeout_seconds)
        text = self.t("too_slow", await self.ui_language(interaction), seconds=seconds)
        try:
            await say_privately(interaction, text)
        except (discord.HTTPException, discord.RateLimited):
            log.warning("could not say interaction %s took too long", interaction.id)

    async def apologize(self, interaction: discord.Interaction) -> None:
        try:
            await say_privately(interaction, self.t("apology", await self.ui_language(interaction)))
        except (discord.HTTPException, discord.RateLimited):
            log.warning("could not send the apology for interaction %s", interaction.id)

    # ------------------------------------------------------------------ storing

    async def remember(self, prepared: Prepared, reply_id: int, *, answered_at: float | None = None) -> None:
        """Store the scrubbed inputs for the buttons, the rules for the stats, and the answered marker."""
        request = prepared.request
        now = time.time()
        kinds = kinds_of_report(prepared.report)

        inputs = request.gathered.inputs
        # Scrubbing reads up to the input cap per input: engine work, so (unless small) in a worker
        # and under its time limit, like the diagnosis itself; only the packed tails come back.
        stored = prepared.stored
        if stored is None:
            stored = await self.engine_call(
                input_size(inputs),
                engine_jobs.stored_inputs,
                tuple(i.source for i in inputs),
                tuple(i.content for i in inputs),
            )
        case = Case(
            reply_id=reply_id,
            source_id=request.source_id,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
            author_id=request.author_id,
            inputs=(),
            packed=stored.packed,
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
            digest = stored.digest
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
