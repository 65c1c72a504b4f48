"""is_log_text asks its strong-text pattern only of a text that holds a part of one of its texts (and
its bar and killed-shell patterns only of a text with their literal): the answers are those of the
patterns asked of every text."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader import detect
from diagnosis.logreader.detect import _has_program_line, _has_strong, is_log_text

# One text for each alternative of the strong pattern (its full text, then the part the screen uses).
_STRONG_SAMPLES = [
    "Traceback (most recent call last)",
    "out of memory. Tried to allocate",
    "CUDA error: out of memory",
    "OutOfMemoryError:",
    "MPS backend out of memory (",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "CUDNN_STATUS_X",
    "DefaultCPUAllocator: ",
    "paging file is too small for this operation",
    "Out of memory: Killed process",
    "invoked oom-killer",
    "Error running job: ",
    "Job process exited unexpectedly",
    "Job process terminated with ",
    "NVIDIA-SMI 5",
    "is killed by signal: ",
    "Error out of memory at line 3",
    "Exception raised from a",
    "CUDA kernel errors might be asynchronously reported",
    "Allocation on device 12 would exceed allowed memory",
    "Signals.SIGKILL",
    "return code = -9",
    "\x1b[0m",
    "\x1b[?25l",
]
_PIECES = [
    *_STRONG_SAMPLES,
    *(sample[: len(sample) // 2] for sample in _STRONG_SAMPLES),
    *(sample[len(sample) // 2 :] for sample in _STRONG_SAMPLES),
    *detect._STRONG_PARTS,
    "CUDNN_STATUS_",
    "NVIDIA-SMI x",
    "\x1b",
    "\x1b[",
    "12%|█▏   | 360/3000 [",
    "%|",
    "1234 Killed   python",
    " Killed",
    '  File "x.py", line 3, in f',
    "\n",
    "\r",
    " ",
    "a",
    "é",
    "key: value",
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


def _plain_strong(text: str) -> bool:
    return detect._STRONG.get().search(text) is not None


def _plain_is_log_text(text: str) -> bool:
    """is_log_text with every pattern asked of the whole text (no screens)."""
    if not text:
        return False
    long_text = len(text) > detect._HEAD_CHARS + detect._TAIL_CHARS
    parts = (text[: detect._HEAD_CHARS], text[-detect._TAIL_CHARS :]) if long_text else (text,)
    return any(
        _has_program_line(part)
        or detect._PROGRESS.search(part) is not None
        or _plain_strong(part)
        or detect._SHELL_KILLED.search(part) is not None
        for part in parts
    )


def test_every_strong_text_is_screened_in() -> None:
    for sample in _STRONG_SAMPLES:
        assert _plain_strong(sample), sample
        assert _has_strong(sample), sample
        assert _has_strong(f"key: value\n{sample} and more"), sample


def test_the_screen_names_a_part_of_every_alternative() -> None:
    # Each alternative of the pattern, as written, holds one of the screen's parts (with its regex
    # escapes taken out where the part is plain text).
    source = detect._STRONG.get().pattern
    for alternative in source.split("|"):
        plain = alternative.replace("\\(", "(").replace("\\.", ".").replace("\\x1b", "\x1b")
        assert any(part in plain for part in detect._STRONG_PARTS), alternative


@settings(max_examples=1500, deadline=None)
@given(_texts)
@example("")
@example("key: value\nlr: 1e-4\n")
@example("\x1b[31mred")
@example("see CUDNN_STATUS_NOT_SUPPORTED")
@example("NVIDIA-SMI 535.104")
def test_screened_answers_are_the_plain_patterns_answers(text: str) -> None:
    assert _has_strong(text) == _plain_strong(text)
    assert is_log_text(text) == _plain_is_log_text(text)


def test_screened_answers_hold_on_long_texts() -> None:
    # Past the head and tail limits, each part is screened on its own.
    filler = "key: value\n" * ((detect._HEAD_CHARS + detect._TAIL_CHARS) // 11 + 10)
    for sample in ("", "Traceback (most recent call last)", "\x1b[0m", "paging file"):
        for text in (sample + filler, filler + sample, filler[: detect._HEAD_CHARS + 5] + sample + filler):
            assert is_log_text(text) == _plain_is_log_text(text)
