"""`decode` on a str takes shortcuts (lone `\\r` fixed in the str, the cut made on the str); it must give
exactly what the module docstring promises (`tests.test_decode._described`, the one spelled-out
reading), on texts built from the characters the shortcuts treat specially."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.decode import decode
from tests.test_decode import _described

_PIECES = ["\r", "\n", "\r\n", "\n\r", "\x00", "\ufeff", "\ud800", "é", "█", "日本", "🔥", "ab", " ", "x" * 9]
_texts = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=5)), max_size=40).map("".join)


@settings(max_examples=600, deadline=None)
@given(_texts, st.one_of(st.integers(-2, 120), st.just(1 << 20)))
def test_str_decoding_equals_the_plain_way(text: str, cap: int) -> None:
    decoded = decode(text, cap)
    assert (decoded.text, decoded.truncated) == _described(text, cap)
    assert decoded.utf8 == decoded.text.encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(_texts, st.integers(0, 120), st.sampled_from(["utf-8", "utf-16", "utf-8-sig"]))
def test_bytes_decoding_keeps_its_utf8_beside_it(text: str, cap: int, codec: str) -> None:
    decoded = decode(text.encode(codec, "surrogatepass"), cap)
    assert decoded.utf8 == decoded.text.encode("utf-8")


def test_many_line_feeds_with_lone_carriage_returns() -> None:
    text = "a\n" * 5000 + "bar\rbar\r" * 10 + "end"
    assert decode(text, 1 << 20).text == text.replace("\r", "\n")
    with_pair = text + "\r\nlast"
    assert decode(with_pair, 1 << 20).text == with_pair.replace("\r\n", "\n").replace("\r", "\n")


def test_the_pair_search_takes_over_exactly_where_the_walk_stops() -> None:
    for feeds in range(4094, 4099):
        text = "a\n" * feeds + "\r\n" + "x\ry"
        assert decode(text, 1 << 20).text == text.replace("\r\n", "\n").replace("\r", "\n")
