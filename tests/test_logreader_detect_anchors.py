"""The bar and killed-shell patterns of `is_log_text`, searched from their literal, find a match exactly
when the digits-first forms do."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader.detect import _PROGRESS, _SHELL_KILLED

_PLAIN_PROGRESS = re.compile(r"\d{1,3}%\|[^|\n]{0,200}\|\s{0,4}\d+/\d+ ?\[")
_PLAIN_SHELL_KILLED = re.compile(r"(?<!\d)\d{1,10} Killed {1,20}\S")
_PIECES = [
    "1",
    "12",
    "123",
    "1234",
    "%|",
    "%",
    "|",
    "█",
    " ",
    "  ",
    "360/3000",
    "/",
    "[",
    "\n",
    "x",
    " Killed",
    "Killed",
    "   python",
    "1234567890",
    "12345678901",
    "٣",
    "a",
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=25).map("".join)


@settings(max_examples=800, deadline=None)
@given(_texts)
@example("12%|█▏   | 360/3000 [")
@example("x%|█| 1/2 [")
@example("1234567890 Killed   python")
@example("12345678901 Killed   python")
@example("٣ Killed x")
def test_anchored_patterns_find_a_match_exactly_when_the_plain_ones_do(text: str) -> None:
    assert (_PROGRESS.search(text) is None) == (_PLAIN_PROGRESS.search(text) is None)
    assert (_SHELL_KILLED.search(text) is None) == (_PLAIN_SHELL_KILLED.search(text) is None)
