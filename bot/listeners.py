"""Message events: auto mode in help channels and forums, mentions, and edits of answered messages."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import discord
from discord.ext import commands

from bot import engine_jobs
from bot.budget import QueueFull
from bot.delivery import Where
from bot.diagnosis_port import InputKinds, kinds_of_report
from bot.inputs import Gathered, SourcedText, bot_role_id, input_size, merge
from bot.media import asks_for_text
from bot.permissions import member_is_moderator
from bot.request import Request
from bot.service import ReplyService
from bot.store import Answer, Case
from bot.triggers import (
    auto_enabled,
    complements,
    in_auto_scope,
    may_be_forum_starter,
    mentions_bot,
    within_edit_window,
)
from bot.workers import DiagnosisTimedOut
from diagnosis.report import Report

log = logging.getLogger("oomcheck.bot")

# A reply merges at most a config and a log; the bound keeps an edit from fetching more.
_MAX_MERGED_SOURCES = 4
# The reaction on a message that waits for room to be diagnosed.
WAITING = "\N{HOURGLASS WITH FLOWING SAND}"


def _guild_id(message: discord.Message) -> int | None:
    return message.guild.id if message.guild is not None else None


def _request(message: discord.Message, gathered: Gathered) -> Request:
    """The case a member's message brings, answered in its channel."""
    return Request(
        gathered=gathered,
        guild_id=_guild_id(message),
        channel_id=message.channel.id,
        author_id=message.author.id,
        source_id=message.id,
    )


def _from_a_member(message: discord.Message) -> bool:
    """Bots, webhooks (relays, bridges, other bots' posts) and Discord's own system messages are
    never answered: two bots answering each other would loop, and nobody is there to read it."""
    author = message.author
    return not (author.bot or getattr(author, "system", False) or message.webhook_id is not None)


def _answer_row(message: discord.Message, reply_id: int, digest: str) -> Answer:
    return Answer(
        source_id=message.id,
        reply_id=reply_id,
        channel_id=message.channel.id,
        guild_id=_guild_id(message),
        author_id=message.author.id,
        inputs_hash=digest,
        created=time.time(),
    )


@dataclass(frozen=True)
class _OpenCase:
    case: Case
    kinds: InputKinds


