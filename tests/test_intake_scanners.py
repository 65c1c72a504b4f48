"""Intake's JSON scanner finds what the regex it replaced found, token by token.

The regex read the text again from every quote that opened no string: on a run of escaped quotes with
no closing one, that was quadratic. The scanner reads the text once; the regex is the oracle here,
with short limits so that strings near them turn up.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis import intake


def json_regex(units: int) -> re.Pattern[str]:
    return re.compile(r'"(?:[^"\\\n]|\\.){0,UNITS}"|[{}\[\]]'.replace("UNITS", str(units)))


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
