"""The process dict AI Toolkit prints near the top of its log as indented JSON → a config piece.

The echo starts with a line holding only `{` and ends with the next line holding only `}`, both at
the left margin. It is `config.process[0]` alone (no `job`/`config` wrapper), so a recovered piece is
accepted only when it parses as JSON and looks like a process (it has a `type` or a training section).
"""

from __future__ import annotations

import json
import re

from diagnosis.limits import Limits
from diagnosis.models import Piece, PieceKind

_OPEN = re.compile(r"^\{[ \t]*$", re.MULTILINE)
_CLOSE = re.compile(r"^\}[ \t]*$", re.MULTILINE)
_PROCESS_KEYS = frozenset({"type", "train", "model", "network", "datasets", "save", "sample"})
# A log may echo several jobs; the first few candidates are enough to find one.
_MAX_CANDIDATES = 8


def _process_like(data: object) -> bool:
    if not isinstance(data, dict):
        return False
    if "job" in data or "config" in data:
        return False  # a whole job pasted by the user, not the trainer's echo
    return len(_PROCESS_KEYS.intersection(data)) >= 2


def echoed_config(text: str, piece: Piece, limits: Limits) -> tuple[Piece, dict[str, object]] | None:
    """The first echoed process dict in `text` as a CONFIG_JSON piece (and its parsed data), or None."""
    for tried, opening in enumerate(_OPEN.finditer(text)):
        if tried >= _MAX_CANDIDATES:
            break
        closing = _CLOSE.search(text, opening.end())
        if closing is None:
            return None
        body = text[opening.start() : closing.end()]
        if (
            len(body) > limits.max_config_bytes
            or len(body.encode("utf-8", "replace")) > limits.max_config_bytes
        ):
            continue
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            continue
        if not _process_like(data):
            continue
        start_line = text.count("\n", 0, opening.start())
        echo = Piece(
            kind=PieceKind.CONFIG_JSON,
            text=body,
            source=piece.source,
            input_index=piece.input_index,
            line_offset=piece.line_offset + start_line,
            from_log=True,
        )
        return echo, data
    return None
