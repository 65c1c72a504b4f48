"""The bot under load: worker processes, the byte budget, shedding, refunds and screening."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot import engine_jobs
from bot.app import OomBot
from bot.budget import ByteBudget, QueueFull
from bot.diagnosis_port import DiagnosisEngine
from bot.listeners import WAITING
from bot.workers import ProcessWorkers, WorkerLost
from diagnosis.report import Report
from diagnosis.screen import may_be_case
from tests.bot_fakes import (
    CONFIG,
    HELP,
    LOG,
    Channel,
    FakeAttachment,
    FakeEngine,
    Message,
    PartialTarget,
    User,
    settings,
)
from tests.worker_jobs import StuckEngine, crash, worker_pid

# The bot's own user, as discord.py sets it at login (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("bot_user")


async def _worker_bot(tmp_path: Path, **overrides: Any) -> tuple[OomBot, ProcessWorkers]:
    workers = ProcessWorkers(StuckEngine, 1)
    bot = OomBot(settings(tmp_path, **overrides), FakeEngine(), inline_input_chars=0, workers=workers)
    await bot.service.open_store()
    return bot, workers


async def test_a_stuck_diagnosis_is_killed_and_the_member_told(tmp_path: Path) -> None:
    bot, workers = await _worker_bot(tmp_path, diagnosis_timeout_seconds=1.0)
    try:
        (before,) = workers.pids()
        stuck = Message("stuck " + LOG, User(7), Channel(HELP))
        async with asyncio.timeout(60):
            await bot.messages.on_message(stuck)  # type: ignore[arg-type]
        assert [s.content for s in stuck.outbox] == ["en:bot.too_slow(seconds=1)"]
        assert workers.replaced == 1
        (after,) = workers.pids()
        assert after != before
        with pytest.raises(ProcessLookupError):
            os.kill(before, 0)  # the stuck worker is gone, not left running in the background
        # The new worker answers the next member.
        fine = Message(LOG, User(8), Channel(HELP))
        await bot.messages.on_message(fine)  # type: ignore[arg-type]
        assert len(fine.outbox) == 1 and "out of memory" in (fine.outbox[0].content or "").lower()
    finally:
        await bot.close()


async def test_the_pool_replaces_a_worker_that_died() -> None:
    workers = ProcessWorkers(DiagnosisEngine, 2)
    await workers.start()
    try:
        first = set(workers.pids())
        with pytest.raises(WorkerLost):
            await workers.run(30, crash)
        assert workers.replaced == 1
        now = set(workers.pids())
        assert len(now) == 2 and len(now - first) == 1
        # Both workers serve again, the new one included.
        seen = {await workers.run(30, worker_pid) for _ in range(6)}
        assert seen <= now and now - first <= seen
    finally:
        workers.close()


async def test_a_replacement_that_does_not_start_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # The worker that takes a dead one's place fails to start once: the pool keeps trying in the
    # background instead of serving with one slot less for good (and, at size 1, waiting forever).
    monkeypatch.setattr("bot.workers._RETRY_MAX_DELAY", 0.05)
    workers = ProcessWorkers(DiagnosisEngine, 1)
    await workers.start()
    real_new, failures = workers._new, [WorkerLost("not ready")]

    def flaky_new() -> Any:
        if failures:
            raise failures.pop()
        return real_new()

    monkeypatch.setattr(workers, "_new", flaky_new)
    try:
        with pytest.raises(WorkerLost):
            await workers.run(30, crash)
        assert not failures  # the first replacement was tried, and failed
        async with asyncio.timeout(60):
            pid = await workers.run(30, worker_pid)
        assert pid in workers.pids()
    finally:
        workers.close()


async def test_a_worker_diagnoses_with_its_own_engine() -> None:
    workers = ProcessWorkers(DiagnosisEngine, 1)
    try:
        case = engine_jobs.Diagnosis((CONFIG + LOG,), ("message",), None, None, 1, "en")
        report = await workers.run(30, engine_jobs.diagnose, case)
        assert report.log is not None and report.log.events and report.config is not None
        assert await workers.run(30, worker_pid) != os.getpid()
    finally:
        workers.close()


# ------------------------------------------------------------------ the byte budget


async def test_bytes_in_flight_never_exceed_the_budget_under_a_burst() -> None:
    budget = ByteBudget(10_000, queue_limit=100)
    seen: list[int] = []

    async def case(size: int) -> None:
        async with budget.hold(size):
            seen.append(budget.in_use)
            for _ in range(3):
                await asyncio.sleep(0)
                seen.append(budget.in_use)

    sizes = [3000, 4000, 2500, 6000, 1000, 9000, 500, 7000] * 4
    await asyncio.gather(*(case(size) for size in sizes))
    assert max(seen) <= budget.capacity and budget.peak <= budget.capacity
    assert budget.peak > 9000  # it was used, not merely waited on
    assert budget.in_use == 0 and budget.waiting == 0


async def test_a_case_bigger_than_the_budget_runs_alone_and_a_full_queue_says_so() -> None:
    budget = ByteBudget(1000, queue_limit=1)
    async with budget.hold(5000):
        assert budget.in_use == 1000
        waiter = asyncio.create_task(_hold(budget, 10))
        await asyncio.sleep(0)
        assert budget.waiting == 1
        with pytest.raises(QueueFull):
            async with budget.hold(10):
                pass
    await waiter
    assert budget.in_use == 0


async def _hold(budget: ByteBudget, size: int) -> None:
    async with budget.hold(size):
        await asyncio.sleep(0)


class BudgetSpyEngine(FakeEngine):
    """Records the bytes the bot holds while each diagnosis runs."""

    def __init__(self, budget: list[ByteBudget]) -> None:
        super().__init__()
        self.budget = budget
        self.held: list[int] = []

    def diagnose(self, inputs: Sequence[str], **kwargs: Any) -> Report:
        self.held.append(self.budget[0].in_use)
        return super().diagnose(inputs, **kwargs)


async def test_a_burst_of_logs_holds_no_more_bytes_than_the_budget(tmp_path: Path) -> None:
    box: list[ByteBudget] = []
    engine = BudgetSpyEngine(box)
    bot = OomBot(
        settings(tmp_path, inflight_bytes=7000, queue_limit=100, channel_replies_per_minute=100),
        engine,
        inline_input_chars=100,
    )
    await bot.service.open_store()
    box.append(bot.service.budget)
    try:
        log = (LOG * 50)[:3000].encode()
        burst = [
            ReactingMessage("", User(100 + n), Channel(HELP), attachments=[FakeAttachment("train.log", log)])
            for n in range(12)
        ]
        await asyncio.gather(*(bot.messages.on_message(m) for m in burst))  # type: ignore[arg-type]
        assert [len(m.outbox) for m in burst] == [1] * 12
        assert max(engine.held) <= 7000 and bot.service.budget.peak <= 7000
        assert bot.service.budget.peak >= 6000  # two logs of 3000 bytes at once, never three
        assert sum(("add", WAITING) in m.reactions for m in burst) >= 5  # the others waited
    finally:
        await bot.close()


# ------------------------------------------------------------------ shedding


@dataclass
class ReactingMessage(Message):
    reactions: list[tuple[str, str]] = field(default_factory=list)

    async def add_reaction(self, emoji: str) -> None:
        self.reactions.append(("add", emoji))

    async def remove_reaction(self, emoji: str, member: Any) -> None:
        self.reactions.append(("remove", emoji))


async def test_a_shed_message_is_told_the_bot_is_busy_and_answered_later(tmp_path: Path) -> None:
    bot = OomBot(
        settings(tmp_path, inflight_bytes=1024, queue_limit=0, busy_retry_seconds=0.05),
        FakeEngine(),
        inline_input_chars=100,
    )
    await bot.service.open_store()
    try:
        message = ReactingMessage(
            "", User(7), Channel(HELP), attachments=[FakeAttachment("train.log", (LOG * 30).encode())]
        )
        async with bot.service.budget.hold(1024):  # another case holds all the room
            await bot.messages.on_message(message)  # type: ignore[arg-type]
            assert [s.content for s in message.outbox] == ["en:bot.busy(minutes=1)"]
            await asyncio.sleep(0.2)  # the retry finds the bot still busy: it says nothing more
            assert len(message.outbox) == 1
        async with asyncio.timeout(10):
            while len(message.outbox) < 2:
                await asyncio.sleep(0.02)
        assert message.outbox[1].content == "[en] step 1: batch_too_large"
    finally:
        await bot.close()


async def test_a_message_that_waits_for_room_gets_an_hourglass_then_its_answer(tmp_path: Path) -> None:
    bot = OomBot(settings(tmp_path, inflight_bytes=1024, queue_limit=4), FakeEngine(), inline_input_chars=100)
    await bot.service.open_store()
    try:
        message = ReactingMessage(
            "", User(7), Channel(HELP), attachments=[FakeAttachment("train.log", (LOG * 30).encode())]
        )
        async with bot.service.budget.hold(1024):
            answering = asyncio.create_task(bot.messages.on_message(message))  # type: ignore[arg-type]
            async with asyncio.timeout(10):
                while not message.reactions:
                    await asyncio.sleep(0.01)
            assert message.reactions == [("add", WAITING)] and message.outbox == []
        await asyncio.wait_for(answering, 10)
        assert [s.content for s in message.outbox] == ["[en] step 1: batch_too_large"]
        assert message.reactions == [("add", WAITING), ("remove", WAITING)]
    finally:
        await bot.close()


# ------------------------------------------------------------------ refunds


@dataclass
class FailingOnceMessage(Message):
    """Its first reply fails as Discord's 503 does; later ones go through."""

    failures: int = 1

    async def reply(self, content: str | None = None, **kwargs: Any) -> Any:
        if self.failures:
            self.failures -= 1
            raise discord.HTTPException(SimpleNamespace(status=503, reason="Service Unavailable"), "down")
        return await super().reply(content, **kwargs)


