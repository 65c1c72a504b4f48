"""The config-start scan (key names as a prefix tree, first line matched on its own) finds the same
candidate lines as the plain alternation of key names run over "\\n" + text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.config.keys import ALL_KEYS
from diagnosis.intake import _config_candidates, _config_line, _prefix_tree

_PLAIN = re.compile("\n" + _config_line("|".join(sorted(ALL_KEYS, key=len, reverse=True))))
_KEYS = sorted(ALL_KEYS)
_PIECES = [
    *_KEYS,
    *(key[:-1] for key in _KEYS),  # a key cut short
    *(key + "x" for key in _KEYS[:20]),  # and one run on
    ":",
    ": ",
    ":\t",
    ":x",
    '"',
    "'",
    "- ",
    "-  ",
    " ",
    "  ",
    "\t",
    "{",
    "}",
    "---",
    "--- ",
    "\n",
    "\n",
    "\n",
    "é",
    "#",
]
_fragments = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=8).map("".join)
# Lines shaped like a key line (indent, list dash, quote, key, quote, spaces, colon, rest) or like anything.
_key_lines = st.tuples(
    st.sampled_from(["", " ", "  ", "\t", " " * 41]),
    st.sampled_from(["", "- ", "-  ", "-"]),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(_PIECES),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(["", " ", "\t"]),
    st.sampled_from([":", "", "="]),
    st.sampled_from(["", " 1", "\t1", "x", ":"]),
).map("".join)
_texts = st.lists(st.one_of(_key_lines, _fragments), max_size=12).map("\n".join)


def _plain_candidates(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end() - 1) for m in _PLAIN.finditer("\n" + text)]


@settings(max_examples=500, deadline=None)
@given(_texts)
def test_candidates_equal_the_plain_scan(text: str) -> None:
    assert list(_config_candidates(text)) == _plain_candidates(text)


def test_prefix_tree_matches_exactly_the_words() -> None:
    tree = re.compile(f"(?:{_prefix_tree(_KEYS)})")
    for key in _KEYS:
        assert tree.fullmatch(key)
        assert not tree.fullmatch(key + "x")
    assert _prefix_tree(["cache", "cache_latents", "cap"]) == "ca(?:che(?:_latents)?|p)"


def test_first_line_and_json_brace_positions() -> None:
    text = 'train:\n  x: 1\n{"config": {}}\nnoise\n  batch_size: 2\n'
    assert list(_config_candidates(text)) == [(0, 6), (14, 15), (35, 48)]
    assert text[15 - 1] == "{"
