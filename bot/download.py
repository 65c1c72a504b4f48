"""Attachment downloads that keep only what the engine will read.

`Attachment.read` holds the whole file (up to the read limit, 32 MiB) in memory before the bot keeps
its last few megabytes; streaming keeps the tail as it goes, so a download never holds much more than
the input cap, and the byte budget can count what it really holds.
"""

from __future__ import annotations

import aiohttp
import discord

_CHUNK = 256 * 1024
_BOMS = (b"\xff\xfe", b"\xfe\xff")


async def fetch_tail(
    session: aiohttp.ClientSession, attachment: discord.Attachment, keep: int
) -> tuple[bytes | bytearray, int]:
    """The last `keep` bytes of the file (the whole file when it is smaller) and its size. A UTF-16
    byte-order mark at its start is kept in front of the tail, which then starts at an even offset."""
    async with session.get(attachment.url) as response:
        if response.status != 200:
            raise discord.HTTPException(response, "attachment download failed")
        head = b""
        buffer = bytearray()
        total = 0
        async for chunk in response.content.iter_chunked(_CHUNK):
            if total < 2:
                head = (head + chunk)[:2]
            total += len(chunk)
            buffer += chunk
            if len(buffer) > keep + _CHUNK:
                del buffer[: len(buffer) - keep]
    if total <= keep:
        return buffer, total  # a bytearray decodes as bytes do: no copy of megabytes
    del buffer[: len(buffer) - keep]
    if head in _BOMS:
        if (total - len(buffer)) % 2:
            del buffer[:1]
        return head + buffer, total
    return buffer, total
