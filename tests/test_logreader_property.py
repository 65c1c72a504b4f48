"""Properties of the log reader on arbitrary and mutated inputs: it never fails and stays bounded."""

from __future__ import annotations

from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.limits import Limits
from diagnosis.logreader import READER_ERROR, read_log
from diagnosis.logreader.detect import is_log_text
from diagnosis.logreader.gpus import vram_of_gpu_name
from diagnosis.logreader.reader import _Reader
from diagnosis.models import LogFacts, Piece, PieceKind
from tests.conftest import CORPUS

CORPUS_LOGS = sorted(
    text
    for text in (p.read_text(encoding="utf-8") for p in CORPUS.glob("*/*/input.txt"))
    if is_log_text(text)
)
# Characters that matter to the reader's patterns, so generated text reaches its branches.
SPECIAL = [*"\n\r\t \x1b[]|%/:.,;()\"'`#-=_0123456789", "\x00", "é", "█", "学"]
ALPHABET = st.sampled_from(SPECIAL) | st.characters()
FRAGMENTS = st.sampled_from(
    [
        "Traceback (most recent call last):\n",
        '  File "/home/u/ai-toolkit/run.py", line 1, in main\n',
        "Error running job: ",
        "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which "
        "0 bytes is free. ",
        "Process 12 has 1.00 GiB memory in use. ",
        "(GPU 0; 7.80 GiB total capacity; 4.05 GiB already allocated; 102.44 MiB free; 404.92 MiB cached)",
        "my_lora:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it]",
        "# OOM during training step, skipping batch 1/3 #\n",
        "Generating baseline samples before training\n",
        "Allocation on device 0 would exceed allowed memory. (out of memory)\nRequested : 1.00 GiB\n",
        "{\n",
        "}\n",
        '"device": "cuda:1",\n',
        "Killed\n",
        "|   0  NVIDIA GeForce RTX 4090   On |\n",
        "\r",
        "\x1b[31m",
    ]
)
TEXTS = st.lists(FRAGMENTS | st.text(ALPHABET, max_size=80), max_size=40).map("".join)
SMALL = Limits(max_line_chars=200, max_events=3, max_config_bytes=2_000)


def _read(text: str, limits: Limits = SMALL) -> LogFacts:
    return read_log(Piece(PieceKind.LOG, text, "log", 0, 0), limits)


def _check(facts: LogFacts, limits: Limits = SMALL) -> None:
    assert READER_ERROR not in facts.limits_hit
    assert len(facts.events) <= limits.max_events
    assert facts.fatal is None or facts.fatal in facts.events
    lines = facts.piece.text.count("\n") + 1
    for event in facts.events:
        assert 1 <= event.where.line <= lines
        assert len(event.where.text) <= 1000
    if facts.step is not None:
        assert facts.step >= 0


@given(TEXTS)
def test_arbitrary_text_never_fails(text: str) -> None:
    _check(_read(text))
    is_log_text(text)
    vram_of_gpu_name(text)


@given(st.text(max_size=2000))
def test_unicode_text_never_fails(text: str) -> None:
    _check(_read(text))


@given(
    st.sampled_from(CORPUS_LOGS),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=40), TEXTS), max_size=4),
)
def test_mutated_corpus_logs_never_fail(text: str, edits: list[tuple[int, int, str]]) -> None:
    for at, length, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + length :]
    _check(_read(text))
    _check(read_log(Piece(PieceKind.LOG, text, "log", 0, 0)), Limits())


def test_corpus_logs_read_the_same_with_crlf_and_redraw_breaks() -> None:
    for text in CORPUS_LOGS:
        plain = _read(text, Limits())
        crlf = _read(text.replace("\n", "\r\n"), Limits())
        assert (crlf.phase, len(crlf.events), crlf.step) == (plain.phase, len(plain.events), plain.step)


def test_the_mutation_sources_are_the_corpus_logs() -> None:
    assert len(CORPUS_LOGS) >= 20


# Lines around which the reader skips runs of progress-bar redraws; each is one whole line.
REDRAW_LINES = st.sampled_from(
    [
        "my_lora:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01]\n",
        "my_lora:  13%|█▎   | 361/3000 [10:44<1:18:25,  1.78s/it]\n",
        "my_lora: 100% done, 14%|█▍   | 362/3000\n",  # a `%` before the bar's own
        "my_lora: saving\n",  # the prefix without a bar
        "my_lora:  15%|█▌   | 363/3000 Error running job: CUDA out of memory. Tried to allocate 2.00 GiB\n",
        "my_lora:  16%|█▌   | 364/3000\rmy_lora:  17%|█▋   | 365/3000\n",
        "my_lora:  18%|█▊   | 366/3000\x1b[0m\n",
        "my_lora:  19%|█▉   | " + "9" * 250 + "/3000\n",  # longer than the line limit
        "Generating Images:  25%|██▌       | 1/4 [00:03<00:09,  3.1s/it]\n",
        "Caching latents to disk:  50%|█████     | 60/120 [00:20<00:20,  3.0it/s]\n",
        "[2025-11-18 10:00:00] my_lora:  20%|██   | 367/3000\n",
        "2my_lora:  21%|██   | 368/3000\n",
        "Traceback (most recent call last):\n",
        '  File "/w/ai-toolkit/run.py", line 1, in main\n',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
        "# OOM during training step, skipping batch 1/3 #\n",
        "\n",
    ]
)
# Repeated lines make runs of redraws; the lines after a run test where it ends.
REDRAW_LOGS = st.lists(st.tuples(REDRAW_LINES | FRAGMENTS, st.integers(1, 3)), max_size=8).map(
    lambda parts: "".join(line * times for line, times in parts)
)


_BAR = "my_lora:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it]\n"


@settings(max_examples=400)
@given(REDRAW_LOGS, st.sampled_from([60, 120, 200, 20_000]), st.booleans())
@example(_BAR * 3 + "my_lora:  16%|█▌   | 364/3000\rmy_lora:  17%|█▋   | 365/3000\n", 200, False)
@example(_BAR * 3 + "my_lora:  18%|█▊   | 366/3000\x1b[0m\n", 200, False)
@example(
    _BAR * 3 + "my_lora:  15%|█▌   | 363/3000 Error running job: CUDA out of memory.\n" + _BAR, 200, False
)
def test_skipping_redraw_runs_reads_the_same_as_feeding_every_line(
    text: str, chars: int, cut_end: bool
) -> None:
    limits = Limits(max_line_chars=chars, max_events=3, max_config_bytes=2_000)
    text = text.rstrip("\n") if cut_end else text
    skipped = _read(text, limits)
    with mock.patch.object(_Reader, "redraw_prefix", lambda self: None):  # every line through feed
        fed = _read(text, limits)
    assert skipped == fed
