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
_ERROR_RUNNING_JOB = "Error running job: "


class Segment(NamedTuple):
    line: int  # 1-based line of the log piece
    text: str
    cut: bool  # the line was longer than the limit and was cut


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def segments(text: str, max_line_chars: int) -> Iterator[Segment]:
    """Every logical line of `text`, in order."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        text = text.replace("\x00", "")  # UTF-16 read as bytes; decode removes these, but be safe
    for number, raw in enumerate(text.split("\n"), start=1):
        line = strip_ansi(raw[: max_line_chars * 2]) if "\x1b" in raw else raw
        cut = len(line) > max_line_chars or len(raw) > max_line_chars * 2
        if cut:
            line = line[:max_line_chars]
        parts = line.split("\r") if "\r" in line else (line,)
        for index, part in enumerate(parts):
            if not part and index:
                continue  # the empty tail of a "\r\n" break or of a final redraw
            at = part.find(_ERROR_RUNNING_JOB, 1)
            if at > 0:
                yield Segment(number, part[:at], cut)
                yield Segment(number, part[at:], cut)
            else:
                yield Segment(number, part, cut)
