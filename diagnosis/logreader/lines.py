"""A log text → logical lines: ANSI codes stripped, `\\r` redraws split, very long lines cut.

Line numbers count `\\n` breaks (1-based), which is how the decoded input and the user's editor count
them; the segments of one physical line that a terminal redrew with `\\r` share its number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

# CSI sequences (colours, cursor moves), OSC sequences (window titles, links) and two-byte escapes.
# Each part is a run of one character class followed by a terminator, so matching stays linear.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")

# AI Toolkit prints its fatal error right after a paused progress bar, often on the same line.
ERROR_RUNNING_JOB = "Error running job: "


class Segment(NamedTuple):
    line: int  # 1-based line of the log piece
    text: str
    cut: bool  # the line was longer than the limit and was cut


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def log_text(text: str) -> str:
    """`text` without a BOM or NUL characters; its `\n`-separated lines are the physical lines."""
    if text.startswith("\ufeff"):
        text = text[1:]
    # A str wider than ASCII stores each character in two or four bytes, where `in` looks for a NUL byte
    # and stops at every ASCII character; counting compares whole characters and is quicker there.
    if ("\x00" in text) if text.isascii() else text.count("\x00"):
        text = text.replace("\x00", "")  # UTF-16 read as bytes; decode removes these, but be safe
    return text


def is_plain(raw: str, max_line_chars: int) -> bool:
    """A line that is its own single segment (most are): short, no redraws, no colours, no glued error."""
    return (
        len(raw) <= max_line_chars and "\r" not in raw and "\x1b" not in raw and ERROR_RUNNING_JOB not in raw
    )


def segments_of(number: int, raw: str, max_line_chars: int) -> Iterator[Segment]:
    """The logical lines of physical line `number`."""
    parts = raw.split("\r") if "\r" in raw else (raw,)
    for index, part in enumerate(parts):
        if not part and index:
            continue  # the empty tail of a "\r\n" break or of a final redraw
        cut = len(part) > max_line_chars
        if "\x1b" in part:
            # Colour codes add length without text: strip them from a bounded slice, then cut.
            long_raw = len(part) > max_line_chars * 2
            part = strip_ansi(part[: max_line_chars * 2])
            cut = long_raw or len(part) > max_line_chars
        if cut:
            part = part[:max_line_chars]
        at = part.find(ERROR_RUNNING_JOB, 1)
        if at > 0:
            yield Segment(number, part[:at], cut)
            yield Segment(number, part[at:], cut)
        else:
            yield Segment(number, part, cut)
