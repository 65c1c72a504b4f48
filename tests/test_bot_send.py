from __future__ import annotations

import discord

from bot.send import CONTENT_LIMIT, NO_MENTIONS, Outgoing, from_reply, from_text, with_notes
from diagnosis.render.discord import DiscordReply, ReplyFile


def test_no_mentions_ever() -> None:
    assert NO_MENTIONS.to_dict() == {"parse": []}
    out = Outgoing(content="@everyone hi")
    assert out.send_kwargs()["allowed_mentions"] is NO_MENTIONS
    assert out.edit_kwargs()["allowed_mentions"] is NO_MENTIONS


def test_reply_becomes_discord_objects_each_time() -> None:
    reply = DiscordReply("hello", [{"title": "t", "description": "d"}], [ReplyFile("fixed.yaml", b"a: 1\n")])
    out = from_reply(reply)
    first, second = out.send_kwargs(), out.send_kwargs()
    assert first["content"] == "hello"
    assert isinstance(first["embeds"][0], discord.Embed) and first["embeds"][0].title == "t"
    assert first["files"][0].filename == "fixed.yaml"
    assert first["files"][0] is not second["files"][0]  # a discord.File is consumed by one upload
    edit = out.edit_kwargs()
    assert edit["attachments"][0].filename == "fixed.yaml"


def test_edit_clears_what_the_new_reply_lacks() -> None:
    edit = Outgoing(content="only text").edit_kwargs()
    assert edit["embeds"] == [] and edit["attachments"] == []


def test_notes_go_above_when_they_fit() -> None:
    assert with_notes("body", ["skipped a.png"]) == "skipped a.png\nbody"
    assert with_notes("", ["note"]) == "note"
    assert with_notes("body", []) == "body"
    long_body = "x" * (CONTENT_LIMIT - 3)
    assert with_notes(long_body, ["note"]) == long_body


def test_from_text_picks_content_embed_or_file() -> None:
    assert from_text("short").content == "short"
    medium = from_text("y" * 3000)
    assert medium.content == "" and medium.embeds[0]["description"] == "y" * 3000
    long = from_text("title line\n" + "z" * 5000, filename="rules.md")
    assert long.content == "title line"
    assert long.files[0][0] == "rules.md" and long.files[0][1].startswith(b"title line")
