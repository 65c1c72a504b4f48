"""Fit a reply into one Discord message: content, embeds and attached files, within every limit.

What does not fit is never cut inside a code block: the cut falls on a line boundary, an open fence
is closed, a "continued in the attached file" line is added, and the whole reply goes along as a
Markdown file.
"""

from __future__ import annotations

from typing import Any, NamedTuple

CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FIELDS_MAX = 25
EMBEDS_MAX = 10
EMBEDS_TOTAL_MAX = 6000
EMBED_COLOUR = 0xE67E22
REPLY_FILE = "oomcheck-reply.md"


class ReplyFile(NamedTuple):
    """A file attached to a reply."""

    name: str
    data: bytes


class DiscordReply(NamedTuple):
    """A reply as Discord takes it: content, embeds, files; and the whole corrected config, which is
    never among the files: a public reply shows the changed lines and the diff, and the whole file
    (every line of the user's config, paths and values the output gate may not know to hide) is sent
    privately to whoever may have it."""

    content: str
    embeds: list[dict[str, Any]]
    files: list[ReplyFile]
    whole_config: ReplyFile | None = None


class Section(NamedTuple):
    """A titled part of a reply."""

    title: str
    body: str


def _is_fence(line: str) -> bool:
    return line.lstrip().startswith("```")


def cut_markdown(text: str, limit: int) -> tuple[str, bool]:
    """The longest prefix of whole lines within `limit` characters, with any open fence closed.

    Returns (prefix, cut). A single line longer than the limit is shortened with an ellipsis rather
    than dropped, so a cut always makes progress.
    """
    if len(text) <= limit:
        return text, False
    out: list[str] = []
    size = 0
    fence_open: str | None = None
    for line in text.split("\n"):
        closing = 4 if fence_open is not None or _is_fence(line) else 0  # "\n```"
        needed = len(line) + (1 if out else 0)
        if size + needed + closing > limit:
            room = limit - size - (1 if out else 0) - closing - 1
            if not out and room > 0 and not _is_fence(line):
                # Backticks in a fragment could open a block that nothing closes.
                out.append(line[:room].replace("`", "ˋ") + "…")
            break
        out.append(line)
        size += needed
        if _is_fence(line):
            fence_open = None if fence_open is not None else line
    if fence_open is not None:
        if out and _is_fence(out[-1]) and out[-1] == fence_open:
            out.pop()
        else:
            out.append("```")
    return "\n".join(out).rstrip(), True


def _embed_size(embed: dict[str, Any]) -> int:
    size = len(embed.get("title", "")) + len(embed.get("description", ""))
    for f in embed.get("fields", []):
        size += len(f.get("name", "")) + len(f.get("value", ""))
    footer = embed.get("footer")
    if isinstance(footer, dict):
        size += len(footer.get("text", ""))
    return size


def pack(
    headline: str, sections: list[Section], files: list[ReplyFile], full_text: str, continued: str
) -> DiscordReply:
    content, overflow = cut_markdown(headline, CONTENT_MAX - len(continued) - 1)
    if overflow:
        content = f"{content}\n{continued}"
    embeds: list[dict[str, Any]] = []
    used = 0
    for section in sections:
        title, _ = cut_markdown(section.title.replace("\n", " "), TITLE_MAX)
        room = min(DESCRIPTION_MAX, EMBEDS_TOTAL_MAX - used - len(title))
        if len(embeds) >= EMBEDS_MAX or room < len(continued) + 40:
            overflow = True
            break
        body, cut = cut_markdown(section.body, room)
        if cut:
            body, _ = cut_markdown(section.body, room - len(continued) - 1)
            body = f"{body}\n{continued}".strip()
            overflow = True
        embed = {"title": title, "description": body, "color": EMBED_COLOUR}
        embeds.append(embed)
        used += _embed_size(embed)
    out_files = list(files)
    if overflow:
        out_files.append(ReplyFile(REPLY_FILE, full_text.encode("utf-8")))
    return DiscordReply(content=content, embeds=embeds, files=out_files)
