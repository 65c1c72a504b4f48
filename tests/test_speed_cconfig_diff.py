"""The ladder writes a diff itself when the lines can be aligned only one way; it must be byte for
byte what difflib writes.

Oracle: `difflib.unified_diff` (the plain path) on texts made from a small set of lines with several
changes, so that repeated lines, changed lines that also occur elsewhere, moved lines, inserts,
deletes, changes at either end, hunks that merge or split on the context, and a missing final line
break all turn up, both where the fast path applies and where it must decline.
"""

from __future__ import annotations

import difflib

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.ladder import _diff
from diagnosis.linediff import _aligned as _aligned_opcodes


def reference(before: str, after: str, source: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{source}",
        tofile=f"b/{source}",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


LINES = st.sampled_from([f"line {i}\n" for i in range(24)] + ["\n", "  x: 1\n", "  x: 2\n"])
EDITS = st.lists(
    st.tuples(
        st.integers(0, 40),
        st.integers(0, 3),
        st.lists(LINES | st.sampled_from(["new a\n", "new b\n"]), max_size=3),
    ),
    max_size=4,
)


def _text(lines: list[str], final_break: bool) -> str:
    text = "".join(lines)
    return text if final_break or not text else text[:-1]


@settings(max_examples=3000)
@given(
    st.lists(LINES, max_size=40, unique=True) | st.lists(LINES, max_size=40),
    EDITS,
    st.booleans(),
    st.booleans(),
)
@example(["a\n", "b\n", "c\n"], [(1, 1, ["B\n"])], True, True)
@example(["a\n", "b\n", "c\n"], [(3, 0, ["d\n"])], True, False)
# Repeated lines let difflib align the unchanged ones another way: it matches the last two "x" of the
# text before with the first two after, and writes a different diff from the natural one.
@example(["x\n", "M\n", "x\n", "x\n"], [(1, 1, [])], True, True)
# Two lines that swap places: only one of them can stay aligned.
@example(["a\n", "b\n", "c\n", "d\n"], [(1, 2, ["c\n", "b\n"])], True, True)
def test_the_aligned_diff_is_difflibs(
    lines: list[str], edits: list[tuple[int, int, list[str]]], break_before: bool, break_after: bool
) -> None:
    changed = list(lines)
    for at, cut, insert in edits:
        changed[at : at + cut] = insert
    before, after = _text(lines, break_before), _text(changed, break_after)
    assert _diff(before, after, "config.yaml") == reference(before, after, "config.yaml")


def test_the_fast_path_is_taken_for_a_usual_fix() -> None:
    a = [f"key{i}: {i}\n" for i in range(40)]
    b = [*a[:5], "key5: 99\n", *a[6:30], "key30: 0\n", *a[31:]]
    assert _aligned_opcodes(a, b) is not None
    assert _aligned_opcodes([*a, "key0: 0\n"], b) is None  # a repeated line: difflib decides
    assert _aligned_opcodes(a, [a[1], a[0], *a[2:]]) is None  # out of order: difflib decides
