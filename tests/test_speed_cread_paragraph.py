"""A log text of one paragraph is not asked again whether that paragraph is a log: the paragraph (the
text without its blank lines at either end) is a log exactly when the text is."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis import intake
from diagnosis.logreader import detect
from diagnosis.logreader.detect import is_log_text

# Lines that str.strip() leaves empty: intake's blank lines.
_BLANKS = [
    "",
    " ",
    "\t",
    "\r",
    " \r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x85",
    "\xa0",
    "\u3000",
    "\u2028",
    "  \t ",
]
_FRAGMENTS = [
    "Killed",
    "12 Killed",
    "12345678901 Killed",
    " Killed x",
    "MemoryError",
    "Loading T5",
    "Model Loaded",
    '  File "a.py", line 3, in f',
    "ValueError: bad",
    "Error: ",
    "50%|█| 1/2 [",
    "%|",
    "|",
    " 1/2 [",
    "\x1b[0m",
    "\x1b",
    "Traceback (most recent call last)",
    "CUDA error: out of memory",
    "NVIDIA-SMI 5",
    "12 buckets made",
    "my run dies, please help",
    "it says",
    "1",
    " ",
    "\t",
    "\r",
    "x",
]
_content_lines = st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=4).map("".join)
_blank_lines = st.lists(st.sampled_from(_BLANKS), max_size=3)


@st.composite
def _one_paragraph(draw: st.DrawFn) -> list[str]:
    body = draw(st.lists(_content_lines, min_size=1, max_size=5))
    body = [line if line.strip() else "x" for line in body]
    return draw(_blank_lines) + body + draw(_blank_lines)


@settings(max_examples=1500, deadline=None)
@given(_one_paragraph())
@example(["", "Killed", ""])
@example(["Killed", "\r"])
@example(["\r", "Killed"])
@example(["12 Killed ", "  "])
@example(["50%|█| ", " ", "1/2 ["])
@example(["\u2028", "MemoryError", "\x85"])
def test_a_paragraph_between_blank_lines_is_a_log_like_its_text(lines: list[str]) -> None:
    text = "\n".join(lines)
    paragraphs = intake._paragraphs(lines, 0)
    if len(paragraphs) == 1:
        assert is_log_text("\n".join(paragraphs[0][1])) == is_log_text(text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(_content_lines, st.sampled_from(_BLANKS)), max_size=10))
@example(["my run dies, please help", "CUDA error: out of memory"])
@example(["my run dies, please help", "", "Killed"])
@example(["Killed", "", "my run dies, please help it says x"])
def test_regions_are_those_of_the_plain_path(lines: list[str]) -> None:
    fast = intake._logs_and_prose(list(lines), 3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(intake, "WHOLE_CHARS", -1)  # no text is short enough: every paragraph is asked
        plain = intake._logs_and_prose(list(lines), 3)
    assert fast == plain


def test_a_text_judged_by_its_head_and_tail_has_its_paragraph_asked_again() -> None:
    # Past WHOLE_CHARS only the text's head and tail are read, and the tail window of the paragraph
    # (the text without its blank lines at the end) starts a few characters earlier: here the text's
    # window starts at a frame line's first character, the paragraph's in the middle of a line.
    frame = 'File "a.py", line 1'
    body = "a" * detect.WHOLE_CHARS + frame + "b" * (detect._TAIL_CHARS - len(frame) - 3)
    lines = (body + "\n\n\n").split("\n")
    assert is_log_text("\n".join(lines)) and not is_log_text(body)
    assert [region.kind for region in intake._logs_and_prose(lines, 0)] == ["prose"]
