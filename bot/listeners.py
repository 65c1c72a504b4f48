"""Message events: auto mode in help channels and forums, mentions, and edits of answered messages."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import discord

from bot.diagnosis_port import InputKinds, is_real_case, kinds_of_report
from bot.inputs import Gathered, SourcedText, bot_role_id, inputs_hash, merge
from bot.permissions import member_is_moderator
from bot.request import Request
from bot.send import NO_MENTIONS
from bot.store import Answer, Case
from bot.triggers import (
    auto_enabled,
    complements,
    in_auto_scope,
    may_be_forum_starter,
    mentions_bot,
    within_edit_window,
)
from diagnosis.models import Report

if TYPE_CHECKING:
    from bot.app import OomBot

log = logging.getLogger("oomcheck.bot")

# A reply merges at most a config and a log; the bound keeps an edit from fetching more.
_MAX_MERGED_SOURCES = 4


def _guild_id(message: discord.Message) -> int | None:
    return message.guild.id if message.guild is not None else None


def _is_mention(bot: OomBot, message: discord.Message) -> bool:
    return mentions_bot(
        message.raw_mentions,
        bot.user.id if bot.user else None,
        message.raw_role_mentions,
        bot_role_id(message),
    )


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


async def on_message(bot: OomBot, message: discord.Message) -> None:
    if not _from_a_member(message) or message.guild is None or bot.user is None:
        return
    if message.type not in (discord.MessageType.default, discord.MessageType.reply):
        return
    if _is_mention(bot, message):
        await answer(bot, message)
        return
    channel = message.channel
    parent_id: int | None = getattr(channel, "parent_id", None)
    if isinstance(channel, discord.PartialMessageable) and may_be_forum_starter(message.id, channel.id):
        # The starter message came before THREAD_CREATE: ask Discord which forum the post is in.
        try:
            fetched = await bot.fetch_channel(channel.id)
        except discord.HTTPException:
            return
        parent_id = getattr(fetched, "parent_id", None)
    if in_auto_scope(channel.id, parent_id, bot.scope):
        await answer(bot, message)


async def on_thread_create(bot: OomBot, thread: discord.Thread) -> None:
    if thread.parent_id not in bot.scope.forum_channel_ids:
        return
    starter = thread.starter_message
    if starter is None:
        try:
            starter = await thread.fetch_message(thread.id)
        except discord.NotFound:
            return  # MESSAGE_CREATE brings it
    if _from_a_member(starter):
        await answer(bot, starter)


async def _gather(bot: OomBot, message: discord.Message, *, mention: bool) -> Gathered:
    own = await bot.read_message(message, strip_mentions=True)
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
    return merge(await bot.read_message(target), own)


async def answer(bot: OomBot, message: discord.Message) -> None:
    """Answer a message at most once: THREAD_CREATE, MESSAGE_CREATE and RESUME replays may all bring it."""
    if not bot.claim(message.id):
        return
    try:
        await _answer(bot, message)
    except Exception:
        if not _is_mention(bot, message):
            raise  # auto mode stays silent; on_error logs it
        # Asked by name: say sorry rather than leave the member waiting.
        log.exception(
            "answering mention %s failed (guild=%s channel=%s)",
            message.id,
            _guild_id(message),
            message.channel.id,
        )
        lang = await bot.guild_language(_guild_id(message))
        await message.reply(bot.t("apology", lang), allowed_mentions=NO_MENTIONS, mention_author=False)
    finally:
        bot.release(message.id)


async def _answer(bot: OomBot, message: discord.Message) -> None:
    # On the event loop: a lookup on the store's own connection for it costs less than a thread hop.
    if bot.store.answer_for(message.id) is not None:
        return
    mention = _is_mention(bot, message)
    if not mention:
        prefs = await bot.guild_prefs(_guild_id(message))
        if not auto_enabled(bot.settings.auto_mode, prefs.auto_mode):
            return
    async with bot.member_turn(message.author.id):
        await _answer_in_turn(bot, message, mention)


async def _answer_in_turn(bot: OomBot, message: discord.Message, mention: bool) -> None:
    moderator = member_is_moderator(message.author, message.channel, bot.settings.moderator_role_ids)
    previous = None if mention else await _recent_answer(bot, message)
    open_case = None if previous is None else await _open_case(bot, previous)
    # Limits are looked at (not taken) before anything is downloaded or diagnosed; only a message
    # that may complete the member's open case goes on, since completing it edits, not replies.
    if open_case is None and not _may_reply(bot, message, moderator, take=False):
        return
    gathered = await _gather(bot, message, mention=mention)
    if not gathered.inputs and not mention:
        return
    if not gathered.inputs:
        # Asked by name with nothing to read: say what to send, once, within the same limits.
        if _may_reply(bot, message, moderator):
            lang = await bot.guild_language(_guild_id(message))
            notes = bot.ignored_notes(gathered.ignored, lang)
            text = "\n".join([*notes, bot.t("nothing_to_check", lang)])
            sent = await message.reply(text, allowed_mentions=NO_MENTIONS, mention_author=False)
            await bot.db(bot.store.record_answer, _answer_row(message, sent.id, ""))
        return
    request = _request(message, gathered)
    prepared = await bot.prepare(request)
    if not mention and not is_real_case(prepared.report):
        return
    if (
        previous is not None
        and open_case is not None
        and await _fold(bot, message, previous, open_case, request, prepared.report)
    ):
        return
    if not _may_reply(bot, message, moderator):
        return
    sent = await message.reply(
        **prepared.outgoing.reply_kwargs(), view=prepared.buttons.for_send(), mention_author=False
    )
    await bot.remember(prepared, sent.id)


async def _recent_answer(bot: OomBot, message: discord.Message) -> Answer | None:
    """This member's latest answered message here, while its reply may still be edited."""
    latest = bot.store.latest_answer(message.channel.id, message.author.id)
    if latest is None or not within_edit_window(
        latest.created, time.time(), bot.settings.edit_window_minutes
    ):
        return None
    return latest


