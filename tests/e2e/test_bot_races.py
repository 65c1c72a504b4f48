"""Races: a storm of edits of one message, and several triggers for the public answer to one message."""

from __future__ import annotations

import pytest

from .botharness import Bots
from .cases import CONFIG, EPHEMERAL, FIX_LINE, config_variant, fenced
from .fakecord import FakeDiscord
from .fakecord.payloads import Json
from .fakecord.server import LOADING

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


def _public_diagnoses(fake: FakeDiscord, channel_id: int) -> list[Json]:
    shown = [fake.messages[mid] for mid in fake.history.get(channel_id, []) if mid in fake.messages]
    return [
        m
        for m in shown
        if int(m["author"]["id"]) == fake.bot.id
        and not int(m.get("flags", 0)) & EPHEMERAL
        and FIX_LINE in fake.text_of(m)
    ]


async def test_moderators_racing_auto_mode_give_one_public_diagnosis(fake: FakeDiscord, bots: Bots) -> None:
    second = fake.add_member("mod2", moderator=True)
    await bots.start()
    target = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))  # auto mode answers it
    link = {"message": fake.message_link(target), "public": True}
    interactions = [
        await fake.message_command(fake.moderator, target, fake.context_menu()),
        await fake.slash_command(second, fake.help_channel, "oom-check", link),
        await fake.message_command(second, target, fake.context_menu()),
        await fake.slash_command(fake.moderator, fake.help_channel, "oom-check", link),
    ]
    for inter in interactions:
        await fake.wait_responded(inter)
    await fake.settle()
    public = _public_diagnoses(fake, fake.help_channel)
    assert len(public) == 1, f"{len(public)} public diagnoses of one message"
    for inter in interactions:
        if inter.original_id is not None and inter.original_id in fake.messages:
            assert not fake.message(inter.original_id)["flags"] & LOADING, "no interaction is left thinking"

    # Later, the message has its answer: a moderator is pointed to it, privately.
    late = await fake.message_command(second, target, fake.context_menu())
    callback = await fake.wait_responded(late)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert public[0]["id"] in callback["data"]["content"]
    assert len(_public_diagnoses(fake, fake.help_channel)) == 1
