"""Intake's two scanners find what the regexes they replaced found, token by token.

Both regexes read the text again after every opening mark that found no closing one: the JSON
tokenizer's string pattern on a run of escaped quotes (quadratic), the quote pattern on a line of
opening \u201c marks (2,000 steps each). The scanners read the text once; the regexes are the oracles
here, with short limits so that strings and quotes near them turn up.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis import intake


def json_regex(units: int) -> re.Pattern[str]:
    return re.compile(r'"(?:[^"\\\n]|\\.){0,UNITS}"|[{}\[\]]'.replace("UNITS", str(units)))


def quoted_regex(chars: int) -> re.Pattern[str]:
    return re.compile('"[^"\\n]{0,N}"|\u201c[^\u201d\\n]{0,N}\u201d|`[^`\\n]{0,N}`'.replace("N", str(chars)))


_JSON_TEXT = st.text(alphabet='ab{}[]"\\\n', max_size=40)


@settings(max_examples=3000)
@given(_JSON_TEXT, st.integers(0, 8), st.none() | st.tuples(st.integers(0, 40), st.integers(0, 40)))
@example('{"a": "' + '\\"' * 20, 8, None)  # escaped quotes and no closing one
@example('"ab"{"', 1, None)  # too long: its closing quote opens the next string
@example('["' + '\\"' * 6 + 'x"]', 3, None)  # too long from the first quote, short from a later one
@example('["xx\\"a{c"]', 3, None)  # from the escaped quote on, exactly as many as allowed
@example('"\\\n"{}', 8, None)  # a backslash before a line break
@example('{"ab"}', 8, (0, 4))  # the end cuts the string
def test_the_json_scanner_finds_the_regexs_brackets(
    text: str, units: int, window: tuple[int, int] | None
) -> None:
    pos, end = (0, len(text)) if window is None else window
    pos, end = min(pos, len(text)), min(max(pos, end), len(text))
    expected = [m.start() for m in json_regex(units).finditer(text, pos, end) if m.group()[0] != '"']
    assert list(intake._json_brackets(text, pos, end, units)) == expected


def test_the_json_scanner_skips_strings_as_long_as_the_regex_did() -> None:
    regex = json_regex(intake._JSON_STRING_UNITS)
    for body in ("x" * intake._JSON_STRING_UNITS, "x" * (intake._JSON_STRING_UNITS + 1), '\\"' * 60_000):
        text = '[{"' + body + '"}]'
        expected = [m.start() for m in regex.finditer(text) if m.group()[0] != '"']
        assert list(intake._json_brackets(text, 0, len(text))) == expected


_QUOTE_TEXT = st.text(alphabet='a "\u201c\u201d`\n', max_size=40)


@settings(max_examples=3000)
@given(_QUOTE_TEXT, st.integers(0, 8))
@example("\u201c" * 12 + "a\u201d", 3)  # opening marks too far from the closing one, then near it
@example('"a\n"b"', 3)  # a line break before the closing mark
@example('`a"b`"', 8)
def test_the_quote_scanner_finds_the_regexs_quotes(text: str, chars: int) -> None:
    original = intake._QUOTE_CHARS
    intake._QUOTE_CHARS = chars
    try:
        got = intake._quoted_spans(text)
    finally:
        intake._QUOTE_CHARS = original
    assert got == [m.span() for m in quoted_regex(chars).finditer(text)]


def test_the_quote_scanner_keeps_the_regexs_limit() -> None:
    regex = quoted_regex(intake._QUOTE_CHARS)
    for gap in (intake._QUOTE_CHARS - 1, intake._QUOTE_CHARS, intake._QUOTE_CHARS + 1):
        line = "a \u201c" + "x" * gap + "\u201d \u201c\u201c" + "y" * gap + '\u201d "z"'
        assert intake._quoted_spans(line) == [m.span() for m in regex.finditer(line)]
