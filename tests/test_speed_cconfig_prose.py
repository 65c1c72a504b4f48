"""read_prose tries the patterns left by the literal prefilter only on the lines holding one of their
literals; it must say what trying every pattern on every line says.

The reference switches off the prefilter (`_Prose.live`, which gives a group's patterns that can match
from the groups each present literal names) and the line choice (`_Prose.lines_for`). The texts mix
the phrases that make each hint fire over several lines with the characters that fold unusually (İ, ı,
ſ, the Kelvin sign, a final sigma), so a line choice that is not a true necessary condition fails
here. The line choice relies on folding the whole text giving the folded lines; that is checked too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.facts_prose import _FOLD, ProseHints, _fold, _index, _patterns, _Prose, read_prose
from tests.test_speed_lead_prose import ODD, PHRASES

CORPUS = Path(__file__).parent / "corpus"


def reference(text: str, monkeypatch: pytest.MonkeyPatch) -> ProseHints:
    """read_prose trying every pattern on every line."""
    with monkeypatch.context() as patch:
        patch.setattr(_Prose, "live", lambda self, patterns: list(patterns))
        patch.setattr(_Prose, "lines_for", lambda self, patterns: list(range(len(self.lines))))
        return read_prose(text)


lines = st.lists(st.sampled_from(PHRASES) | st.text(max_size=8) | st.sampled_from(ODD), max_size=4).map(
    "".join
)


@settings(max_examples=400)
@given(st.lists(lines, max_size=8))
def test_the_line_choice_says_what_every_line_says(prose_lines: list[str]) -> None:
    text = "\n".join(prose_lines)
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert read_prose(text) == reference(text, monkeypatch)


def test_the_corpus_prose_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        text = path.read_text(encoding="utf-8")
        assert read_prose(text) == reference(text, monkeypatch), path.parent.name


SIGMA = ["\u03a3", "\u03c3", "\u03c2", "A", "a", " ", "'", "\u0345", "\u0130", "\n"]


@settings(max_examples=500)
@given(st.lists(st.lists(st.sampled_from(SIGMA) | st.text(max_size=3), max_size=6).map("".join), max_size=5))
def test_the_folded_text_is_the_folded_lines(parts: list[str]) -> None:
    joined = "\n".join(part.replace("\n", "") for part in parts)
    assert _fold(joined).split("\n") == [_fold(line) for line in joined.split("\n")]


def _groups() -> list[tuple[re.Pattern[str], ...]]:
    p = _patterns()
    groups = [p.says_oom, p.host_killed, p.vram_words, p.device_group, p.buckets_group, p.gc_words]
    groups += [patterns for _, patterns in p.said]
    return groups + [patterns for _, patterns in p.phase]


def may_match(prose: _Prose, pattern: re.Pattern[str]) -> bool:
    """The plain form of live()'s test: one of the pattern's needed literals is in the text, or it
    needs none."""
    needs = _index().needs[id(pattern)]
    return needs is None or not prose.present.isdisjoint(needs)


def check_live(text: str) -> None:
    prose = _Prose(text)
    for group in _groups():
        assert prose.live(group) == [p for p in group if may_match(prose, p)], (text, group)


@settings(max_examples=300)
@given(st.lists(lines, max_size=8))
def test_a_groups_live_patterns_are_those_that_may_match(prose_lines: list[str]) -> None:
    check_live("\n".join(prose_lines))


def test_live_on_the_corpus_and_with_a_pattern_that_needs_no_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        check_live(path.read_text(encoding="utf-8"))
    # Every pattern of the data needs a literal; one that needs none is live in every text.
    needs = dict(_index().needs)
    group = _patterns().vram_words
    needs[id(group[-1])] = None
    _index.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setattr("diagnosis.facts_prose._needs", lambda pattern: needs[id(pattern)])
            assert _index().always[id(group)] == (len(group) - 1,)
            for text in ["", "nothing here", "vram 12gb", "my 4090 has 24 GB of VRAM\nstep 3"]:
                check_live(text)
                assert group[-1] in _Prose(text).live(group)
    finally:
        _index.cache_clear()


FOLDING = ["\u0130", "\u0131", "\u017f", "\u212a", "I", "K", "S", "a", "\u00e9", "\u03a3", "ｱ", "\n", " "]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(FOLDING) | st.text(max_size=3), max_size=8).map("".join))
def test_fold_takes_the_table_only_when_it_changes_something(text: str) -> None:
    assert _fold(text) == text.translate(_FOLD).lower()


@settings(max_examples=300)
@given(st.lists(lines, max_size=8))
def test_the_present_literals_are_every_literal_in_the_folded_text(prose_lines: list[str]) -> None:
    prose = _Prose("\n".join(prose_lines))
    assert prose.present == {literal for literal in _index().literals if literal in prose.folded}
