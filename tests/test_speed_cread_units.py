"""oom._size reads a SIZE match's bytes from a table of the unit spellings SIZE matches: the same
bytes as units.to_bytes of the two groups."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.logreader import oom
from diagnosis.logreader.units import SIZE, SIZE_UNITS, to_bytes

_SIZE = re.compile(SIZE)
_UNITS = ["bytes", "byte", "B", *(p + i + "B" for p in "KkMGTPEmgtpe" for i in ("", "i", "I"))]


def _plain(match: re.Match[str] | None, first: int = 1) -> int | None:
    if match is None or match.group(first) is None:
        return None
    return to_bytes(match.group(first), match.group(first + 1))


@settings(max_examples=1500, deadline=None)
@given(
    st.from_regex(r"\d{1,20}(?:\.\d{1,6})?", fullmatch=True),
    st.sampled_from(["", " ", "  "]),
    st.sampled_from(_UNITS),
    st.sampled_from(["", ".", " free", "x"]),
)
def test_size_is_to_bytes_of_the_groups(number: str, blank: str, unit: str, after: str) -> None:
    text = f"Tried to allocate {number}{blank}{unit}{after}"
    match = _SIZE.search(text)
    assert oom._size(match) == _plain(match)
    assert oom._size(_SIZE.search("none here")) is None


def test_every_unit_spelling_the_pattern_matches_is_in_the_table() -> None:
    for unit in _UNITS:
        match = _SIZE.fullmatch("1.5 " + unit)
        if match is not None:
            assert match.group(2) in SIZE_UNITS, unit
            assert SIZE_UNITS[match.group(2)] == to_bytes("1", match.group(2))


def test_a_group_that_took_no_part_and_a_unit_outside_the_table() -> None:
    optional = re.compile(r"a(?: (\d+) ?(\w+))?")
    assert oom._size(optional.match("a")) is None
    match = optional.match("a 3 MIB")  # not a spelling SIZE matches: to_bytes reads it (lower-cased)
    assert match is not None and oom._size(match) == _plain(match) == 3 * 1024**2
    match = optional.match("a 3 parsecs")
    assert match is not None and oom._size(match) is None