async def test_cooldown_and_channel_budget_are_given_back_when_delivery_fails(tmp_path: Path) -> None:
    bot = OomBot(
        settings(tmp_path, user_cooldown_seconds=60, channel_replies_per_minute=1),
        FakeEngine(),
        inline_input_chars=4096,
    )
    await bot.service.open_store()
    try:
        lost = FailingOnceMessage(CONFIG, User(7), Channel(HELP))
        # Delivery gives up on the 503 (bot/delivery.py logs the reply as lost) instead of raising.
        await bot.messages.on_message(lost)  # type: ignore[arg-type]
        assert lost.outbox == []
        assert bot.service.cooldown.remaining(7) == 0
        assert bot.service.channel_limiter.has_room(HELP)
        again = Message(CONFIG + LOG, User(7), Channel(HELP))
        await bot.messages.on_message(again)  # type: ignore[arg-type]
        assert len(again.outbox) == 1
        # A delivered reply does take them.
        assert bot.service.cooldown.remaining(7) > 0
        assert not bot.service.channel_limiter.has_room(HELP)
    finally:
        await bot.close()


# ------------------------------------------------------------------ screening


class RenderSpyEngine(FakeEngine):
    def __init__(self) -> None:
        super().__init__()
        self.rendered = 0

    def render(self, report: Report, *, lang: str, step: int) -> Any:
        self.rendered += 1
        return super().render(report, lang=lang, step=step)


