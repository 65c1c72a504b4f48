"""Edits racing a slow diagnosis: the reply ends on the latest edit, and a diagnosis overtaken by a
later edit is not sent at all."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from diagnosis.report import Report
from tests.bot_fakes import (
    CONFIG,
    HELP,
    LOG,
    Channel,
    FakeEngine,
    Message,
    PartialTarget,
    User,
    make_bot,
)

# The bot's own user, as discord.py sets it at login (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("bot_user")


class GatedEngine(FakeEngine):
    """Holds a diagnosis of an input that says "hold" until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.gate = threading.Event()

    def diagnose(self, inputs: Sequence[str], **kwargs: Any) -> Report:
        if any("hold" in text for text in inputs):
            self.started.set()
            self.gate.wait(10)
        return super().diagnose(inputs, **kwargs)


def _edit(message: Message, content: str) -> Any:
    message.content = content
    return SimpleNamespace(message_id=message.id, data={"content": content}, message=message)


async def test_a_diagnosis_overtaken_by_a_later_edit_is_not_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = GatedEngine()
    bot = await make_bot(tmp_path, engine)
    try:
        target = PartialTarget()
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        message = Message(CONFIG, User(7), Channel(HELP))
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert len(message.outbox) == 1

        first = asyncio.create_task(bot.messages.on_raw_message_edit(_edit(message, "hold\n" + CONFIG)))
        await asyncio.to_thread(engine.started.wait, 10)  # edit 1 is being diagnosed
        second = asyncio.create_task(bot.messages.on_raw_message_edit(_edit(message, CONFIG + LOG)))
        while not bot.service.claims.is_latest_edit(message.id, 2):
            await asyncio.sleep(0)  # edit 2 arrives, and waits for edit 1
        assert not second.done()
        engine.gate.set()
        await asyncio.gather(first, second)

        assert len(target.edits) == 1, "edit 1's reply, overtaken, was never sent"
        assert target.edits[0]["content"] == "[en] step 1: gc_off,batch_too_large"
        assert len(message.outbox) == 1
    finally:
        engine.gate.set()
        await bot.close()
