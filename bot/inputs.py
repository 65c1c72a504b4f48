"""Turning Discord messages into engine inputs: message text, readable attachments, recent history."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

import discord

from bot.diagnosis_port import InputKinds
from bot.ocr import is_image_name
from bot.textfile import RawText, as_text, content_size, read_text, tail_bytes
from bot.textfile import decode_text as decode_text
from bot.textfile import tail_text as tail_text
from diagnosis.names import display_name

TEXT_EXTENSIONS = (".yaml", ".yml", ".json", ".txt", ".log")
# Text files read from one message (a config and a log, with room to spare); together they stay
# within the input cap too.
MAX_TEXT_ATTACHMENTS = 4

# Message links as the client copies them; `discordapp.com` still appears in old posts.
_LINK = re.compile(
    r"https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/channels/(?:\d{1,20}|@me)/(\d{1,20})/(\d{1,20})"
)
_BARE_ID = re.compile(r"\d{15,20}")
# Up to this many bytes an attachment is decoded right on the event loop; a bigger one is decoded where
# it is diagnosed (`RawText`).
_DECODE_INLINE_BYTES = 64 * 1024

# Downloads an attachment keeping only its last `keep` bytes (and a byte-order mark at its start):
# (those bytes, the whole file's size). `read_attachment` falls back to `Attachment.read`.
Fetch = Callable[[discord.Attachment, int], Awaitable[tuple[bytes | bytearray, int]]]


@dataclass(frozen=True)
class SourcedText:
    source: str  # "message", an attachment's file name
    # A big attachment stays bytes in the bot's process (`RawText`): the worker that diagnoses it
    # decodes it, so the bot never holds its text (twice its bytes for a log with progress bars).
    content: str | RawText

    @property
    def text(self) -> str:
        """The text; a `RawText` is decoded at each call (work for the engine's side, not the loop's)."""
        return as_text(self.content)

    @property
    def size(self) -> int:
        """At most the characters the engine reads (`content_size`), known without decoding."""
        return content_size(self.content)


@dataclass(frozen=True)
class IgnoredFile:
    """A file the reply must mention: skipped, or (reason "tail") read only in part."""

    name: str
    # "type" (not a text file), "size" (over the read limit), "many" (over the per-message bound),
    # "tail" (over the input cap: only its end was read)
    reason: str
    size: int = 0  # bytes


@dataclass(frozen=True)
class Gathered:
    inputs: tuple[SourcedText, ...]
    ignored: tuple[IgnoredFile, ...] = ()


@dataclass(frozen=True)
class MessageRef:
    channel_id: int | None
    message_id: int


@dataclass(frozen=True)
class Candidate:
    """One message of the history, as read for `/oom-check` without input."""

    message_id: int
    author_id: int
    inputs: tuple[SourcedText, ...]
    kinds: InputKinds


def is_text_attachment(filename: str, content_type: str | None) -> bool:
    if filename.lower().endswith(TEXT_EXTENSIONS):
        return True
    return bool(content_type) and str(content_type).lower().startswith("text/")


def bot_role_id(message: discord.Message) -> int | None:
    """The bot's own role in the message's server (members can mention it instead of the bot)."""
    role = message.guild.self_role if message.guild is not None else None
    return role.id if role is not None else None


def strip_mentions(content: str, user_id: int, role_id: int | None = None) -> str:
    """Drop mentions of the bot (and one space after each); the rest keeps its layout (YAML indents)."""
    tokens = [f"<@{user_id}>", f"<@!{user_id}>"]
    if role_id is not None:
        tokens.append(f"<@&{role_id}>")
    for token in tokens:
        content = content.replace(token + " ", "").replace(token, "")
    return content


def parse_message_ref(value: str) -> MessageRef | None:
    value = value.strip()[:300]
    link = _LINK.search(value)
    if link:
        return MessageRef(channel_id=int(link.group(1)), message_id=int(link.group(2)))
    if _BARE_ID.fullmatch(value):
        return MessageRef(channel_id=None, message_id=int(value))
    return None


def input_size(inputs: Iterable[SourcedText]) -> int:
    """Characters the engine will read, at most: what its running time grows with."""
    return sum(item.size for item in inputs)


def largest_read(cap: int, read_limit: int | None) -> int:
    """The largest attachment read at all: `read_limit`, never below the input cap (None: the cap)."""
    return max(cap, read_limit or cap)


async def gather_message(
    message: discord.Message,
    *,
    cap: int,
    bot_user_id: int | None,
    bot_role_id: int | None = None,
    files: bool = True,
    read_limit: int | None = None,
    read_image: Callable[[discord.Attachment], Awaitable[Gathered]] | None = None,
    fetch: Fetch | None = None,
) -> Gathered:
    """The message's own text (mentions of the bot and of its role removed) and, with `files`, its
    readable attachments (see `read_attachment` for `read_limit`); images go to `read_image` (OCR)."""
    inputs: list[SourcedText] = []
    content = message.content or ""
    if bot_user_id is not None:
        content = strip_mentions(content, bot_user_id, bot_role_id)
    if content.strip():
        inputs.append(SourcedText("message", content))
    parts = [Gathered(tuple(inputs))]
    if not files:
        return parts[0]
    limit = largest_read(cap, read_limit)
    budget, taken = cap, 0
    for attachment in message.attachments:
        if read_image is not None and is_image_name(attachment.filename, attachment.content_type):
            parts.append(await read_image(attachment))
            continue
        readable = is_text_attachment(attachment.filename, attachment.content_type)
        kept = min(attachment.size, cap)  # what the engine gets of it
        over = taken >= MAX_TEXT_ATTACHMENTS or kept > budget
        if readable and attachment.size <= limit and over:
            # Ten files of almost the cap each would be ten times the input cap for one message.
            name = display_name(attachment.filename)
            parts.append(Gathered((), (IgnoredFile(name, "many", attachment.size),)))
            continue
        if fetch is None:
            part = await read_attachment(attachment, cap=cap, read_limit=limit)
        else:
            part = await read_attachment(attachment, cap=cap, read_limit=limit, fetch=fetch)
        parts.append(part)
        if part.inputs:
            taken += 1
            budget -= kept
    return merge(*parts)


async def read_attachment(
    attachment: discord.Attachment, *, cap: int, read_limit: int | None = None, fetch: Fetch | None = None
) -> Gathered:
    """A text attachment read through discord.py; anything else is listed as ignored.

    Up to `cap` bytes the whole file is read. A larger one, up to `read_limit` (default: `cap`), is
    downloaded and only its end is kept, with a note saying so; a still larger one is skipped. With
    `fetch`, the download streams and never holds more than about `cap` bytes of the file.
    """
    # The name is quoted in the reply: nothing hidden in it (bidi marks, fillers, escapes) may reach it.
    name, size = display_name(attachment.filename), attachment.size
    if not is_text_attachment(attachment.filename, attachment.content_type):
        return Gathered((), (IgnoredFile(name, "type", size),))
    if size > largest_read(cap, read_limit):
        return Gathered((), (IgnoredFile(name, "size", size),))
    data: bytes | bytearray
    if fetch is None:
        whole = await attachment.read()
        total = len(whole)
        data = tail_bytes(whole, cap)  # the same bytes a streamed download keeps
    else:
        data, total = await fetch(attachment, cap)
    text = file_content(data, cap, total)
    if total <= cap:
        return Gathered((SourcedText(name, text),))
    return Gathered((SourcedText(name, text),), (IgnoredFile(name, "tail", total),))


def file_content(data: bytes | bytearray, cap: int, total: int) -> str | RawText:
    """A downloaded file as the engine will get it. Decoding megabytes is CPU work that holds the
    interpreter lock: a big file is decoded by the worker that diagnoses it, never in the bot's
    process; a small one is decoded here, which costs less than the trip."""
    if len(data) <= _DECODE_INLINE_BYTES:
        return read_text(data, cap, total)
    return RawText(data, cap, total)


def merge(*parts: Gathered) -> Gathered:
    return Gathered(
        inputs=tuple(item for part in parts for item in part.inputs),
        ignored=tuple(item for part in parts for item in part.ignored),
    )


def select_from_history(newest_first: Sequence[Candidate], *, author_id: int | None) -> list[Candidate]:
    """The latest config and the latest log of one author, oldest first.

    The author is the one of the newest message that holds a config or a log (restricted to
    `author_id` when given: members may only check their own messages). When that message holds
    only one kind, the newest message of the same author with the other kind completes the case.
    """
    relevant = [
        c
        for c in newest_first
        if (c.kinds.config or c.kinds.log) and (author_id is None or c.author_id == author_id)
    ]
    if not relevant:
        return []
    first = relevant[0]
    chosen = [first]
    need_config = not first.kinds.config
    need_log = not first.kinds.log
    for candidate in relevant[1:]:
        if candidate.author_id != first.author_id:
            continue
        if (need_config and candidate.kinds.config) or (need_log and candidate.kinds.log):
            chosen.append(candidate)
            need_config = need_config and not candidate.kinds.config
            need_log = need_log and not candidate.kinds.log
        if not need_config and not need_log:
            break
    return list(reversed(chosen))
