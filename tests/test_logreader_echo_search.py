"""`after_break` finds a character after a line break as the plain pair search does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.logreader.echo import after_break

_texts = st.lists(st.sampled_from(["{", "}", "\n", "x", " ", "{" * 70, "\n{"]), max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(_texts, st.sampled_from("{}"), st.integers(0, 200))
def test_after_break_equals_the_pair_search(text: str, char: str, start: int) -> None:
    found = text.find("\n" + char, start)
    assert after_break(text, char, start) == (found + 1 if found >= 0 else -1)


def test_many_mid_line_braces_before_the_line_start() -> None:
    text = "x" + "{" * 200 + "\n{" + "}"
    assert after_break(text, "{", 0) == 202
    assert after_break(text, "}", 0) == -1
    for braces in range(60, 70):  # the pair search takes over around the 64th brace
        text = "x" + "{" * braces + "\n{"
        assert after_break(text, "{", 0) == braces + 2
