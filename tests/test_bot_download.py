"""Streaming attachment downloads keep the same tail as reading the whole file would."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.download import fetch_tail
from bot.inputs import read_text

FILES = {
    "/short.log": b"a short log\nCUDA out of memory\n",
    "/long.log": "".join(f"step {n}: loss 0.{n:04d}\n" for n in range(40_000)).encode(),
    "/utf16.log": b"\xff\xfe" + "".join(f"ステップ {n}\r\n" for n in range(30_000)).encode("utf-16-le"),
}


@pytest.fixture
async def cdn() -> AsyncIterator[str]:
    async def serve(request: web.Request) -> web.Response:
        return web.Response(body=FILES[request.path])

    app = web.Application()
    app.router.add_get("/{name}", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


@pytest.mark.parametrize("path", sorted(FILES))
@pytest.mark.parametrize("keep", [1000, 4097, 300_000, 10_000_000])
async def test_a_streamed_tail_reads_as_the_whole_file_does(cdn: str, path: str, keep: int) -> None:
    whole = FILES[path]
    attachment: Any = SimpleNamespace(url=cdn + path)
    async with aiohttp.ClientSession() as session:
        data, total = await fetch_tail(session, attachment, keep)
    assert total == len(whole)
    assert len(data) <= keep + 2  # the tail, and a byte-order mark in front of it
    assert read_text(data, keep, total) == read_text(whole, keep, len(whole))
