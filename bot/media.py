"""Inputs that are not text on Discord: screenshots read with OCR, and links to pastes fetched.

Both end up as the case's inputs like an attachment's text, with a note the reply must make (where
the text was read from, or why a file or a link was not read): an `IgnoredFile` whose reason names a
`bot.yaml` sentence. Images and fetched bytes live in memory for the read and are never stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import discord

from bot import ocr
from bot.diagnosis_port import InputKinds
from bot.inputs import Gathered, IgnoredFile, SourcedText, file_content, merge
from bot.links import LinkFetcher, link_label, paste_links
from diagnosis.decode import image_format
from diagnosis.render.view import screenshot_source

# The reasons `ReplyService.ignored_notes` words; "unsure_case" is an unsure read that still looks
# like a config or a log: the one image that gets an answer in auto mode (asking for the text).
ASKS_FOR_TEXT = "unsure_case"


def asks_for_text(gathered: Gathered) -> bool:
    return any(f.reason == ASKS_FOR_TEXT for f in gathered.ignored)


class ScreenReader:
    """Reads screenshots off the event loop, one at a time (Tesseract takes a core for seconds)."""

    def __init__(self, limits: ocr.OcrLimits, kinds: Callable[[str], InputKinds], *, enabled: bool = True):
        self.limits = limits
        self._kinds = kinds
        self._enabled = enabled
        self._one_at_a_time = asyncio.Semaphore(1)

    def available(self) -> bool:
        return self._enabled and ocr.available()

    async def read_attachment(self, attachment: discord.Attachment) -> Gathered:
        name = attachment.filename
        if not self.available():
            return Gathered((), (IgnoredFile(name, "no_ocr"),))
        if attachment.size > self.limits.max_bytes:
            return Gathered((), (IgnoredFile(name, "image_size", attachment.size),))
        return await self.read(name, await attachment.read())

    async def read(self, name: str, data: bytes) -> Gathered:
        if not self.available():
            return Gathered((), (IgnoredFile(name, "no_ocr"),))
        async with self._one_at_a_time:
            read = await asyncio.to_thread(ocr.read_screenshot, data, self.limits)
        if read.status is ocr.ReadStatus.TEXT:
            return Gathered(
                (SourcedText(screenshot_source(name), read.text),), (IgnoredFile(name, "screenshot"),)
            )
        if read.status is ocr.ReadStatus.UNSURE:
            kinds = self._kinds(read.text)
            return Gathered(
                (), (IgnoredFile(name, ASKS_FOR_TEXT if kinds.log or kinds.config else "unsure"),)
            )
        if read.status is ocr.ReadStatus.NO_TEXT:
            return Gathered((), (IgnoredFile(name, "no_text"),))
        return Gathered((), (IgnoredFile(name, "image_refused", len(data)),))


async def gather_links(text: str, fetcher: LinkFetcher, screens: ScreenReader, *, cap: int) -> Gathered:
    """The pastes and files that `text` links to, fetched within `cap` bytes in all: text joins the
    case, an image is read like a screenshot, a refused link is named with the reason."""
    parts: list[Gathered] = []
    budget = cap
    for link, url in paste_links(text):
        label = link_label(link)
        if budget <= 0:
            parts.append(Gathered((), (IgnoredFile(label, "link_size"),)))
            continue
        got = await fetcher.fetch(link, url, max_bytes=budget)
        if got.data is None:
            parts.append(Gathered((), (IgnoredFile(label, f"link_{got.refusal}"),)))
            continue
        budget -= len(got.data)
        if image_format(got.data) is not None:
            parts.append(await screens.read(label, got.data))
            continue
        parts.append(
            Gathered(
                (SourcedText(label, file_content(got.data, cap, len(got.data))),),
                (IgnoredFile(label, "link_read"),),
            )
        )
    return merge(*parts)
