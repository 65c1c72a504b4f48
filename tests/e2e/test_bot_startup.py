"""The product's bot logs in, syncs its commands to the configured guild and answers a mention."""

from __future__ import annotations

import pytest

from .botharness import Bots
from .cases import CONFIG, fenced
from .fakecord import FakeDiscord

pytestmark = pytest.mark.e2e


async def test_login_sync_and_mention(fake: FakeDiscord, bot: Bots) -> None:
    assert [r.route for r in fake.requests[:2]] == ["get_me", "get_application"]
    names = {c["name"] for c in fake.commands.get(fake.guild_id, [])}
    assert {"oom-check", "oom-explain", "oom-rules", "oom-config", "oom-stats"} <= names
    assert fake.context_menu()
    assert fake.intents & (1 << 15), "the bot must ask for the message-content intent"
    msg = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG), mention_bot=True)
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="reply to a mention")
    assert len(replies) == 1
