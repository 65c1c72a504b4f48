"""Fidelity guard: the builders emit every field discord.py 2.7 needs (research note §6), so a
malformed payload cannot make a scenario pass or crash for the wrong reason. Re-check on upgrades."""

from __future__ import annotations

import pytest

from .fakecord import FakeDiscord
from .fakecord import payloads as p

pytestmark = pytest.mark.e2e

USER = {"id", "username", "discriminator", "avatar"}
CHANNEL = {"id", "type", "name", "position"}
THREAD = {"id", "parent_id", "owner_id", "name", "type", "message_count", "member_count", "thread_metadata"}
MESSAGE = {"id", "channel_id", "type", "content", "author", "mentions", "mention_roles", "attachments"}
MESSAGE |= {"embeds", "components"}


def test_guild_fields() -> None:
    fake = FakeDiscord()
    guild = fake.guild_payload()
    assert {"id", "name", "roles", "channels", "threads", "members", "member_count"} <= guild.keys()
    everyone = [r for r in guild["roles"] if r["id"] == guild["id"]]
    assert everyone and isinstance(everyone[0]["permissions"], str)
    assert guild["member_count"] == len(guild["members"]), "otherwise discord.py asks for chunks"
    for channel in guild["channels"]:
        assert channel.keys() >= CHANNEL
    assert any(c["type"] == p.ChannelType.FORUM for c in guild["channels"])
    for thread in guild["threads"]:
        assert thread.keys() >= THREAD
        assert {"archived", "auto_archive_duration", "archive_timestamp"} <= thread["thread_metadata"].keys()
    for member in guild["members"]:
        assert {"user", "roles", "flags"} <= member.keys() and member["user"].keys() >= USER


def test_ready_message_and_interaction_fields() -> None:
    fake = FakeDiscord()
    ready = p.ready(fake.bot.user, "s", fake.gateway_url, [fake.guild_id], fake.app_id)
    assert {"user", "session_id", "resume_gateway_url", "guilds"} <= ready.keys()
    assert {"id", "flags"} <= ready["application"].keys()
    att = p.attachment(1, "a.txt", 3, "http://127.0.0.1:1/a", "text/plain")
    assert {"id", "filename", "size", "url", "proxy_url"} <= att.keys()
    member = fake.member_payload(fake.alice)
    msg = p.message(2, fake.general, fake.alice.user, "x", guild_id=fake.guild_id, member_payload=member)
    assert msg.keys() >= MESSAGE and msg["author"].keys() >= USER
    assert {"roles", "flags"} <= msg["member"].keys() and "user" not in msg["member"]
    inter = p.interaction(
        3,
        "t",
        fake.app_id,
        2,
        guild_id=fake.guild_id,
        channel=fake.channel_payload(fake.general),
        member_payload=fake.member_payload(fake.alice, with_permissions=True),
        data=p.message_command_data(4, "menu", msg, guild_id=None),
    )
    assert {"id", "application_id", "type", "token", "version", "attachment_size_limit"} <= inter.keys()
    assert {"user", "roles", "flags", "permissions"} <= inter["member"].keys()
    assert inter["data"]["type"] == 3 and msg["id"] in inter["data"]["resolved"]["messages"]
