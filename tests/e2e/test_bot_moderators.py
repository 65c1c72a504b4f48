"""Who is a moderator, for each of the two public checks (the message menu and `/oom-check public`),
and the `/oom-check` cooldown, which moderators do not have.

A moderator is either a member with a configured moderator role or one with Manage Messages in the
channel: each way is tested alone, since the fake's usual moderator is both.
"""

from __future__ import annotations

from typing import Any

import pytest

from .botharness import Bots
from .cases import CONFIG, EPHEMERAL, FIX_LINE, config_variant, fenced
from .fakecord import FakeDiscord, Person
from .fakecord.payloads import Json, Perm, role, snowflake

pytestmark = [pytest.mark.e2e]


async def _with_helper(fake: FakeDiscord, bots: Bots, **settings: Any) -> Person:
    """A member whose role is a configured moderator role with no Manage Messages; the bot starts
    with that role as its only moderator role, so the fake's own moderator is one by Manage
    Messages alone."""
    helper_role = snowflake()
    fake.roles.append(role(helper_role, "Helper", Perm.MEMBER, position=3))
    helper = fake.add_member("helper")
    helper.role_ids.append(helper_role)
    await bots.start(moderator_role_ids=[helper_role], **settings)
    return helper


def _is_public_diagnosis(fake: FakeDiscord, inter_original: Json, channel_id: int) -> bool:
    return (
        not inter_original["flags"] & EPHEMERAL
        and FIX_LINE in fake.text_of(inter_original)
        and int(inter_original["id"]) in fake.history[channel_id]
    )


@pytest.mark.parametrize("who", ["role", "manage_messages"])
async def test_each_kind_of_moderator_checks_a_message_publicly_from_the_menu(
    fake: FakeDiscord, bots: Bots, who: str
) -> None:
    helper = await _with_helper(fake, bots)
    moderator = helper if who == "role" else fake.moderator
    target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    original = await fake.shown(await fake.message_command(moderator, target, fake.context_menu()))
    assert _is_public_diagnosis(fake, original, fake.general)


@pytest.mark.parametrize("who", ["role", "manage_messages"])
async def test_each_kind_of_moderator_posts_a_check_publicly(fake: FakeDiscord, bots: Bots, who: str) -> None:
    helper = await _with_helper(fake, bots)
    moderator = helper if who == "role" else fake.moderator
    target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    options = {"message": fake.message_link(target), "public": True}
    original = await fake.shown(await fake.slash_command(moderator, fake.general, "oom-check", options))
    assert _is_public_diagnosis(fake, original, fake.general)


async def test_a_member_asking_for_a_public_check_gets_a_private_one(fake: FakeDiscord, bots: Bots) -> None:
    await _with_helper(fake, bots)
    inter = await fake.slash_command(fake.bob, fake.general, "oom-check", {"text": CONFIG, "public": True})
    original = await fake.shown(inter)
    assert inter.callbacks[0]["data"]["flags"] & EPHEMERAL and original["flags"] & EPHEMERAL
    assert FIX_LINE in fake.text_of(original)
    assert "Only moderators can post a check publicly" in fake.text_of(original)
    assert int(original["id"]) not in fake.history.get(fake.general, [])


async def test_the_check_cooldown_holds_members_back_and_not_moderators(
    fake: FakeDiscord, bots: Bots
) -> None:
    helper = await _with_helper(fake, bots, user_cooldown_seconds=3600)
    first = await fake.shown(await fake.slash_command(fake.bob, fake.general, "oom-check", {"text": CONFIG}))
    assert FIX_LINE in fake.text_of(first)
    again = await fake.slash_command(fake.bob, fake.general, "oom-check", {"text": fenced(config_variant(2))})
    callback = await fake.wait_responded(again)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert "Please wait" in callback["data"]["content"] and FIX_LINE not in callback["data"]["content"]
    # The message menu counts against the same cooldown.
    mine = await fake.user_sends(fake.bob, fake.general, fenced(CONFIG))
    menu = await fake.wait_responded(await fake.message_command(fake.bob, mine, fake.context_menu()))
    assert menu["type"] == 4 and "Please wait" in menu["data"]["content"]
    # Another member is not held back by bob's cooldown; moderators of either kind never are.
    for person in (fake.alice, helper, helper, fake.moderator, fake.moderator):
        shown = await fake.shown(
            await fake.slash_command(person, fake.general, "oom-check", {"text": CONFIG})
        )
        assert FIX_LINE in fake.text_of(shown), person.name


async def test_a_public_check_from_another_channel_follows_the_members_edit(
    fake: FakeDiscord, bots: Bots
) -> None:
    """A moderator's public check is the message's answer: the member's edit updates it, in the
    channel where the moderator posted it."""
    await bots.start()
    target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    options = {"message": fake.message_link(target), "public": True}
    original = await fake.shown(
        await fake.slash_command(fake.moderator, fake.help_channel, "oom-check", options)
    )
    assert _is_public_diagnosis(fake, original, fake.help_channel)
    await fake.user_edits(target, fenced(config_variant(9)))
    await fake.wait_for(
        lambda: "batch 9," in fake.text_of(fake.message(original["id"])),
        what="the public answer to follow the edit",
    )
    await fake.settle()
    assert [r.status for r in fake.calls("edit_message")] == [200]
    assert fake.bot_posts() == [], "the edit updated the answer, it posted nothing"
