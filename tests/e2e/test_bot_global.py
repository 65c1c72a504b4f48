"""Without configured guilds the bot syncs its commands globally; global commands still work."""

from __future__ import annotations

import pytest

from .botharness import Bots
from .cases import CONFIG, FIX_LINE
from .fakecord import FakeDiscord

pytestmark = [pytest.mark.e2e]


async def test_global_sync_and_a_global_slash_command(fake: FakeDiscord, bots: Bots) -> None:
    await bots.start(guild_ids=[])
    assert [r.route for r in fake.calls(method="PUT")] == ["sync_global_commands"]
    assert fake.command("oom-check")[1] is None
    inter = await fake.slash_command(fake.alice, fake.general, "oom-check", {"text": CONFIG})
    assert "guild_id" not in inter.payload["data"]
    await fake.wait_for(lambda: fake.calls("webhook_edit_message"), what="the filled-in response")
    await fake.settle()
    assert inter.original_id is not None
    assert FIX_LINE in fake.text_of(fake.message(inter.original_id))
