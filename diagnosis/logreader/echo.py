"""The process dict AI Toolkit prints near the top of its log as indented JSON → a config piece.

The echo starts with a line holding only `{` and ends with the next line holding only `}`, both at
the left margin. It is `config.process[0]` alone (no `job`/`config` wrapper), so a recovered piece is
accepted only when it parses as JSON and looks like a process (it has a `type` or a training section).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from diagnosis.limits import Limits
from diagnosis.models import Piece, PieceKind

_PROCESS_KEYS = frozenset({"type", "train", "model", "network", "datasets", "save", "sample"})
# A log may echo several jobs; the first few candidates are enough to find one.
_MAX_CANDIDATES = 8


def _process_like(data: object) -> bool:
    if not isinstance(data, dict):
        return False
    if "job" in data or "config" in data:
        return False  # a whole job pasted by the user, not the trainer's echo
    return len(_PROCESS_KEYS.intersection(data)) >= 2


# Occurrences of the character in the middle of a line tried one by one before searching for the pair.
_MID_LINE_TRIES = 64


def after_break(text: str, char: str, start: int) -> int:
    """The offset of the first `char` right after a line break that is at or after `start`; -1 if none.

    That is `text.find("\\n" + char, start) + 1`, but found from `char` alone: one character is found
    many times faster than a pair, and a lone `{` or `}` seldom occurs in the middle of a log line.
    """
    at = text.find(char, start + 1)
    for _ in range(_MID_LINE_TRIES):
        if at < 0 or text[at - 1] == "\n":
            return at
        at = text.find(char, at + 1)
    found = text.find("\n" + char, at - 1) if at >= 0 else -1
    return found + 1 if found >= 0 else -1


def _lines_alone(text: str, char: str, start: int) -> Iterator[int]:
    """Offsets of the lines from `start` on that hold only `char` (and trailing blanks)."""
    at = start if text.startswith(char, start) and (start == 0 or text[start - 1] == "\n") else -1
    while True:
        if at < 0:
            at = after_break(text, char, start)
            if at < 0:
                return
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if not text[at + 1 : end].strip(" \t\r"):
            yield at
        start, at = end, -1


def echoed_config(text: str, piece: Piece, limits: Limits) -> tuple[Piece, dict[str, object]] | None:
    """The first echoed process dict in `text` as a CONFIG_JSON piece (and its parsed data), or None."""
    for tried, opening in enumerate(_lines_alone(text, "{", 0)):
        if tried >= _MAX_CANDIDATES:
            break
        closing = next(_lines_alone(text, "}", opening + 1), None)
        if closing is None:
            return None
        body = text[opening : closing + 1]
        cap = limits.max_config_bytes
        if len(body) > cap or len(body.encode("utf-8", "replace")) > cap:
            continue
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            continue
        if not _process_like(data):
            continue
        echo = Piece(
            kind=PieceKind.CONFIG_JSON,
            text=body,
            source=piece.source,
            input_index=piece.input_index,
            line_offset=piece.line_offset + text.count("\n", 0, opening),
            from_log=True,
        )
        return echo, data
    return None
