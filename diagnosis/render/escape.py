"""Make user-derived text inert for its target: a Discord message, Markdown, or a terminal.

Pasted text must never close a code block, mention anyone, render a masked link, reorder the
reply with bidi overrides or move the terminal's cursor.
"""

from __future__ import annotations

import re

from diagnosis.lazyre import LazyPattern

ZWSP = "\u200b"

# Bidi marks, embeddings, overrides and isolates (the Arabic letter mark too), zero-width characters,
# the BOM, tag characters, and the letters that draw nothing (Hangul fillers, the blank Braille
# pattern): invisible, and able to make a line read differently from what it is, or look empty.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
    "\u2800\u3164\ufeff\uffa0\U000e0000-\U000e007f]"
)
# C0/C1 controls other than tab and newline (ANSI escapes start with ESC).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?")
# The rest only matter to Discord and Markdown: a terminal reply never compiles them.
_BACKTICK_RUN = LazyPattern(r"`(?=`)")
_CHANNEL_OR_COMMAND = LazyPattern(r"<(?=[#/])")
_BLOCK_MENTION = LazyPattern(r"@(?=everyone|here)|<(?=[@#/])")
_MD_SPECIAL = LazyPattern(r"([\\*_~|`\[\]<])")
# Characters that only format at the start of a line: headings, quotes, lists.
_MD_LINE_START = LazyPattern(r"^([ \t]*)(-#|#{1,3}|[>+*-]|\d+\.)(?=[ \t])", re.MULTILINE)


def clean(value: str) -> str:
    """Drop invisible characters, ANSI sequences and other control characters."""
    value = _ANSI.sub("", value)
    value = _INVISIBLE.sub("", value)
    return _CONTROL.sub("", value)


def _inert_mentions(value: str) -> str:
    # A zero-width space after every @ keeps @everyone, @here and <@id> from being read as mentions.
    return _CHANNEL_OR_COMMAND.sub("<" + ZWSP, value).replace("@", "@" + ZWSP)


def discord_text(value: str) -> str:
    """A value inside prose of a Discord/Markdown message: one line, shown literally, no formatting."""
    value = " ".join(clean(value).split("\n")).replace("\r", "")
    value = _MD_SPECIAL.sub(r"\\\1", value)
    value = _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), value)
    return _inert_mentions(value)


def discord_inline_code(value: str) -> str:
    """A value inside `…`: backticks cannot close it, mentions stay inert, one line only."""
    value = clean(value).replace("\r", "").replace("\n", " ")
    value = value.replace("`", "ˋ")
    return _inert_mentions(value) or " "


def discord_code_block(value: str) -> str:
    """The body of a fenced block: no run of backticks can close the fence."""
    value = clean_block(value)
    value = _BACKTICK_RUN.sub("`" + ZWSP, value)
    # Code blocks never ping, but text copied out of one must not either.
    return _BLOCK_MENTION.sub(lambda m: m.group() + ZWSP, value)


def clean_block(value: str) -> str:
    """Multi-line text for a code block or a terminal: controls removed, tabs and newlines kept."""
    return clean(value.replace("\r\n", "\n").replace("\r", "\n"))


def terminal_text(value: str) -> str:
    return " ".join(clean(value).replace("\r", "").split("\n"))
