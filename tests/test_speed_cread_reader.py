"""The log reader's per-line shortcuts answer like the plain forms."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader import phase
from diagnosis.logreader.phase import Frame, parse_frame

_PLAIN_FRAME = re.compile(phase._FRAME.pattern)
_PIECES = st.sampled_from(
    [
        '  File "',
        'File "',
        "File",
        ' "',
        "/home/u/run.py",
        '"',
        ", line ",
        "147",
        ", in ",
        "main",
        "<module>",
        "  ",
        "\t",
        " ",
        "x",
        'file "',
        'FILE "',
        "\\",
        "loss.backward()",
    ]
)


def _plain_parse_frame(line: str, log_line: int) -> Frame | None:
    match = _PLAIN_FRAME.match(line)
    if match is None:
        return None
    return Frame(match.group(1).replace("\\", "/"), match.group(2), log_line, "")


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=10).map("".join))
@example('  File "/home/u/run.py", line 147, in main')
@example('\t File "C:\\x\\run.py", line 1, in <module>')
def test_parse_frame_answers_like_the_pattern_alone(line: str) -> None:
    assert parse_frame(line, 7) == _plain_parse_frame(line, 7)