class MessageListeners(commands.Cog):
    def __init__(self, service: ReplyService) -> None:
        self.service = service
        # Messages already told that the bot is busy (a retry that finds it busy again stays quiet).
        self._told_busy: set[int] = set()

    def _is_mention(self, message: discord.Message) -> bool:
        user = self.service.client.user
        return mentions_bot(
            message.raw_mentions,
            user.id if user else None,
            message.raw_role_mentions,
            bot_role_id(message),
        )

    # ------------------------------------------------------------------ events

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        client = self.service.client
        if not _from_a_member(message) or message.guild is None or client.user is None:
            return
        if message.type not in (discord.MessageType.default, discord.MessageType.reply):
            return
        if self._is_mention(message):
            await self.answer(message)
            return
        channel = message.channel
        parent_id: int | None = getattr(channel, "parent_id", None)
        if isinstance(channel, discord.PartialMessageable) and may_be_forum_starter(message.id, channel.id):
            # The starter message came before THREAD_CREATE: ask Discord which forum the post is in.
            try:
                fetched = await client.fetch_channel(channel.id)
            except discord.HTTPException:
                return
            parent_id = getattr(fetched, "parent_id", None)
        if in_auto_scope(channel.id, parent_id, self.service.scope):
            await self.answer(message)

    @commands.Cog.listener()
    async def on_thread_create(self, thread: discord.Thread) -> None:
        if thread.parent_id not in self.service.scope.forum_channel_ids:
            return
        starter = thread.starter_message
        if starter is None:
            try:
                starter = await thread.fetch_message(thread.id)
            except discord.NotFound:
                return  # MESSAGE_CREATE brings it
        if _from_a_member(starter):
            await self.answer(starter)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        service = self.service
        if "content" not in payload.data and "attachments" not in payload.data:
            return  # an embed unfurl, a pin: not the author's edit
        claims = service.claims
        message = payload.message
        number = claims.note_edit(message.id)
        try:
            # After the first answer or an earlier edit still at work (it may be about to record the
            # reply this edit has to redo); a later edit makes this one moot.
            if not await claims.claim_for_edit(message.id, number):
                return
            try:
                answered = service.store.answer_for(message.id)
                if (
                    answered is None
                    or message.author.id != answered.author_id
                    or not within_edit_window(
                        answered.created, time.time(), service.settings.edit_window_minutes
                    )
                ):
                    return
                # In the member's turn, like new messages: a flurry of edits holds one engine worker at
                # most, and its bytes count in the budget like a new message's.
                async with (
                    service.member_turn(message.author.id),
                    service.admitted(service.bytes_to_read(message)),
                ):
                    await self._redo(message, answered, number)
            except QueueFull:
                # The reply is there already; it is brought up to date once the bot has room (a later
                # edit by then makes this one moot: _redo checks it is still the latest).
                service.later(service.settings.busy_retry_seconds, lambda: self.on_raw_message_edit(payload))
            finally:
                claims.release(message.id)
        finally:
            claims.end_edit(message.id, number)

    # ------------------------------------------------------------------ a new message

    async def answer(self, message: discord.Message) -> None:
        """Answer a message at most once: THREAD_CREATE, MESSAGE_CREATE and RESUME replays may all
        bring it."""
        service = self.service
        if service.inflight.closing:
            return  # a stopping bot starts nothing new; the next start catches the message up
        if not service.claims.claim(message.id):
            return
        where = Where("reply", _guild_id(message), message.channel.id, message.id)
        try:
            with service.inflight.answering(where):
                await self._answer(message)
        except DiagnosisTimedOut:
            # The worker was stopped: nothing will come of this input, and the member should know.
            log.warning(
                "diagnosis of message %s stopped after the time limit (guild=%s channel=%s)",
                message.id,
                _guild_id(message),
                message.channel.id,
            )
            lang = await service.guild_language(_guild_id(message))
            seconds = round(service.settings.diagnosis_timeout_seconds)
            await service.say_in_reply(message, service.t("too_slow", lang, seconds=seconds))
        except Exception:
            if not self._is_mention(message):
                raise  # auto mode stays silent; on_error logs it
            # Asked by name: say sorry rather than leave the member waiting.
            log.exception(
                "answering mention %s failed (guild=%s channel=%s)",
                message.id,
                _guild_id(message),
                message.channel.id,
            )
            lang = await service.guild_language(_guild_id(message))
            await service.say_in_reply(message, service.t("apology", lang))
        finally:
            service.claims.release(message.id)

    async def _gather(self, message: discord.Message, *, mention: bool) -> Gathered:
        own = await self.service.read_message(message, strip_mentions=True)
        if not mention or message.reference is None or message.reference.message_id is None:
            return own
        target = message.reference.resolved
        if isinstance(target, discord.DeletedReferencedMessage):
            return own
        if target is None:
            try:
                target = await message.channel.fetch_message(message.reference.message_id)
            except discord.HTTPException:
                return own
        if target.author.bot:
            return own
        return merge(await self.service.read_message(target), own)

    async def _answer(self, message: discord.Message) -> None:
        service = self.service
        # On the event loop: a lookup on the store's own connection for it costs less than a thread hop.
        if service.store.answer_for(message.id) is not None:
            return
        mention = self._is_mention(message)
        if not mention:
            prefs = await service.guild_prefs(_guild_id(message))
            if not auto_enabled(service.settings.auto_mode, prefs.auto_mode):
                return
        async with service.member_turn(message.author.id):
            await self._answer_in_turn(message, mention)

    async def _answer_in_turn(self, message: discord.Message, mention: bool) -> None:
        service = self.service
        moderator = member_is_moderator(message.author, message.channel, service.settings.moderator_role_ids)
        previous = None if mention else await self._recent_answer(message)
        open_case = None if previous is None else await self._open_case(previous)
        # Limits are looked at (not taken) before anything is downloaded or diagnosed; only a message
        # that may complete the member's open case goes on, since completing it edits, not replies.
        if open_case is None and not self._may_reply(message, moderator, take=False):
            return
        waited = False

        async def hourglass() -> None:
            nonlocal waited
            waited = True
            with contextlib.suppress(discord.HTTPException):
                await message.add_reaction(WAITING)

        try:
            async with service.admitted(service.bytes_to_read(message), hourglass):
                await self._answer_admitted(message, mention, moderator, previous, open_case)
        except QueueFull:
            await self._busy(message)
            return
        finally:
            if waited:
                with contextlib.suppress(discord.HTTPException):
                    await message.remove_reaction(WAITING, service.client.user or discord.Object(0))
        self._told_busy.discard(message.id)

    async def _busy(self, message: discord.Message) -> None:
        """Too many cases wait already: say so once, and come back to the message later."""
        service = self.service
        delay = service.settings.busy_retry_seconds
        log.info("busy: message %s (channel %s) is answered in %.0f s", message.id, message.channel.id, delay)
        if message.id not in self._told_busy:
            self._told_busy.add(message.id)
            lang = await service.guild_language(_guild_id(message))
            minutes = max(1, round(delay / 60))
            with contextlib.suppress(discord.HTTPException):
                await service.say_in_reply(message, service.t("busy", lang, minutes=minutes))
        service.later(delay, lambda: self.answer(message))

    async def _answer_admitted(
        self,
        message: discord.Message,
        mention: bool,
        moderator: bool,
        previous: Answer | None,
        open_case: _OpenCase | None,
    ) -> None:
        service = self.service
        gathered = await self._gather(message, mention=mention)
        if not gathered.inputs and not mention:
            if asks_for_text(gathered):
                await self._say_notes(message, gathered, moderator)
            return
        if not gathered.inputs:
            # Asked by name with nothing to read: say what to send, once, within the same limits.
            await self._say_notes(message, gathered, moderator, closing="nothing_to_check")
            return
        request = _request(message, gathered)
        # In auto mode the engine's report decides whether this is a case at all, before any reply
        # text is rendered: chat in a help channel costs a diagnosis and nothing more.
        prepared = await service.prepare(request) if mention else await service.prepare_case(request)
        if prepared is None:
            # A screenshot of what looks like an OOM, read too poorly to diagnose: ask for its text
            # rather than guess from it, or stay silent.
            if asks_for_text(gathered):
                await self._say_notes(message, gathered, moderator)
            return
        if (
            previous is not None
            and open_case is not None
            and await self._fold(message, previous, open_case, request, prepared.report)
        ):
            return
        refund = self._reserve(message, moderator)
        if refund is None:
            return
        await service.reply_to(message, prepared, refund=refund)

    async def _say_notes(
        self, message: discord.Message, gathered: Gathered, moderator: bool, *, closing: str | None = None
    ) -> None:
        """The notes on what was not read (and a `closing` sentence), as a plain reply, once."""
        service = self.service
        refund = self._reserve(message, moderator)
        if refund is None:
            return
        lang = await service.guild_language(_guild_id(message))
        lines = service.ignored_notes(gathered.ignored, lang)
        if closing is not None:
            lines.append(service.t(closing, lang))
        sent = await service.say_in_reply(message, "\n".join(lines), refund=refund)
        if sent is None:
            return
        await service.db(service.store.record_answer, _answer_row(message, sent.id, ""))

    async def _recent_answer(self, message: discord.Message) -> Answer | None:
        """This member's latest answered message here, while its reply may still be edited."""
        service = self.service
        latest = service.store.latest_answer(message.channel.id, message.author.id)
        if latest is None or not within_edit_window(
            latest.created, time.time(), service.settings.edit_window_minutes
        ):
            return None
        return latest

    async def _open_case(self, previous: Answer) -> _OpenCase | None:
        """The case behind `previous` while it holds only a config or only a log (another message can
        still complete it)."""
        service = self.service
        case = await service.db(service.store.case, previous.reply_id)
        if case is None:
            return None
        if case.has_config is None or case.has_log is None:
            kinds = await service.run_engine(engine_jobs.kinds, "\n".join(text for _, text in case.inputs))
        else:
            kinds = InputKinds(config=case.has_config, log=case.has_log)
        return _OpenCase(case, kinds) if kinds.config != kinds.log else None

    async def _fold(
        self,
        message: discord.Message,
        previous: Answer,
        open_case: _OpenCase,
        request: Request,
        report: Report,
    ) -> bool:
        """A config and its log often come as two messages: when this one brings the kind the previous
        case lacked, the previous reply is redone with both instead of a second reply."""
        if not complements(open_case.kinds, kinds_of_report(report)):
            return False
        old_inputs = tuple(SourcedText(source, text) for source, text in open_case.case.inputs)
        merged = replace(
            request,
            gathered=merge(Gathered(old_inputs), request.gathered),
            also_answers=(previous.source_id,),
        )
        prepared = await self.service.prepare(merged)
        await self.service.edit_reply(
            message.channel.id, previous.reply_id, prepared, answered_at=previous.created
        )
        return True

    def _may_reply(self, message: discord.Message, moderator: bool, *, take: bool = True) -> bool:
        """The member's cooldown and the channel's budget allow a reply; `take` records it (only when
        a reply is about to be sent, so a message that gets none costs the member nothing)."""
        cooldown, limiter = self.service.cooldown, self.service.channel_limiter
        author_id, channel_id = message.author.id, message.channel.id
        if not moderator and cooldown.remaining(author_id) > 0:
            return False
        room = limiter.try_acquire(channel_id) if take else limiter.has_room(channel_id)
        if not room:
            log.info("channel %s is over its reply budget; message %s not answered", channel_id, message.id)
            return False
        if take and not moderator:
            cooldown.try_acquire(author_id)
        return True

    def _reserve(self, message: discord.Message, moderator: bool) -> Callable[[], None] | None:
        """Take the cooldown and the channel's budget for a reply about to be sent, or None when they
        do not allow one. The caller calls what is returned when the reply is not delivered: only a
        delivered reply costs the member and the channel anything."""
        if not self._may_reply(message, moderator):
            return None
        service, author_id, channel_id = self.service, message.author.id, message.channel.id

        def refund() -> None:
            log.info("reply to message %s not delivered: cooldown and channel budget given back", message.id)
            service.channel_limiter.refund(channel_id)
            if not moderator:
                service.cooldown.refund(author_id)

        return refund

    # ------------------------------------------------------------------ an edited message

    async def _redo(self, message: discord.Message, answered: Answer, edit: int) -> None:
        """Redo the reply for edit number `edit` of `message`, unless a later edit came meanwhile."""
        service = self.service
        reply_id = answered.reply_id
        own = await self._gather(message, mention=self._is_mention(message))
        if not own.inputs:
            return
        gathered, others = await self._with_merged_sources(message, reply_id, own)
        inputs = gathered.inputs
        sources, contents = tuple(i.source for i in inputs), tuple(i.content for i in inputs)
        digest = await service.engine_call(input_size(inputs), engine_jobs.inputs_digest, sources, contents)
        if digest == answered.inputs_hash:
            return
        case = await service.db(service.store.case, reply_id)
        explicit = case.language if case is not None and case.explicit_language else None
        request = replace(
            _request(message, gathered),
            also_answers=others,
            explicit_language=explicit,
            gpu_vram_gib=case.gpu_vram_gib if case is not None else None,
        )
        prepared = await service.prepare(request)
        if not service.claims.is_latest_edit(message.id, edit):
            return  # the later edit redoes the reply from the message as it is now
        # The reply's own channel: a moderator's public check may answer from another one.
        await service.edit_reply(answered.channel_id, reply_id, prepared, answered_at=answered.created)

    async def _with_merged_sources(
        self, message: discord.Message, reply_id: int, own: Gathered
    ) -> tuple[Gathered, tuple[int, ...]]:
        """The edited message's inputs together with the other messages its reply was merged from
        (read again, as they are now), oldest first; a deleted one simply drops out."""
        service = self.service
        sources = await service.db(service.store.sources_of_reply, reply_id)
        channel = service.client.get_partial_messageable(message.channel.id)
        parts: list[Gathered] = []
        others: list[int] = []
        for source_id in sources[:_MAX_MERGED_SOURCES]:
            if source_id == message.id:
                parts.append(own)
                continue
            try:
                other = await channel.fetch_message(source_id)
            except discord.HTTPException:
                continue
            others.append(source_id)
            parts.append(await service.read_message(other, strip_mentions=True))
        if message.id not in sources[:_MAX_MERGED_SOURCES]:
            parts.append(own)
        return merge(*parts), tuple(others)
