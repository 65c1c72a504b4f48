"""A LazyPattern answers like the compiled pattern, and compiles only when first used."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from diagnosis.lazyre import LazyPattern

PATTERN = r"(?<!\w)rtx\s?(\d{4})(?!\d)"


def test_nothing_is_compiled_before_the_first_use() -> None:
    lazy = LazyPattern(PATTERN, re.IGNORECASE)
    assert lazy._compiled is None
    assert lazy.search("an RTX 4090 here") is not None
    compiled = lazy._compiled
    assert compiled is not None and lazy.get() is compiled


@given(st.text(alphabet="RTXrtx 0123456789a", max_size=40), st.integers(0, 45), st.integers(0, 45))
def test_it_answers_like_the_compiled_pattern(text: str, pos: int, endpos: int) -> None:
    lazy, real = LazyPattern(PATTERN, re.IGNORECASE), re.compile(PATTERN, re.IGNORECASE)

    def spans(found: re.Match[str] | None) -> tuple[int, int] | None:
        return found.span() if found else None

    assert spans(lazy.search(text, pos, endpos)) == spans(real.search(text, pos, endpos))
    assert spans(lazy.match(text, pos, endpos)) == spans(real.match(text, pos, endpos))
    assert spans(lazy.search(text, pos)) == spans(real.search(text, pos))
    found = [m.span() for m in lazy.finditer(text, pos, endpos)]
    assert found == [m.span() for m in real.finditer(text, pos, endpos)]
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]


@given(st.text(alphabet="ab`@<#/\\*_ \n", max_size=40), st.integers(0, 3))
def test_sub_answers_like_the_compiled_pattern(text: str, count: int) -> None:
    pattern = r"([`@<])(?=[a#/])"
    lazy, real = LazyPattern(pattern), re.compile(pattern)
    assert lazy.sub(r"\1!", text, count) == real.sub(r"\1!", text, count)
    assert lazy.sub(lambda m: m.group(1) * 2, text) == real.sub(lambda m: m.group(1) * 2, text)
