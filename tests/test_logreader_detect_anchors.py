"""The bar and killed-shell patterns of `is_log_text`, searched from their literal, find a match exactly
when the digits-first forms do."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader.detect import _PROGRESS, _SHELL_KILLED, _has_program_line, is_log_text

_PLAIN_PROGRESS = re.compile(r"\d{1,3}%\|[^|\n]{0,200}\|\s{0,4}\d+/\d+ ?\[")
_PLAIN_SHELL_KILLED = re.compile(r"(?<!\d)\d{1,10} Killed {1,20}\S")
_PIECES = [
    "1",
    "12",
    "123",
    "1234",
    "%|",
    "%",
    "|",
    "█",
    " ",
    "  ",
    "360/3000",
    "/",
    "[",
    "\n",
    "x",
    " Killed",
    "Killed",
    "   python",
    "1234567890",
    "12345678901",
    "٣",
    "a",
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=25).map("".join)


@settings(max_examples=800, deadline=None)
@given(_texts)
@example("12%|█▏   | 360/3000 [")
@example("x%|█| 1/2 [")
@example("1234567890 Killed   python")
@example("12345678901 Killed   python")
@example("٣ Killed x")
def test_anchored_patterns_find_a_match_exactly_when_the_plain_ones_do(text: str) -> None:
    assert (_PROGRESS.search(text) is None) == (_PLAIN_PROGRESS.search(text) is None)
    assert (_SHELL_KILLED.search(text) is None) == (_PLAIN_SHELL_KILLED.search(text) is None)


# The line pattern as first written: one flat alternation after a class of both breaks.
_PLAIN_LINE = re.compile(
    r"[\n\r][ \t]{0,40}(?:"
    r"File \"[^\"\n]{1,1000}\", line \d+"
    r"|[A-Za-z_][\w.]{0,200}[a-z](?:Error|Exception): "
    r"|MemoryError(?=[\r\n]|$)"
    r"|Killed(?=[\r\n]|$)"
    r"|Loading (?:transformer|checkpoint shards|VAE|T5|CLIP|[\w.\- ]{1,40} model)"
    r"|Quantizing (?:[Tt]ransformer|Text Encoder|T5|Gemma2)"
    r"|- quantizing (?:\d+ transformer blocks|extras)"
    r"|Moving transformer to CPU"
    r"|Caching (?:latents|text_embeddings|text embeddings|embeddings and unloading)"
    r"|Generating (?:baseline samples|first sample|Samples|Images|controls)"
    r"|Skipping first sample"
    r"|Running 1 job|Running  1 process|# Running job: "
    r"|Bucket sizes for "
    r"|\d+ buckets made(?=[\r\n]|$)"
    r"|\d{2,5}x\d{2,5}(?:x\d{1,4}f)?: \d+ files(?=[\r\n]|$)"
    r"|-  (?:Found \d+ (?:images|videos)|Preprocessing (?:image|video) dimensions)"
    r"|create LoRA (?:network|for )"
    r"|Saving at step \d|Saved checkpoint to "
    r"|Using SQLite database at "
    r"|#{4} IMPORTANT RESUMING FROM "
    r"|# OOM during training step"
    r"|Model Loaded(?=[\r\n]|$)|Making pipe(?=[\r\n]|$)|Preparing Model(?=[\r\n]|$)"
    r"|Timer '[^'\n]{1,80}':"
    r"|- \d+ (?:completed jobs?|failures?)(?=[\r\n]|$)"
    r"|\| GPU  Name"
    r"|\+-{5,}\+"
    r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] "
    r")",
)
_LINE_TEXTS = [
    'File "/x/run.py", line 90',
    "torch.OutOfMemoryError: x",
    "ValueError: bad",
    "RuntimeException: bad",
    "Error: x",
    "MemoryError",
    "Killed",
    "Loading transformer",
    "Loading my big model",
    "Quantizing Text Encoder",
    "- quantizing 12 transformer blocks",
    "- quantizing extras",
    "Moving transformer to CPU",
    "Caching text embeddings",
    "Generating Images",
    "Skipping first sample",
    "Running 1 job",
    "Running  1 process",
    "# Running job: x",
    "Bucket sizes for ",
    "3 buckets made",
    "1024x1024: 48 files",
    "512x512x33f: 4 files",
    "-  Found 120 images",
    "-  Preprocessing video dimensions",
    "create LoRA for ",
    "Saving at step 5",
    "Saved checkpoint to ",
    "Using SQLite database at ",
    "#### IMPORTANT RESUMING FROM ",
    "# OOM during training step",
    "Model Loaded",
    "Making pipe",
    "Preparing Model",
    "Timer 'x':",
    "- 0 completed jobs",
    "- 1 failure",
    "| GPU  Name",
    "+-----+",
    "[Mon Nov 30 05:54:20 2026] ",
]
_line_pieces = st.one_of(
    st.sampled_from(_LINE_TEXTS).flatmap(
        lambda line: st.sampled_from([line, line[:-1], line[1:], line + "x", "x" + line, line.lower()])
    ),
    st.sampled_from(["\n", "\r", "\r\n", " ", "\t", "  ", "x", "9"]),
    st.text(max_size=4),
)


def _grouped(text: str) -> bool:
    """As is_log_text asks: after a line feed, and after a carriage return when there is one."""
    return _has_program_line(text)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_line_pieces, max_size=12).map("".join))
def test_grouped_line_pattern_finds_a_line_exactly_when_the_flat_one_does(text: str) -> None:
    assert _grouped(text) == (_PLAIN_LINE.search("\n" + text) is not None)


def test_every_sample_line_and_its_near_misses_agree() -> None:
    found = 0
    for line in _LINE_TEXTS:
        for text in (line, line[:-1], line[1:], line + "x", "  " + line, "\r" + line, "x\r" + line):
            assert _grouped(text) == (_PLAIN_LINE.search("\n" + text) is not None)
        found += _grouped(line)
    assert found == len(_LINE_TEXTS) - 1  # all but "Error: x", which names no exception


def test_a_line_after_a_carriage_return_makes_a_log() -> None:
    assert is_log_text("progress 3/10\rKilled")
    assert not is_log_text("progress 3/10\rkilled it")
