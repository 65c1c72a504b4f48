"""Rendered replies → keyword arguments for discord.py sends and edits (never mentioning anyone)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import discord

from bot.delivery import missing_in
from bot.diagnosis_port import DiscordReplyLike
from diagnosis.outgate import gate_all

NO_MENTIONS = discord.AllowedMentions.none()
CONTENT_LIMIT = 2000
DESCRIPTION_LIMIT = 4096
# The keys of the embeds the renderer and `from_text` make (see `wire_embed`).
_PLAIN_EMBED_KEYS = frozenset({"title", "description", "color"})


class WireEmbed:
    """An embed already in the form discord.py sends: when it sends a message, all it asks of an
    embed is `to_dict()`."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> dict[str, Any]:
        return self._data


def wire_embed(embed: Mapping[str, Any]) -> discord.Embed:
    """What `discord.Embed.from_dict(embed)` would send (its `to_dict()`), built directly for the
    plain embeds of a reply (a title, a description, a colour), without a `discord.Embed` that is
    made only to be turned back into the same dict. Any other embed becomes a `discord.Embed`."""
    title, description = embed.get("title"), embed.get("description")
    color = embed.get("color", 0)
    if not (
        embed.keys() <= _PLAIN_EMBED_KEYS
        and isinstance(title, str | None)
        and isinstance(description, str | None)
        and type(color) is int
    ):
        return discord.Embed.from_dict(dict(embed))
    # discord.Embed.to_dict: its flags first, then the colour if one was given, then the texts
    # that are not empty, description before title.
    data: dict[str, Any] = {"flags": 0}
    if "color" in embed:
        data["color"] = color
    if description:
        data["description"] = description
    if title:
        data["title"] = title
    return cast(discord.Embed, WireEmbed(data))


@dataclass(frozen=True)
class Outgoing:
    """A message to send; files are kept as bytes so the same reply can be sent or edited again."""

    content: str = ""
    embeds: tuple[dict[str, Any], ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def discord_files(self) -> list[discord.File]:
        return [discord.File(io.BytesIO(data), filename=name) for name, data in self.files]

    def discord_embeds(self) -> list[discord.Embed]:
        return [discord.Embed.from_dict(dict(embed)) for embed in self.embeds]

    def send_kwargs(self) -> dict[str, Any]:
        """For `Messageable.send`, `followup.send`: new message."""
        return self._new_message(self.discord_embeds())

    def reply_kwargs(self) -> dict[str, Any]:
        """`send_kwargs` with the embeds in their wire form (`wire_embed`), for a new message sent
        with `Messageable.send` / `Message.reply`, which only serialize them."""
        return self._new_message([wire_embed(embed) for embed in self.embeds])

    def _new_message(self, embeds: list[discord.Embed]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        if self.content:
            kwargs["content"] = self.content
        if embeds:
            kwargs["embeds"] = embeds
        if self.files:
            kwargs["files"] = self.discord_files()
        return kwargs

    def as_plain(self, filename: str = "oomcheck-reply.md") -> Outgoing:
        """The same message without embeds, for a channel where the bot may not embed (Discord would
        drop the embeds and leave the headline alone): their text joins the content, and what does not
        fit in one message goes in a file beside it."""
        parts = [self.content]
        for embed in self.embeds:
            parts.append(f"**{embed['title']}**" if embed.get("title") else "")
            parts.append(str(embed.get("description") or ""))
            for item in embed.get("fields") or ():
                parts.append(f"**{item.get('name', '')}**\n{item.get('value', '')}")
        text = "\n\n".join(part for part in parts if part.strip())
        if len(text) <= CONTENT_LIMIT:
            return Outgoing(content=text, files=self.files, extra=self.extra)
        head = text[: CONTENT_LIMIT - 2].rsplit("\n", 1)[0] + "\n…"
        return Outgoing(content=head, files=(*self.files, (filename, text.encode("utf-8"))), extra=self.extra)

    def edit_kwargs(self) -> dict[str, Any]:
        """For `Message.edit`, `edit_original_response`: replaces every part of the old message."""
        return {
            "content": self.content or None,
            "embeds": self.discord_embeds(),
            "attachments": self.discord_files(),
            "allowed_mentions": NO_MENTIONS,
        }


async def say_privately(interaction: discord.Interaction, text: str) -> None:
    """A short ephemeral message, as the response or, once the interaction was answered, a follow-up."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
    else:
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)


def with_notes(content: str, notes: Sequence[str]) -> str:
    """Put short notes (ignored attachments…) above the reply when they fit in one message."""
    if not notes:
        return content
    head = "\n".join(notes)
    combined = f"{head}\n{content}" if content else head
    return combined if len(combined) <= CONTENT_LIMIT else content


def gated(outgoing: Outgoing) -> Outgoing:
    """The message through the output gate: its content, every embed and every attachment. Every
    reply and text the bot posts is assembled by `from_reply` or `from_text`, which call this."""
    return gate_all(outgoing)


def may_embed(channel: object) -> bool:
    """False when the bot's cached permissions say it may not embed links in `channel`; True when
    they allow it or are not known (Discord's answer then decides)."""
    return "embed_links" not in missing_in(channel, ("embed_links",))


def for_channel(channel: object, outgoing: Outgoing) -> Outgoing:
    return outgoing if not outgoing.embeds or may_embed(channel) else outgoing.as_plain()


def from_reply(reply: DiscordReplyLike, notes: Sequence[str] = ()) -> Outgoing:
    return gated(
        Outgoing(
            content=with_notes(reply.content, notes),
            embeds=tuple(reply.embeds),
            files=tuple((f.name, f.data) for f in reply.files),
        )
    )


def from_text(text: str, *, filename: str = "oomcheck.txt") -> Outgoing:
    """A long plain text (the rule list, an explanation): content, else one embed, else a file."""
    return gated(_from_text(text, filename))


def _from_text(text: str, filename: str) -> Outgoing:
    if len(text) <= CONTENT_LIMIT:
        return Outgoing(content=text)
    if len(text) <= DESCRIPTION_LIMIT:
        return Outgoing(embeds=({"description": text},))
    first_line = text.strip().splitlines()[0][:200] if text.strip() else ""
    return Outgoing(content=first_line, files=((filename, text.encode("utf-8")),))