@dataclass(frozen=True)
class _OpenCase:
    case: Case
    kinds: InputKinds


async def _open_case(bot: OomBot, previous: Answer) -> _OpenCase | None:
    """The case behind `previous` while it holds only a config or only a log (another message can
    still complete it)."""
    case = await bot.db(bot.store.case, previous.reply_id)
    if case is None:
        return None
    if case.has_config is None or case.has_log is None:
        kinds = await bot.run_engine(bot.engine.kinds, "\n".join(text for _, text in case.inputs))
    else:
        kinds = InputKinds(config=case.has_config, log=case.has_log)
    return _OpenCase(case, kinds) if kinds.config != kinds.log else None


async def _fold(
    bot: OomBot,
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
    prepared = await bot.prepare(merged)
    reply = bot.get_partial_messageable(message.channel.id).get_partial_message(previous.reply_id)
    await reply.edit(**prepared.outgoing.edit_kwargs(), view=prepared.buttons.view())
    await bot.remember(prepared, previous.reply_id, answered_at=previous.created)
    return True


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


def _may_reply(bot: OomBot, message: discord.Message, moderator: bool, *, take: bool = True) -> bool:
    """The member's cooldown and the channel's budget allow a reply; `take` records it (only when
    a reply is about to be sent, so a message that gets none costs the member nothing)."""
    author_id, channel_id = message.author.id, message.channel.id
    if not moderator and bot.cooldown.remaining(author_id) > 0:
        return False
    room = bot.channel_limiter.try_acquire(channel_id) if take else bot.channel_limiter.has_room(channel_id)
    if not room:
        log.info("channel %s is over its reply budget; message %s not answered", channel_id, message.id)
        return False
    if take and not moderator:
        bot.cooldown.try_acquire(author_id)
    return True


async def on_raw_message_edit(bot: OomBot, payload: discord.RawMessageUpdateEvent) -> None:
    if "content" not in payload.data and "attachments" not in payload.data:
        return  # an embed unfurl, a pin: not the author's edit
    answered = bot.store.answer_for(payload.message_id)
    if answered is None or not within_edit_window(
        answered.created, time.time(), bot.settings.edit_window_minutes
    ):
        return
    message = payload.message
    if message.author.id != answered.author_id or not bot.claim(message.id):
        return
    try:
        # In the member's turn, like new messages: a flurry of edits holds one engine worker at most.
        async with bot.member_turn(message.author.id):
            await _redo(bot, message, answered.reply_id, answered.created, answered.inputs_hash)
    finally:
        bot.release(message.id)


async def _redo(
    bot: OomBot, message: discord.Message, reply_id: int, answered_at: float, old_hash: str
) -> None:
    own = await _gather(bot, message, mention=_is_mention(bot, message))
    if not own.inputs:
        return
    gathered, others = await _with_merged_sources(bot, message, reply_id, own)
    if inputs_hash(gathered.inputs) == old_hash:
        return
    case = await bot.db(bot.store.case, reply_id)
    explicit = case.language if case is not None and case.explicit_language else None
    request = replace(
        _request(message, gathered),
        also_answers=others,
        explicit_language=explicit,
        gpu_vram_gib=case.gpu_vram_gib if case is not None else None,
    )
    prepared = await bot.prepare(request)
    await (
        bot.get_partial_messageable(message.channel.id)
        .get_partial_message(reply_id)
        .edit(**prepared.outgoing.edit_kwargs(), view=prepared.buttons.view())
    )
    await bot.remember(prepared, reply_id, answered_at=answered_at)


async def _with_merged_sources(
    bot: OomBot, message: discord.Message, reply_id: int, own: Gathered
) -> tuple[Gathered, tuple[int, ...]]:
    """The edited message's inputs together with the other messages its reply was merged from
    (read again, as they are now), oldest first; a deleted one simply drops out."""
    sources = await bot.db(bot.store.sources_of_reply, reply_id)
    channel = bot.get_partial_messageable(message.channel.id)
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
        parts.append(await bot.read_message(other, strip_mentions=True))
    if message.id not in sources[:_MAX_MERGED_SOURCES]:
        parts.append(own)
    return merge(*parts), tuple(others)
