"""A log longer than the input cap is read from its end (where the error is), and the reply says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.inputs import IgnoredFile, gather_message, read_attachment, tail_text
from tests.bot_fakes import FakeAttachment, FakeMessage, make_bot

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"


def long_log(lines: int) -> bytes:
    body = "".join(f"step {n}/3000 loss 0.{n % 97:02d}\n" for n in range(lines))
    return (body + OOM).encode()


async def test_a_log_over_the_cap_is_read_from_its_end() -> None:
    data = long_log(2_000)
    log = FakeAttachment("train.log", data)
    gathered = await read_attachment(log, cap=4096, read_limit=len(data))  # type: ignore[arg-type]
    (text,) = [i.text for i in gathered.inputs]
    assert text.endswith(OOM)
    assert len(text.encode()) <= 4096
    assert text.startswith("step ") and data.decode().endswith(text), "it starts at a whole line"
    assert [(f.name, f.reason, f.size) for f in gathered.ignored] == [("train.log", "tail", len(data))]


async def test_a_file_over_the_read_limit_is_skipped_without_download() -> None:
    log = FakeAttachment("huge.log", long_log(2_000))
    gathered = await read_attachment(log, cap=4096, read_limit=8192)  # type: ignore[arg-type]
    assert gathered.inputs == ()
    assert [(f.name, f.reason) for f in gathered.ignored] == [("huge.log", "size")]
    assert log.reads == 0


async def test_without_a_read_limit_nothing_over_the_cap_is_read() -> None:
    log = FakeAttachment("train.log", long_log(300))
    gathered = await read_attachment(log, cap=4096)  # type: ignore[arg-type]
    assert gathered.inputs == () and log.reads == 0


async def test_a_tail_read_file_counts_as_the_cap_in_the_message_budget() -> None:
    big = FakeAttachment("train.log", long_log(2_000))
    config = FakeAttachment("config.yaml", b"train:\n  batch_size: 1\n")
    message = FakeMessage("", [big, config])
    gathered = await gather_message(message, cap=4096, bot_user_id=None, read_limit=1 << 20)  # type: ignore[arg-type]
    # The log takes the whole cap: the config no longer fits in the message's budget.
    assert [i.source for i in gathered.inputs] == ["train.log"]
    assert [(f.name, f.reason) for f in gathered.ignored] == [("train.log", "tail"), ("config.yaml", "many")]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_log_keeps_its_end(encoding: str) -> None:
    bom = "\ufeff".encode(encoding)
    data = bom + long_log(1_000).decode().encode(encoding)
    text = tail_text(data, 4096)
    assert text.endswith(OOM) and text.startswith("step ")
    assert len(text) <= 2048


def test_a_cut_inside_a_character_or_a_line_is_dropped() -> None:
    data = ("日本語のログ行です\n" * 500 + OOM).encode()
    for cap in range(100, 140):
        text = tail_text(data, cap)
        assert "\ufffd" not in text and text.endswith(OOM)
    assert tail_text(b"x" * 10_000, 100) == "x" * 100  # one long line: nothing to align to


def test_sizes_read_as_mib() -> None:
    from bot.service import _mib

    assert _mib(8 * 1024 * 1024) == "8" and _mib(int(12.5 * 1024 * 1024)) == "12.5"


@pytest.mark.parametrize(("read_bytes", "read_mib"), [(4 << 20, "4"), (1 << 19, "2")])
async def test_the_notes_name_the_limits_the_reader_applies(
    tmp_path: Path, read_bytes: int, read_mib: str
) -> None:
    # A read limit set below the input cap counts as the cap, in the reader and in the note alike.
    bot = await make_bot(tmp_path, input_cap_bytes=2 << 20, attachment_read_bytes=read_bytes)
    try:
        huge = FakeAttachment("huge.log", b"x" * (6 << 20))
        limits = (bot.settings.input_cap_bytes, bot.settings.attachment_read_bytes)
        gathered = await read_attachment(huge, cap=limits[0], read_limit=limits[1])  # type: ignore[arg-type]
        tail = IgnoredFile("long.log", "tail", 3 << 20)
        assert bot.service.ignored_notes([*gathered.ignored, tail], "en") == [
            f"en:bot.attachment_ignored_size(limit_mib={read_mib},name=huge.log)",
            "en:bot.attachment_tail(limit_mib=2,name=long.log,size_mib=3)",
        ]
    finally:
        await bot.close()
