"""A new reply's embeds go to discord.py in their wire form (`wire_embed`): exactly what
`discord.Embed.from_dict(embed).to_dict()` gives, which is all discord.py does with them."""

from __future__ import annotations

import json
from typing import Any

import discord
from discord.http import handle_message_parameters
from hypothesis import given
from hypothesis import strategies as st

from bot.send import Outgoing, WireEmbed, from_reply, from_text, wire_embed
from diagnosis.render.discord import DiscordReply, ReplyFile

texts = st.one_of(st.none(), st.text(max_size=40))
plain = st.fixed_dictionaries(
    {}, optional={"title": texts, "description": texts, "color": st.integers(-1, 2**24)}
)
other = st.fixed_dictionaries(
    {"title": st.text(max_size=10)},
    optional={
        "url": st.just("https://example.com"),
        "footer": st.fixed_dictionaries({"text": st.text(max_size=10)}),
        "fields": st.lists(
            st.fixed_dictionaries({"name": st.text(min_size=1), "value": st.text(min_size=1)}), max_size=2
        ),
        "color": st.booleans(),
    },
).filter(lambda embed: len(embed) > 1)  # a key past the plain three, or a colour that is a bool


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _as_discord_sends(embed: dict[str, Any]) -> str:
    return _json(discord.Embed.from_dict(dict(embed)).to_dict())


@given(plain)
def test_a_plain_embed_is_what_discord_py_would_send(embed: dict[str, Any]) -> None:
    wire = wire_embed(embed)
    assert isinstance(wire, WireEmbed)
    assert _json(wire.to_dict()) == _as_discord_sends(embed)


@given(other)
def test_any_other_embed_is_a_discord_embed(embed: dict[str, Any]) -> None:
    wire = wire_embed(embed)
    assert isinstance(wire, discord.Embed)
    assert _json(wire.to_dict()) == _as_discord_sends(embed)


def _payload(kwargs: dict[str, Any]) -> Any:
    kwargs = dict(kwargs)
    files = kwargs.pop("files", None)
    with handle_message_parameters(
        **kwargs, files=files if files is not None else discord.utils.MISSING, nonce=1
    ) as params:
        return params.multipart[0]["value"] if params.files else _json(params.payload)


def test_a_reply_sends_the_same_payload_either_way() -> None:
    reply = DiscordReply(
        "**OOM**",
        [
            {"title": "Diagnosis", "description": "a\nb", "color": 0xE67E22},
            {"title": "Fix", "description": "", "color": 0xE67E22},
        ],
        [ReplyFile("fixed.yaml", b"a: 1\n")],
    )
    for outgoing in (
        from_reply(reply),
        from_reply(DiscordReply("x", reply.embeds, [])),
        from_text("y" * 3000),
    ):
        assert _payload(outgoing.reply_kwargs()) == _payload(outgoing.send_kwargs())
    assert "embeds" not in Outgoing(content="only text").reply_kwargs()
