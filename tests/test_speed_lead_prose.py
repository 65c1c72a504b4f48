"""read_prose rules patterns out by their needed literals; it must say what trying every one says.

The reference is the same reading with the prefilter switched off (every line, every pattern, in
order). The fragments include the characters that IGNORECASE matches with an ASCII letter although
`str.lower()` does not give it (İ, ı, ſ, the Kelvin sign), so a prefilter that is not a true necessary
condition fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from diagnosis.facts_prose import ProseHints, _fold, _needs, _patterns, _Prose, read_prose

CORPUS = Path(__file__).parent / "corpus"


def reference(text: str) -> ProseHints:
    """read_prose with the prefilter switched off: every pattern is tried on every line."""
    live, lines_for = _Prose.live, _Prose.lines_for
    _Prose.live = lambda self, patterns: list(patterns)  # type: ignore[method-assign]
    _Prose.lines_for = lambda self, patterns: list(range(len(self.lines)))  # type: ignore[method-assign]
    try:
        return read_prose(text)
    finally:
        _Prose.live, _Prose.lines_for = live, lines_for  # type: ignore[method-assign]


def _all_patterns() -> list[re.Pattern[str]]:
    p = _patterns()
    groups = [p.says_oom, p.host_killed, p.vram_words, p.gc_words]
    groups += [patterns for _, patterns in p.said]
    groups += [patterns for _, patterns in p.phase]
    return [q for g in groups for q in g] + [p.device, p.buckets]


# Phrases that make each kind of hint fire, in both languages, and their near misses.
PHRASES = [
    "OOM",
    "out of memory",
    "it worked fine before the update",
    "used to work, same settings",
    "after updating ai-toolkit",
    "comfyui is open in the background",
    "device: cuda:1",
    "24gb vram",
    "vram: 16gb",
    "buckets 1024, 1280 and 1536",
    "resolution of 768",
    "at step 12",
    "while loading the model",
    "first sample",
    "text encoder is not unloaded",
    "cache_text_embeddings: true",
    "sigkill",
    "exit code 137",
    "killed by the oom killer",
    "アップデート後",
    "VRAM不足",
    "量子化中",
    "解像度 1024と1280",
    "最初のサンプル",
    "\n",
    "\r\n",
    "\u2028",
    " ",
]
# Characters that match an ASCII letter case-insensitively without lower() giving it.
ODD = ["\u0130", "\u0131", "\u017f", "\u212a", "I", "S", "K"]


def _oddify(text: str, picks: list[int]) -> str:
    chars = list(text)
    for i in picks:
        if chars:
            j = i % len(chars)
            c = chars[j].lower()
            chars[j] = {"i": "\u0130", "s": "\u017f", "k": "\u212a"}.get(c, chars[j])
    return "".join(chars)


pieces = st.sampled_from(PHRASES) | st.text(max_size=10) | st.sampled_from(ODD)


@given(st.lists(pieces, max_size=30).map("".join), st.lists(st.integers(0, 10_000), max_size=6))
def test_the_prefilter_says_what_trying_every_pattern_says(text: str, picks: list[int]) -> None:
    for candidate in (text, _oddify(text, picks)):
        assert read_prose(candidate) == reference(candidate)


def test_odd_letters_still_match() -> None:
    # "ſigkill" and "KILLED BY THE OOM KİLLER" match case-insensitively; the prefilter must let them through.
    assert read_prose("the run got \u017figkill").host_killed is not None
    assert read_prose("exit code 137 after a \u212ailled process").host_killed is not None
    assert read_prose("OOM k\u0130ller").host_killed is not None
    assert read_prose("it d\u0131ed: out of memory").says_oom is not None


def test_the_corpus_prose_reads_the_same() -> None:
    inputs = sorted(CORPUS.glob("*/*/input.txt"))
    assert inputs
    for path in inputs:
        text = path.read_text(encoding="utf-8")
        assert read_prose(text) == reference(text), path.parent.name


def test_every_needed_literal_is_in_what_the_pattern_matches() -> None:
    # Each pattern, run on its own data phrases: whenever it matches, one of its needs is in the match.
    for pattern in _all_patterns():
        needs = _needs(pattern)
        for phrase in PHRASES:
            for match in pattern.finditer(phrase):
                if needs is not None:
                    assert any(n in _fold(match.group(0)) for n in needs), (pattern.pattern, phrase)


def test_most_patterns_have_a_needed_literal() -> None:
    # The prefilter only pays when it can rule patterns out.
    patterns = _all_patterns()
    assert sum(_needs(p) is not None for p in patterns) >= len(patterns) - 2


def test_blank_prose_reads_as_nothing_said() -> None:
    for text in ("", " ", "\n\n", "\t \r\n", "\u3000\n"):
        assert read_prose(text) == reference(text) == ProseHints()