@pytest.mark.parametrize("inline", [4096, 0], ids=["on the loop", "on the engine pool"])
async def test_chat_in_a_help_channel_is_screened_without_rendering(tmp_path: Path, inline: int) -> None:
    engine = RenderSpyEngine()
    bot = OomBot(settings(tmp_path), engine, inline_input_chars=inline)
    await bot.service.open_store()
    try:
        chat = Message("hello, anyone around? thanks for the help yesterday", User(7), Channel(HELP))
        await bot.messages.on_message(chat)  # type: ignore[arg-type]
        assert chat.outbox == [] and len(engine.diagnosed) == 1
        assert engine.rendered == 0
        case = Message(CONFIG, User(7), Channel(HELP))
        await bot.messages.on_message(case)  # type: ignore[arg-type]
        assert len(case.outbox) == 1 and engine.rendered == 1
    finally:
        await bot.close()


class ScreeningEngine(RenderSpyEngine):
    """The fake engine behind the engine's own screen."""

    def may_be_case(self, inputs: Sequence[str]) -> bool:
        return may_be_case(inputs)


@pytest.mark.parametrize("inline", [4096, 0], ids=["on the loop", "on the engine pool"])
async def test_chat_the_engine_screens_out_is_never_diagnosed(tmp_path: Path, inline: int) -> None:
    engine = ScreeningEngine()
    bot = OomBot(settings(tmp_path), engine, inline_input_chars=inline)
    await bot.service.open_store()
    try:
        for line in ("hello, anyone around? thanks for the help yesterday", "おはようございます"):
            chat = Message(line, User(7), Channel(HELP))
            await bot.messages.on_message(chat)  # type: ignore[arg-type]
            assert chat.outbox == []
        assert engine.diagnosed == [] and engine.rendered == 0
        case = Message(CONFIG, User(7), Channel(HELP))
        await bot.messages.on_message(case)  # type: ignore[arg-type]
        assert len(case.outbox) == 1 and len(engine.diagnosed) == 1 and engine.rendered == 1
    finally:
        await bot.close()


async def test_an_edit_that_finds_the_bot_busy_is_applied_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = OomBot(
        settings(tmp_path, inflight_bytes=1024, queue_limit=0, busy_retry_seconds=0.05),
        FakeEngine(),
        inline_input_chars=100,
    )
    await bot.service.open_store()
    target = PartialTarget()
    monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
    try:
        log = FakeAttachment("train.log", (LOG * 30).encode())
        message = ReactingMessage(CONFIG, User(7), Channel(HELP), attachments=[log])
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert len(message.outbox) == 1
        message.content = CONFIG + "# edited\n"
        payload = SimpleNamespace(message_id=message.id, data={"content": message.content}, message=message)
        async with bot.service.budget.hold(1024):
            await bot.messages.on_raw_message_edit(payload)  # type: ignore[arg-type]
            assert target.edits == []
        async with asyncio.timeout(10):
            while not target.edits:
                await asyncio.sleep(0.02)
        assert target.edits[0]["reply_id"] == message.outbox[0].id
    finally:
        await bot.close()
