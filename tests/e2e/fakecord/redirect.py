"""Point discord.py at the fake (option A of the research note) and make anything else fail closed."""

from __future__ import annotations

import socket
from typing import Any

import aiohttp
import discord.asset
import discord.gateway
import discord.http
import yarl
from aiohttp.abc import AbstractResolver, ResolveResult


class RefuseAllResolver(AbstractResolver):
    """Resolves no name at all: only IP-literal URLs (the fake on 127.0.0.1) can be reached."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # aiohttp builds its default resolver as `DefaultResolver(loop=...)`; accept and ignore that.
        super().__init__()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        raise OSError(f"fakecord: refusing to resolve {host!r}; the bot tried to leave the machine")

    async def close(self) -> None:
        return None


def point_discord_at(base_url: str, setattr_: Any = setattr) -> None:
    """Redirect REST, gateway and CDN class attributes to `base_url` (http://127.0.0.1:PORT).

    `setattr_` is `monkeypatch.setattr` in tests (so the values are restored) and plain setattr in
    the subprocess wrapper.
    """
    host = yarl.URL(base_url)
    if host.host != "127.0.0.1":
        raise ValueError("fakecord only serves on 127.0.0.1")
    setattr_(discord.http.Route, "BASE", f"{base_url}/api/v10")
    setattr_(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(f"ws://127.0.0.1:{host.port}/"))
    setattr_(discord.asset.Asset, "BASE", f"{base_url}/cdn")


def refusing_connector() -> aiohttp.TCPConnector:
    return aiohttp.TCPConnector(resolver=RefuseAllResolver())
