"""Races: a storm of edits of one message, and several triggers for the public answer to one message."""

from __future__ import annotations

import pytest

from .botharness import Bots
from .cases import CONFIG, config_variant, fenced
from .fakecord import FakeDiscord

pytestmark = [pytest.mark.e2e]


def _headline(batch: int) -> str:
    return f"(FLUX.1-dev, batch {batch},"


async def test_an_edit_storm_leaves_the_reply_on_the_last_edit(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    # The first edits arrive while the first answer is still being written, the next ones while an
    # earlier edit is being diagnosed.
    for batch in range(5, 35):
        await fake.user_edits(msg, fenced(config_variant(batch)))

    def reply_text() -> str:
        replies = fake.replies_to(int(msg["id"]))
        return fake.text_of(fake.message(replies[0]["id"])) if replies else ""

    await fake.wait_for(lambda: _headline(34) in reply_text(), what="the reply to show the last edit")
    await fake.settle()
    assert _headline(34) in reply_text()
    assert len(fake.bot_posts()) == 1, "edits never post a second reply"

    # Again once the reply exists: a burst of edits while the first of them is diagnosed.
    for batch in range(35, 65):
        await fake.user_edits(msg, fenced(config_variant(batch)))
    await fake.wait_for(lambda: _headline(64) in reply_text(), what="the reply to show the last edit")
    await fake.settle()
    assert _headline(64) in reply_text()
    assert len(fake.bot_posts()) == 1
