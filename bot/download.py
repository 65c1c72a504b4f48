"""Attachment downloads that keep only what the engine will read.

`Attachment.read` holds the whole file (up to the read limit, 32 MiB) in memory before the bot keeps
its last few megabytes; streaming keeps the tail as it goes, so a download never holds much more than
the input cap, and the byte budget can count what it really holds.
"""

from __future__ import annotations

from collections import deque

import aiohttp
import discord

_CHUNK = 256 * 1024
_BOMS = (b"\xff\xfe", b"\xfe\xff")


async def fetch_tail(
    session: aiohttp.ClientSession, attachment: discord.Attachment, keep: int
) -> tuple[bytes | bytearray, int]:
    """The last `keep` bytes of the file (the whole file when it is smaller) and its size. A UTF-16
    byte-order mark at its start is kept in front of the tail, which then starts at an even offset."""
    # The chunks as they came, the oldest dropped once the rest still hold `keep` bytes: a buffer cut
    # at its front would be copied whole at its next growth, megabytes for every chunk of a long log,
    # with the interpreter lock held.
    chunks: deque[bytes] = deque()
    held = 0
    head = b""
    total = 0
    async with session.get(attachment.url) as response:
        if response.status != 200:
            raise discord.HTTPException(response, "attachment download failed")
        async for chunk in response.content.iter_chunked(_CHUNK):
            if total < 2:
                head = (head + chunk)[:2]
            total += len(chunk)
            chunks.append(chunk)
            held += len(chunk)
            while held - len(chunks[0]) >= keep:
                held -= len(chunks.popleft())
    if total > keep:
        cut = held - keep
        if head in _BOMS and (total - keep) % 2:
            cut += 1
        chunks[0] = chunks[0][cut:]
        if head in _BOMS:
            chunks.appendleft(head)
    data = bytearray()
    while chunks:  # each chunk let go as it is copied: never two copies of the tail at once
        data += chunks.popleft()
    return data, total
