"""vram_of_gpu_name's fast scan (model numbers only) answers like the plain scan over every anchor."""

from __future__ import annotations

import re
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader import gpus
from diagnosis.logreader.gpus import GPU_TABLE, vram_of_gpu_name, vram_of_gpu_names
from tests.conftest import CORPUS

# Pieces that sit at the edges of the fast scan: model numbers inside longer numbers, after a decimal
# point, a colon or a slash, before "%" or "x"; Unicode digits; a numberless row in ASCII and with a
# dotless i (which IGNORECASE matches to "i"); brand words and sizes.
PIECES = st.sampled_from(
    [
        "4090",
        "3060",
        "100",
        "40",
        "4",
        "10",
        "6000",
        "5070",
        "2000",
        "300",
        "250",
        "1",
        "a",
        "A",
        "h",
        "l",
        "t",
        "mi",
        "rtx",
        "RTX ",
        "gtx",
        "nvidia ",
        "GeForce ",
        "Ti",
        " super",
        "titan rtx",
        "TITAN RTX",
        "t\u0131tan rtx",
        "TITAN\u3000RTX",
        "\u0130",
        "\u017f",
        "\u212a",
        "titan",
        " ",
        "  ",
        ".",
        ":",
        "/",
        "%",
        "x",
        "-",
        "12GB",
        " 16 gb",
        "step ",
        " steps",
        "\u0663",
        "\uff14\uff10\uff19\uff10",
        "\u00e9",
        "\n",
        "|",
    ]
)


def _plain(text: str) -> tuple[str, float] | None:
    scan = text[: gpus._MAX_SCAN_CHARS]
    return gpus._first_named(scan, gpus._ANCHOR.finditer(scan))


def _model_anchors(text: str) -> list[tuple[int, int]]:
    """The spans of `_ANCHOR` matches that are model numbers (what the fast scan must yield)."""
    return [
        m.span()
        for m in gpus._ANCHOR.finditer(text)
        if not m.group()[0].isdigit() or m.group() in gpus._MODEL_NUMBERS
    ]


@settings(max_examples=400)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_the_fast_scan_answers_like_the_plain_scan(text: str) -> None:
    assert vram_of_gpu_name(text) == _plain(text)


@settings(max_examples=300)
@given(st.text(alphabet="0123456789.:/%x aAtTlLhH\u0663", max_size=30))
@example("v1.4090 a.40 x:3060 /5090 40901 \u06634090 4090%")
def test_the_fast_anchors_are_the_model_numbers_among_all_anchors(text: str) -> None:
    assert [m.span() for m in gpus._anchors(text)] == _model_anchors(text)


def test_every_row_and_every_corpus_line_answers_like_the_plain_scan() -> None:
    texts = [row.name for row in GPU_TABLE] + [f"NVIDIA GeForce {row.name} 16GB" for row in GPU_TABLE]
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        texts.extend(path.read_text(encoding="utf-8").splitlines())
    assert sum(1 for text in texts if _plain(text) is not None) > len(GPU_TABLE)
    for text in texts:
        assert vram_of_gpu_name(text) == _plain(text), text


def test_the_numberless_check_sees_a_row_in_any_case() -> None:
    assert gpus._NUMBERLESS_ANY.search("T\u0131TAN RTX")  # IGNORECASE folds the dotless i
    assert vram_of_gpu_name("my T\u0131TAN RTX") == _plain("my T\u0131TAN RTX") == ("Titan RTX", 24.0)
    assert re.fullmatch(gpus._NUMBERLESS, "titan rtx")


@settings(max_examples=300)
@given(st.lists(st.lists(PIECES, max_size=6).map("".join), max_size=8))
def test_the_batch_form_answers_like_one_call_per_line(lines: list[str]) -> None:
    assert vram_of_gpu_names(lines) == [vram_of_gpu_name(line) for line in lines]


def test_the_batch_form_on_every_corpus_input_and_around_a_numberless_row() -> None:
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        lines = [line[:400] for line in path.read_text(encoding="utf-8").splitlines()]
        assert vram_of_gpu_names(lines) == [vram_of_gpu_name(line) for line in lines], path.name
    lines = ["GPU 0: NVIDIA TITAN RTX", "then a 4090", "titan", "rtx", "step 3090", "A100 80GB"]
    assert vram_of_gpu_names(lines) == [vram_of_gpu_name(line) for line in lines]
    assert vram_of_gpu_names(lines[1:]) == [("RTX 4090", 24.0), None, None, None, ("A100", 80.0)]


def test_the_numberless_patterns_match_the_same_inside_a_longer_text() -> None:
    # What the batch form's one search over all lines relies on: no anchors, no lookarounds.
    assert not re.search(r"\(\?|[\^$]|\\[bBAZ]", gpus._NUMBERLESS)


def test_the_letters_ignorecase_folds_to_ascii_are_all_listed() -> None:
    # Outside these, a case-insensitive match of the rows' ASCII letters and blanks is a plain match in
    # the lower-cased text: every other letter IGNORECASE takes is ASCII, and blanks have no case.
    letter, blank = re.compile("(?i)[a-z]"), re.compile(r"\s")
    folding = set()
    for code in range(128, sys.maxunicode + 1):
        char = chr(code)
        if letter.fullmatch(char):
            folding.add(char)
        if blank.fullmatch(char):
            assert char.lower() == char
    assert folding == set(gpus._FOLDS_TO_ASCII)


def test_the_model_numbers_are_the_digit_runs_of_the_patterns() -> None:
    runs = {number for row in GPU_TABLE for number in re.findall(r"\d+", row.pattern)}
    assert runs == gpus._MODEL_NUMBERS
    assert "|".join(row.pattern for row in GPU_TABLE if not re.search(r"\d", row.pattern)) == gpus._NUMBERLESS
