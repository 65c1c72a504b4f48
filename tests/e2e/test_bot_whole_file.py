"""The whole corrected config of a long config: offered by a button, sent ephemerally to the asker and
to moderators, refused politely to anyone else, never posted in the channel."""

from __future__ import annotations

import sqlite3

import pytest

from .botharness import Bots
from .cases import CONFIG, EPHEMERAL, FIX_LINE
from .fakecord import FakeDiscord
from .fakecord.payloads import Json

pytestmark = [pytest.mark.e2e]

# Far from the change: the reply's excerpt and diff never show it, the whole file does.
FAR = "# note 249: keep this comment, it documents the run"


async def _long_reply(fake: FakeDiscord) -> Json:
    padding = "".join(f"  # note {n}: keep this comment, it documents the run\n" for n in range(250))
    long_config = CONFIG.replace("config:\n", "config:\n" + padding, 1)
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, "", files=[("config.yaml", long_config.encode())]
    )
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="the reply")
    await fake.settle()
    return replies[0]


def _attached(fake: FakeDiscord, msg: Json) -> str:
    return "\n".join(
        fake.cdn[a["url"].removeprefix(fake.base_url)].decode("utf-8") for a in msg.get("attachments") or []
    )


async def test_the_whole_file_goes_privately_to_the_asker_and_moderators_only(
    fake: FakeDiscord, bot: Bots
) -> None:
    reply = await _long_reply(fake)
    assert not reply["attachments"] and FAR not in fake.text_of(reply)
    assert "oom:file:1" in fake.custom_ids(reply)

    refused = await fake.click(fake.bob, reply, "oom:file:1")
    callback = await fake.wait_responded(refused)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert "moderators" in callback["data"]["content"] and not refused.followup_ids

    for member in (fake.alice, fake.moderator):
        inter = await fake.click(member, reply, "oom:file:1")
        callback = await fake.wait_responded(inter)
        # The follow-up fills the private "thinking" message the click was deferred with (as on Discord).
        sent = await fake.shown(inter)
        assert callback["type"] == 5 and callback["data"]["flags"] & EPHEMERAL
        assert sent["flags"] & EPHEMERAL and sent["id"] != reply["id"]
        assert [a["filename"] for a in sent["attachments"]] == ["config.step1.fixed.yaml"]
        whole = _attached(fake, sent)
        assert FIX_LINE in whole and FAR in whole

    # Nothing of it reached the channel: the only public post is the reply, unchanged.
    assert len(fake.bot_posts()) == 1
    assert FAR not in fake.text_of(fake.message(reply["id"]))


async def test_after_the_retention_period_the_asker_is_told_the_inputs_are_gone(
    fake: FakeDiscord, bot: Bots
) -> None:
    reply = await _long_reply(fake)
    with sqlite3.connect(bot.database) as db:  # what the hourly purge does after OOMCHECK_RETENTION_DAYS
        db.execute("DELETE FROM cases WHERE reply_id = ?", (int(reply["id"]),))
    inter = await fake.click(fake.alice, reply, "oom:file:1")
    callback = await fake.wait_responded(inter)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert "no longer stored" in callback["data"]["content"] and not inter.followup_ids
