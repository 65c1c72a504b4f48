"""decode_input: encodings, line breaks, NULs and the size cap (keep the end)."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.decode import decode, decode_input
from tests.conftest import CORPUS

CAP = 1 << 20
SAMPLE = (
    "train:\n  batch_size: 4  # バッチ\nError running job: CUDA out of memory. Tried to allocate 2.00 GiB\n"
)


@pytest.mark.parametrize(
    "data",
    [
        SAMPLE.encode("utf-8"),
        codecs.BOM_UTF8 + SAMPLE.encode("utf-8"),
        codecs.BOM_UTF16_LE + SAMPLE.encode("utf-16-le"),  # PowerShell 5 `>` redirection
        codecs.BOM_UTF16_BE + SAMPLE.encode("utf-16-be"),
        SAMPLE.encode("utf-16-le"),  # no BOM: found by the NUL pattern
        SAMPLE.encode("utf-16-be"),
        SAMPLE.replace("\n", "\r\n").encode("utf-8"),
        SAMPLE.replace("\n", "\r\n").encode("utf-16"),
        SAMPLE,
        "\ufeff" + SAMPLE.replace("\n", "\r\n"),
    ],
)
def test_every_encoding_decodes_to_the_same_text(data: str | bytes) -> None:
    assert decode_input(data, CAP) == (SAMPLE, False)


def test_shift_jis_from_an_old_japanese_editor() -> None:
    text = "学習が始まった瞬間にOOMで止まります\nbatch_size: 4\n"
    assert decode_input(text.encode("cp932"), CAP) == (text, False)


def test_invalid_bytes_are_replaced() -> None:
    text, truncated = decode_input(b"ok \xff\xfe\xfa end\n", CAP)
    assert text.startswith("ok ") and text.endswith(" end\n") and "\ufffd" in text
    assert not truncated


def test_tqdm_redraws_become_lines_and_nuls_vanish() -> None:
    raw = b"step:  1%|          | 1/100\rstep:  2%|          | 2/100\r\nError\x00 running\n"
    text, _ = decode_input(raw, CAP)
    assert text.split("\n") == [
        "step:  1%|          | 1/100",
        "step:  2%|          | 2/100",
        "Error running",
        "",
    ]


def test_lone_surrogates_do_not_survive() -> None:
    text, _ = decode_input("a\ud800b\n", CAP)
    text.encode("utf-8")  # would raise on a surrogate
    assert text.startswith("a") and text.endswith("b\n")


def test_a_large_input_keeps_its_end_from_a_line_boundary() -> None:
    lines = [f"line {i:05d}" for i in range(2000)]
    text, truncated = decode_input("\n".join(lines).encode(), 1000)
    assert truncated
    assert len(text.encode()) <= 1000
    assert text.endswith("line 01999")
    assert text.split("\n")[0] in lines  # starts at a whole line


@pytest.mark.parametrize("encode", [lambda s: s.encode("utf-8"), lambda s: s.encode("utf-16"), lambda s: s])
def test_the_cap_holds_for_every_kind_of_input(encode: object) -> None:
    text = "ログの行です 0123456789\n" * 5000
    data = encode(text)  # type: ignore[operator]
    out, truncated = decode_input(data, 4096)
    assert truncated and 0 < len(out.encode()) <= 4096
    assert out.endswith("ログの行です 0123456789\n")
    assert out.startswith("ログ")


def test_one_giant_line_is_cut_without_breaking_a_character() -> None:
    out, truncated = decode_input("あ" * 10_000, 1001)
    assert truncated and set(out) == {"あ"} and len(out.encode()) <= 1001


def test_a_corpus_input_round_trips() -> None:
    raw = (
        CORPUS / "synthetic" / "102-zimage-turbo-gc-off-1024-1536-batch4-ui-json" / "input.txt"
    ).read_bytes()
    text, truncated = decode_input(raw, CAP)
    assert text == raw.decode("utf-8") and not truncated
    assert decode_input(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), CAP) == (text, False)


@given(st.binary(max_size=2000), st.integers(min_value=0, max_value=3000))
def test_decode_never_raises_and_respects_the_cap(data: bytes, cap: int) -> None:
    text, truncated = decode_input(data, cap)
    assert "\x00" not in text and "\r" not in text
    assert len(text.encode("utf-8")) <= max(cap, 0)
    if not truncated:
        assert len(data) <= 4 * cap + 4


@given(st.text(max_size=500))
def test_decode_of_text_keeps_the_text(text: str) -> None:
    out, truncated = decode_input(text, 1 << 16)
    assert not truncated
    expected = text.removeprefix("\ufeff").replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    if all(not 0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert out == expected


def test_the_line_break_style_is_remembered() -> None:
    assert decode(b"a: 1\r\nb: 2\r\n", CAP).newline == "\r\n"
    assert decode(codecs.BOM_UTF16_LE + "a: 1\r\nb: 2\r\n".encode("utf-16-le"), CAP).newline == "\r\n"
    assert decode("a: 1\nb: 2\n", CAP).newline == "\n"
    assert decode(b"step 1\rstep 2\rdone\n", CAP).newline == "\n"  # tqdm redraws are not CRLF


def _described(text: str, cap: int) -> tuple[str, bool]:
    """What the module docstring promises, spelled out step by step on the str."""
    text = text.removeprefix("\ufeff").replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")
    if len(data) <= cap:
        return data.decode("utf-8"), False
    tail = data[len(data) - max(cap, 0) :]
    newline = tail.find(b"\n")
    if 0 <= newline < len(tail) - 1:
        tail = tail[newline + 1 :]
    return tail.decode("utf-8", "ignore"), True


@given(
    st.text(
        alphabet=st.sampled_from(["a", " ", "\n", "\r", "\x00", "\ufeff", "é", "日", "🙂", "\ud800"]),
        max_size=300,
    ),
    st.integers(min_value=0, max_value=400),
)
def test_cleaning_and_the_cap_do_what_the_docstring_says(text: str, cap: int) -> None:
    assert decode_input(text, cap) == _described(text, cap)
