"""Text files as the bot reads them: bytes → text (as the engine decodes a file), the tail
of a file over the input cap, and `RawText`, a big file's bytes not decoded yet.

A big attachment is decoded where it is diagnosed, in a worker process (`bot.engine_jobs`): as text
a log with progress bars takes two bytes a character, twice its bytes, and decoding it holds the
interpreter lock for tens of milliseconds, which the bot's event loop would wait for. This module
imports nothing of Discord, since the workers import it.
"""

from __future__ import annotations

import hashlib
import operator
import pickle
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, SupportsIndex

from diagnosis.decode import decode

_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode_text(data: bytes | bytearray) -> str:
    """Bytes of an attachment → text, whole: UTF-16 with a byte-order mark as it is (as Windows
    consoles save logs; `tail_text` counts its characters), anything else as the engine decodes a
    file (`diagnosis.decode`: UTF-8, UTF-16 without a mark, Shift-JIS)."""
    if data.startswith(_BOMS):
        return data.decode("utf-16", errors="replace")
    return decode(bytes(data), 4 * len(data) + 4).text


def read_text(data: bytes | bytearray, cap: int, size: int) -> str:
    """A file of `size` bytes as text: the whole when it is within `cap` bytes, else its tail
    (`tail_text`). `data` is the whole file, or at least its last `cap` bytes (a streamed tail)."""
    return decode_text(data) if size <= cap else tail_text(data, cap)


def tail_text(data: bytes | bytearray, cap: int) -> str:
    """About the last `cap` bytes of a text file as text, from the start of a line.

    A training log ends with its error, so the end is the part worth reading. The cut may fall inside
    a character or a line; the partial line is dropped.
    """
    # UTF-16 with a mark: two bytes a character.
    tail = decode_text(data)[-(cap // 2) :] if data.startswith(_BOMS) else decode_text(data[-cap:])
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) - 1 else tail


def tail_bytes(data: bytes | bytearray, keep: int) -> bytes | bytearray:
    """What `read_text` needs of a file over `keep` bytes: its last `keep` bytes, and a UTF-16
    byte-order mark at its start kept in front of them (the tail then starts at an even offset)."""
    if len(data) <= keep:
        return data
    tail = data[len(data) - keep :]
    if data.startswith(_BOMS):
        return data[:2] + (tail[1:] if (len(data) - keep) % 2 else tail)
    return tail


@dataclass(frozen=True)
class RawText:
    """A downloaded file kept as bytes until it is read: `read_text(data, cap, size)`."""

    data: bytes | bytearray  # the whole file, or at least its last `cap` bytes
    cap: int
    size: int  # the whole file's size

    def decode(self) -> str:
        return read_text(self.data, self.cap, self.size)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        # From protocol 5 a pickler may take the bytes out of band, uncopied (`bot.workers.send_job`).
        data = pickle.PickleBuffer(self.data) if operator.index(protocol) >= 5 else self.data
        return (RawText, (data, self.cap, self.size))


def as_text(content: str | RawText) -> str:
    return content if isinstance(content, str) else content.decode()


def content_size(content: str | RawText) -> int:
    """Characters of a text, bytes of a file not decoded yet: at most what the engine will read."""
    return len(content) if isinstance(content, str) else min(len(content.data), content.cap)


def texts_hash(inputs: Iterable[tuple[str, str]]) -> str:
    """What an edit is compared with: the (source, text) pairs of a case, hashed."""
    digest = hashlib.sha256()
    for source, text in inputs:
        digest.update(source.encode("utf-8", "replace") + b"\0")
        digest.update(text.encode("utf-8", "replace") + b"\0")
    return digest.hexdigest()
