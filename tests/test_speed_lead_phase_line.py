"""The phase's announcement line and the card next to the error are found without splitting the whole log.

`_lines_from` must give exactly the lines the log reader numbers (split at line feeds only), and the
evidence line must be the same however long the log before it is.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.logreader.reader import _lines_from

ANNOUNCE = "Generating baseline samples before training"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/app/ai-toolkit/toolkit/sd.py", line 1200, in generate_images\n'
    "    latents = self.diffuse_some_latents(\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.55 GiB of which 1.02 GiB is free.\n"
)


@given(st.text(alphabet="ab\n\r\x0c\u2028", max_size=60), st.integers(-3, 70))
def test_lines_from_is_the_tail_of_a_split_at_line_feeds(text: str, first: int) -> None:
    assert _lines_from(text, first) == text.split("\n")[max(0, first) :]


def _phase_evidence(before: str) -> tuple[str | None, int | None]:
    log = before + ANNOUNCE + "\n" + "x\n" * 3 + TRACEBACK
    report = diagnose([log])
    ev = report.facts.evidence.get("phase")
    return (ev.text, ev.line) if ev is not None else (None, None)


def test_the_announcement_is_found_after_any_amount_of_log() -> None:
    short = _phase_evidence("")
    assert short[0] == ANNOUNCE
    for lines in (10, 1_000, 20_000):
        text, line = _phase_evidence("step line\n" * lines)
        assert text == ANNOUNCE and line == short[1] + lines  # type: ignore[operator]


def test_line_numbers_count_line_feeds_only() -> None:
    # A form feed or a Unicode line separator inside a line does not start a new line for the reader.
    text, line = _phase_evidence("page\x0cbreak\nsep\u2028inside\n")
    assert text == ANNOUNCE and line == 3


def test_an_announcement_too_far_back_is_not_taken() -> None:
    log = ANNOUNCE + "\n" + "x\n" * 500 + TRACEBACK
    ev = diagnose([log]).facts.evidence.get("phase")
    assert ev is None or ev.text != ANNOUNCE
