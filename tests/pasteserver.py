"""A local HTTPS server standing in for the paste hosts: the allowlisted names are mapped to it by
the test resolver, its certificate (made by trustme) names them, and the fetcher trusts only the
test CA. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import trustme
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult

from bot.links import FetchLimits, LinkFetcher, public_address

NAMES = [
    "pastebin.com",
    "gist.github.com",
    "gist.githubusercontent.com",
    "raw.githubusercontent.com",
    "github.com",
    "objects.githubusercontent.com",
    "hastebin.com",
    "www.toptal.com",
    "api.mclo.gs",
    "cdn.discordapp.com",
    "media.discordapp.net",
    "127.0.0.1",
]


class MappedResolver(AbstractResolver):
    """Names to fixed addresses (any port the test server has); every other name fails to resolve."""

    def __init__(self, mapping: dict[str, tuple[str, int]]) -> None:
        self.mapping = mapping
        self.asked: list[str] = []

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        if host not in self.mapping:
            raise OSError(f"no such name in the test: {host}")
        address, mapped_port = self.mapping[host]
        return [
            ResolveResult(
                hostname=host, host=address, port=mapped_port, family=socket.AF_INET, proto=0, flags=0
            )
        ]

    async def close(self) -> None:
        return None


@dataclass
class PasteServer:
    """The routes the tests serve: `pages` maps a path to its body; `requests` records every path asked."""

    pages: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    streamed: list[int] = field(default_factory=list)  # bytes written by the endless route
    port: int = 0
    ca: trustme.CA = field(default_factory=trustme.CA)

    def client_ssl(self) -> ssl.SSLContext:
        context = ssl.create_default_context()
        self.ca.configure_trust(context)
        return context

    def resolver(self, **extra: tuple[str, int]) -> MappedResolver:
        mapping = {name: ("127.0.0.1", self.port) for name in NAMES}
        mapping.update(extra)
        return MappedResolver(mapping)

    def fetcher(self, limits: FetchLimits | None = None, *, test_address: bool = True) -> LinkFetcher:
        """A fetcher that reaches this server: the names mapped to it and, with `test_address`,
        127.0.0.1 allowed on top of the product's public addresses."""
        allowed = (lambda a: str(a) == "127.0.0.1" or public_address(a)) if test_address else public_address
        return LinkFetcher(
            limits or FetchLimits(), resolver=self.resolver(), address_allowed=allowed, ssl=self.client_ssl()
        )

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path_qs
        self.requests.append(path)
        if path in self.redirects:
            raise web.HTTPFound(self.redirects[path])
        if request.path == "/slow":
            await asyncio.sleep(30)
        if request.path == "/endless":
            response = web.StreamResponse()
            await response.prepare(request)
            chunk = b"x" * 65536 + b"\n"
            written = 0
            self.streamed.append(0)
            try:
                for _ in range(2048):  # 128 MiB, far more than any cap or socket buffer
                    await response.write(chunk)
                    written += len(chunk)
                    self.streamed[-1] = written
            except (ConnectionResetError, RuntimeError, OSError):
                pass
            return response
        if request.path in self.pages or path in self.pages:
            return web.Response(body=self.pages.get(path, self.pages.get(request.path)))
        return web.Response(status=404)


async def serve(server: PasteServer) -> AsyncIterator[PasteServer]:
    cert = server.ca.issue_cert(*NAMES)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", server.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    server.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield server
    finally:
        await runner.cleanup()
