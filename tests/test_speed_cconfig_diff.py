"""The ladder writes a one-change diff itself; it must be byte for byte what difflib writes.

Oracle: `difflib.unified_diff` (the plain path) on texts made from a small set of lines, so that
repeated lines, changed lines that also occur elsewhere, inserts, deletes, a change at either end and
a missing final line break all turn up, both where the fast path applies and where it must decline.
"""

from __future__ import annotations

import difflib

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.ladder import _diff, _one_change


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


LINES = st.sampled_from([f"line {i}\n" for i in range(12)] + ["\n", "  x: 1\n", "  x: 2\n"])


def _text(lines: list[str], final_break: bool) -> str:
    text = "".join(lines)
    return text if final_break or not text else text[:-1]


@settings(max_examples=2000)
@given(
    st.lists(LINES, max_size=30, unique=True) | st.lists(LINES, max_size=30),
    st.integers(0, 30),
    st.integers(0, 4),
    st.lists(LINES | st.sampled_from(["new a\n", "new b\n"]), max_size=4),
    st.booleans(),
    st.booleans(),
)
@example(["a\n", "b\n", "c\n"], 1, 1, ["B\n"], True, True)
@example(["a\n", "b\n", "c\n"], 3, 0, ["d\n"], True, False)
# Repeated lines let difflib align the unchanged ones another way: it matches the last two "x" of the
# text before with the first two after, and writes a different diff from the natural one.
@example(["x\n", "M\n", "x\n", "x\n"], 1, 1, [], True, True)
def test_the_one_change_diff_is_difflibs(
    lines: list[str], at: int, cut: int, insert: list[str], break_before: bool, break_after: bool
) -> None:
    changed = lines[:at] + insert + lines[at + cut :]
    before, after = _text(lines, break_before), _text(changed, break_after)
    assert _diff(before, after, "config.yaml") == reference(before, after, "config.yaml")


def test_the_fast_path_is_taken_for_a_usual_fix() -> None:
    a = [f"key{i}: {i}\n" for i in range(40)]
    b = [*a[:20], "key20: 99\n", *a[21:]]
    assert _one_change(a, b) is not None
    assert _one_change([*a, "key0: 0\n"], b) is None  # a repeated line: difflib decides
