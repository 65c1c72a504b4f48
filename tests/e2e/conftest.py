"""Fixtures for the end-to-end suite: a fresh fake Discord per test, discord.py pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .fakecord import FakeDiscord, point_discord_at


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    point_discord_at(server.base_url, monkeypatch.setattr)
    yield server
    await server.close()
    assert server.unhandled == [], f"the bot called routes the fake does not know: {server.unhandled}"
    assert server.violations == [], f"payloads Discord would reject: {server.violations}"
