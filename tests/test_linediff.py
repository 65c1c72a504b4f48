"""linediff gives difflib's opcodes whenever difflib's search is affordable, and a diff as short as
any (Myers) beyond; a config of many identical lines never reaches difflib's search.

Oracle: difflib.SequenceMatcher(autojunk=False) on texts drawn from a few lines, so that repeated
lines, changed lines found elsewhere, inserts and deletes next to copies of themselves all turn up.
"""

from __future__ import annotations

import difflib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis import linediff

LINES = st.lists(st.sampled_from(["a", "b", "c", "x", "x", "M"]), max_size=14)


def difflibs(a: list[str], b: list[str]) -> list[linediff.Opcode]:
    return list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes())


def rebuilt(a: list[str], b: list[str], codes: list[linediff.Opcode]) -> list[str]:
    """`b` as the opcodes tell it from `a`, checking that they cover both texts in order."""
    out: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            out += a[i1:i2]
        else:
            out += b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    return out


@settings(max_examples=3000)
@given(LINES, LINES)
@example(["x", "M", "x", "x"], ["x", "x", "x"])  # difflib pairs the last two "x" with the first two
@example(["x", "x", "x"], ["x", "M", "x", "x"])  # …and the other way round
@example(["P", "x", "x", "x"], ["P", "c", "P", "x", "x", "x"])
@example(["x", "x", "M", "x"], ["x", "x", "c", "x"])
def test_the_opcodes_are_difflibs(a: list[str], b: list[str]) -> None:
    assert linediff.opcodes(a, b) == difflibs(a, b)


@settings(max_examples=1000)
@given(LINES, LINES)
def test_the_forced_alignments_are_difflibs(a: list[str], b: list[str]) -> None:
    for forced in (linediff._aligned(a, b), linediff._trimmed(a, b)):
        if forced is not None:
            assert linediff._from_blocks(forced, len(a), len(b)) == difflibs(a, b)


@settings(max_examples=1000)
@given(LINES, LINES)
@example(["x", "M", "x", "x"], ["x", "x", "x"])
def test_beyond_the_limit_the_diff_is_as_short_as_any(a: list[str], b: list[str]) -> None:
    codes = linediff.opcodes(a, b, work_limit=-1)
    assert rebuilt(a, b, codes) == b
    # As many equal lines as the longest common subsequence holds: no shorter edit exists.
    equal = sum(i2 - i1 for tag, i1, i2, _, _ in codes if tag == "equal")
    assert equal == _lcs(a, b)


def _lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for line in a:
        previous = 0
        for j, other in enumerate(b):
            previous, row[j + 1] = row[j + 1], previous + 1 if line == other else max(row[j + 1], row[j])
    return row[-1]


def _config(prompts: int) -> list[str]:
    head = ["config:", "  train:", "    batch_size: 4", "    gradient_checkpointing: false # off"]
    return head + ["  prompts:"] + ['    - "p3rs0n walking on a beach"'] * prompts + ["meta: 1"]


def test_a_fix_among_identical_lines_never_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("difflib's search on a forced alignment")

    monkeypatch.setattr(difflib, "SequenceMatcher", refused)
    before = _config(3000)
    one = [*before[:3], "    gradient_checkpointing: true # off", *before[4:]]
    added = [*before[:3], "    low_vram: true", *before[3:]]
    for after in (one, added):
        codes = linediff.opcodes(before, after)
        assert [tag for tag, *_ in codes] == ["equal", "replace" if after is one else "insert", "equal"]


def test_a_fix_at_both_ends_of_identical_lines_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two changes with 3,000 copies between them: difflib's search would visit 9 million pairs.
    before = _config(3000)
    fixed = ["    batch_size: 1", "    gradient_checkpointing: true # off"]
    after = [*before[:2], *fixed, *before[4:-1], "meta: 2"]
    steps: list[int] = []
    real = linediff._myers

    def counted(a: list[str], b: list[str]) -> list[linediff.Block]:
        steps.append(len(a) + len(b))
        return real(a, b)

    monkeypatch.setattr(linediff, "_myers", counted)
    monkeypatch.setattr(difflib, "SequenceMatcher", None)  # never reached
    codes = linediff.opcodes(before, after)
    assert rebuilt(before, after, codes) == after
    assert [tag for tag, *_ in codes] == ["equal", "replace", "equal", "replace"]
    assert steps == [len(before) + len(after) - 4]
