"""A big attachment stays bytes in the bot's process: the worker that diagnoses it decodes it, scrubs
it and packs what the store keeps, and only that small blob comes back."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot import engine_jobs
from bot.diagnosis_port import DiagnosisEngine
from bot.inputs import read_attachment
from bot.store import STORED_TAIL_BYTES, stored_tail, unpack_inputs
from bot.textfile import RawText, read_text, tail_bytes, texts_hash
from bot.workers import ProcessWorkers, recv_job, send_job
from diagnosis.scrub import scrub
from tests.bot_fakes import HELP, Channel, FakeAttachment, Message, PartialTarget, User, make_bot

SECRET = "hf_" + "AbCdEfGh12" * 3
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 23.55 GiB of which 201.31 MiB is free.\n"
)


def progress_log(lines: int) -> str:
    """A log with progress bars: as text, two bytes a character in memory."""
    body = "".join(f"step {n}/90000 |{'█' * (n % 30):<30}| loss 0.{n % 97:02d}\n" for n in range(lines))
    return body + f"HF_TOKEN={SECRET}\n" + OOM


# The bot's own user, as discord.py sets it at login (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("bot_user")


async def test_a_big_attachment_is_kept_as_its_bytes_not_its_text() -> None:
    data = progress_log(20_000).encode()
    cap = 256 * 1024
    gathered = await read_attachment(FakeAttachment("train.log", data), cap=cap, read_limit=len(data))  # type: ignore[arg-type]
    (item,) = gathered.inputs
    assert isinstance(item.content, RawText)
    assert len(item.content.data) <= cap  # only what the engine reads, never the whole file
    assert item.size <= cap
    assert item.text == read_text(data, cap, len(data))  # read where it is diagnosed, the same text


async def test_a_small_attachment_is_text_at_once() -> None:
    data = progress_log(100).encode()
    gathered = await read_attachment(FakeAttachment("train.log", data), cap=1 << 20)  # type: ignore[arg-type]
    assert [i.content for i in gathered.inputs] == [data.decode()]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
@pytest.mark.parametrize("keep", [1000, 1001, 4096, 70_001, 10_000_000])
def test_the_kept_tail_reads_as_the_whole_file(encoding: str, keep: int) -> None:
    whole = progress_log(3_000).encode(encoding)
    tail = tail_bytes(whole, keep)
    assert len(tail) <= keep + 2
    assert read_text(tail, keep, len(whole)) == read_text(whole, keep, len(whole))


async def test_a_worker_sends_back_the_packed_tail_and_never_the_input() -> None:
    text = progress_log(60_000)
    data = text.encode()
    assert len(data) > 4 * STORED_TAIL_BYTES
    case = engine_jobs.Diagnosis((RawText(data, len(data), len(data)),), ("train.log",), None, None, 1, "en")
    workers = ProcessWorkers(DiagnosisEngine, 1)
    try:
        screened = await workers.run(
            60,
            engine_jobs.diagnose_and_render,
            case,
            user_locale=None,
            lang=None,
            step=1,
            screen=True,
            scrub=True,
        )
    finally:
        workers.close()
    assert screened.reply is not None and screened.stored is not None
    # What crossed back from the worker: the reply, the report and a compressed tail.
    assert len(pickle.dumps(screened)) < len(data) // 20
    assert len(screened.stored.packed) < STORED_TAIL_BYTES // 2
    ((source, kept),) = unpack_inputs(screened.stored.packed)
    assert source == "train.log"
    assert kept == stored_tail(scrub(text, "train.log")[0])
    assert kept.endswith(OOM) and SECRET not in kept
    assert screened.stored.digest == texts_hash([("train.log", text)])


class DecodeSpy:
    """Records on which thread each big attachment is decoded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.threads: list[str] = []
        decode = RawText.decode

        def spying(raw: RawText) -> str:
            self.threads.append(threading.current_thread().name)
            return decode(raw)

        monkeypatch.setattr(RawText, "decode", spying)


async def test_the_bot_decodes_a_big_attachment_only_where_it_diagnoses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = DecodeSpy(monkeypatch)
    bot = await make_bot(tmp_path)  # without worker processes, engine work runs on the engine's threads
    try:
        text = progress_log(20_000)
        log = FakeAttachment("train.log", text.encode())
        message = Message("", User(7), Channel(HELP), attachments=[log])
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert len(message.outbox) == 1
        assert spy.threads and all(name.startswith("oomcheck-engine") for name in spy.threads), spy.threads

        reply_id = message.outbox[0].id
        case = await bot.service.db(bot.service.store.case, reply_id)
        assert case is not None and case.inputs[0][1].endswith(OOM)
        assert SECRET not in case.inputs[0][1] and len(case.inputs[0][1].encode()) <= STORED_TAIL_BYTES
        answer = await bot.service.db(bot.service.store.answer_for, message.id)
        assert answer is not None and answer.inputs_hash == texts_hash([("train.log", text)])

        # An edit that changes nothing the bot reads (hashed where it is read) redoes nothing.
        target = PartialTarget()
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        same: Any = SimpleNamespace(message_id=message.id, data={"content": ""}, message=message)
        await bot.messages.on_raw_message_edit(same)
        assert target.edits == []
        assert all(name.startswith("oomcheck-engine") for name in spy.threads), spy.threads
    finally:
        await bot.close()


@pytest.mark.parametrize("kind", [bytes, bytearray])
def test_a_file_goes_to_a_worker_out_of_band_not_inside_the_pickle(kind: type[bytes | bytearray]) -> None:
    data = kind(progress_log(30_000).encode())
    job = (engine_jobs.inputs_digest, (("train.log",), (RawText(data, len(data), len(data)),)), {})
    sender, receiver = multiprocessing.Pipe()
    with sender, receiver:
        # A pipe holds far less than the file: the sending end writes while the other end reads.
        threading.Thread(target=send_job, args=(sender, job), daemon=True).start()
        head = receiver.recv_bytes()
        assert len(head) < 4096  # the pickle names the job; the megabytes follow as they are
        assert receiver.recv_bytes() == data
        threading.Thread(target=send_job, args=(sender, job), daemon=True).start()
        fn, args, kwargs = recv_job(receiver)
    assert fn is engine_jobs.inputs_digest and kwargs == {}
    ((raw,),) = args[1:]
    assert isinstance(raw, RawText) and raw.data == data and (raw.cap, raw.size) == (len(data), len(data))


async def test_a_big_attachment_in_the_history_is_read_where_it_is_diagnosed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.commands import _history
    from tests.test_bot_app import HistoryChannel

    spy = DecodeSpy(monkeypatch)
    bot = await make_bot(tmp_path, history_depth=5)
    try:
        log = FakeAttachment("train.log", progress_log(20_000).encode())
        channel = HistoryChannel([Message("", User(7), Channel(HELP), attachments=[log])])
        gathered = await _history(bot.service, channel, None)  # type: ignore[arg-type]
        assert [i.source for i in gathered.inputs] == ["train.log"]
        assert isinstance(gathered.inputs[0].content, RawText)
        assert spy.threads and all(name.startswith("oomcheck-engine") for name in spy.threads), spy.threads
    finally:
        await bot.close()
