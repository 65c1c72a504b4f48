"""Fixtures for the end-to-end suite: a fresh fake Discord per test, discord.py pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from .botharness import Bots
from .fakecord import FakeDiscord, Request, mentions_nothing, point_discord_at


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    point_discord_at(server.base_url, monkeypatch.setattr)
    yield server
    await server.close()
    assert server.unhandled == [], f"the bot called routes the fake does not know: {server.unhandled}"
    assert server.violations == [], f"payloads Discord would reject: {server.violations}"


@pytest.fixture
async def bots(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[Bots]:
    harness = Bots(fake, tmp_path)
    yield harness
    await harness.stop()
    # The product must never be able to ping anyone, whatever the user pasted.
    pinging = [r for r in fake.message_bodies() if not mentions_nothing(_body(r).get("allowed_mentions"))]
    assert pinging == [], f"messages sent without allowed_mentions parse-nothing: {pinging}"


def _body(request: Request) -> dict[str, Any]:
    body = request.body if isinstance(request.body, dict) else {}
    if request.route == "interaction_callback":
        return dict(body.get("data") or {})
    return body


@pytest.fixture
async def bot(bots: Bots) -> Bots:
    """The product's bot, logged in and ready, with the default test settings."""
    await bots.start()
    return bots
