"""The gateway echoes each of the bot's replies back as MESSAGE_CREATE; the bot drops its own
messages before discord.py builds a `Message` of them (`bot.app.skip_own_messages`), and nothing
else: a member's message still reaches `on_message` and discord.py's message cache."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.app import OomBot

from .botharness import Bots
from .cases import LOG, fenced
from .fakecord import FakeDiscord

pytestmark = [pytest.mark.e2e]


async def test_the_bots_own_reply_is_dropped_and_the_members_message_is_not(
    fake: FakeDiscord, bots: Bots, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = await bots.start()
    client = running.client
    assert isinstance(client, OomBot)
    seen: list[int] = []
    on_message = client.on_message

    async def spy(message: discord.Message) -> None:
        seen.append(message.author.id)
        await on_message(message)

    monkeypatch.setattr(client, "on_message", spy)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(LOG, "text"))
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="a reply")
    # A later member message is a barrier: the gateway delivers events in order, so by the time
    # it is answered the echo of the first reply has been handled.
    later = await fake.user_sends(fake.bob, fake.help_channel, "thanks!", mention_bot=True)
    await fake.wait_for(lambda: fake.replies_to(int(later["id"])), what="a reply")
    await fake.settle()
    assert fake.events and any(
        e.name == "MESSAGE_CREATE" and e.data["author"]["id"] == str(fake.bot.id) for e in fake.events
    ), "the fake echoes the bot's replies"
    assert seen == [fake.alice.id, fake.bob.id]
    cached = {m.id for m in client.cached_messages}
    assert {int(msg["id"]), int(later["id"])} <= cached
    assert int(replies[0]["id"]) not in cached


def _payload(author: Any) -> dict[str, Any]:
    return {"id": "5", "channel_id": "6", "author": author}


def test_only_messages_of_the_bots_own_user_are_skipped() -> None:
    from bot.app import skip_own_messages

    parsed: list[dict[str, Any]] = []
    parse = skip_own_messages(parsed.append, lambda: 42)
    member, own, no_author = _payload({"id": "7"}), _payload({"id": "42"}), {"id": "5"}
    for data in (member, own, no_author):
        parse(data)
    assert parsed == [member, no_author]
    before_ready = skip_own_messages(parsed.append, lambda: None)
    before_ready(own)
    assert parsed[-1] is own
