"""What the bot keeps across a restart and past the retention period: the start-up purge drops the
stored cases and answered markers, keeps the statistics as counts, and the author can still delete
the bot's reply."""

from __future__ import annotations

import sqlite3

import pytest

from .botharness import Bots
from .cases import CONFIG, EPHEMERAL, LOG, db_rows, fenced
from .fakecord import FakeDiscord

pytestmark = [pytest.mark.e2e]


def _age(database: object, days: float) -> None:
    """Move every stored row `days` into the past, as if the bot had been stopped that long."""
    shift = days * 86400
    with sqlite3.connect(str(database)) as db:
        for table in ("answered", "cases", "diagnosis_rules", "feedback", "reply_authors"):
            db.execute(f"UPDATE {table} SET created = created - ?", (shift,))


async def test_after_the_start_up_purge_the_author_can_still_delete_the_reply(
    fake: FakeDiscord, bot: Bots
) -> None:
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, fenced(CONFIG), files=[("oom.log", LOG.encode())]
    )
    (reply,) = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="the auto reply")
    await fake.settle()
    up = await fake.click(fake.bob, reply, "oom:up")
    await fake.wait_responded(up)
    await fake.settle()
    stats_before = await fake.shown(await fake.slash_command(fake.moderator, fake.general, "oom-stats"))

    await bot.stop()
    _age(bot.database, 15)  # past the 14 days of retention
    await bot.start()
    assert db_rows(bot.database, "SELECT COUNT(*) FROM cases") == [(0,)], "purged when the bot starts"
    assert db_rows(bot.database, "SELECT COUNT(*) FROM answered") == [(0,)]
    assert db_rows(bot.database, "SELECT COUNT(*) FROM diagnosis_rules") == [(0,)], "rolled up"
    stats_after = await fake.shown(await fake.slash_command(fake.moderator, fake.general, "oom-stats"))
    assert fake.text_of(stats_after) == fake.text_of(stats_before), "the statistics are kept as counts"

    # The buttons that need the case say it is gone; deleting needs only who the reply answers.
    step = await fake.click(fake.alice, reply, "oom:step:2")
    assert (await fake.wait_responded(step))["data"]["flags"] & EPHEMERAL
    denied = await fake.click(fake.bob, reply, "oom:del")
    callback = await fake.wait_responded(denied)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert int(reply["id"]) in fake.messages
    await fake.click(fake.alice, reply, "oom:del")
    await fake.wait_for(lambda: int(reply["id"]) not in fake.messages, what="the author's deletion")
