"""Links to pastes and files, followed to a fixed allowlist of hosts and nowhere else.

People post a link to their log or config instead of the text: pastebin, a gist, a GitHub attachment,
hastebin, mclo.gs, a Discord attachment of an earlier message. `paste_links` finds those links in a
message and turns each into the URL of its raw text; `LinkFetcher` fetches one:

- HTTPS only, to an allowlisted host; redirects are followed one by one and only to allowlisted hosts;
- never to a private, loopback, link-local or otherwise non-public address: the connector's resolver
  refuses such a name before any connection (`GuardedResolver`; tests inject their own resolver and
  address check, the product's refuses 127.0.0.1);
- a size cap (a larger declared length is refused unread, and the body is read no further than the
  cap) and a timeout per fetch; no proxy, cookie or credential from the environment.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

MAX_LINKS = 3  # links read from one message
# Hosts that only ever answer a redirect from an allowlisted host (GitHub's file storage).
_REDIRECT_HOSTS = frozenset({"objects.githubusercontent.com", "release-assets.githubusercontent.com"})
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`|]{4,2000}", re.IGNORECASE)
_ID = r"[A-Za-z0-9_-]{2,64}"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refusal(str):
    """Why a link was not read: one of the `REFUSALS`, a catalogue key's suffix."""

    __slots__ = ()


REFUSALS = ("host", "address", "size", "timeout", "status", "unreachable")


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 8 * 1024 * 1024
    timeout_seconds: float = 15.0
    max_redirects: int = 4


@dataclass(frozen=True)
class Fetched:
    url: str  # the link as the member posted it
    data: bytes | None = None
    refusal: Refusal | None = None


def _raw_url(link: str) -> str | None:
    """The URL of the raw text behind a link to an allowlisted host; None for any other link."""
    parts = urlsplit(link)
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    if parts.port not in (None, 443) or parts.username or parts.password:
        return None
    if host == "pastebin.com":
        m = re.fullmatch(rf"/(?:raw/)?({_ID})", path)
        return f"https://pastebin.com/raw/{m.group(1)}" if m else None
    if host == "gist.github.com":
        m = re.fullmatch(rf"/({_ID})/([0-9a-f]{{8,40}})(?:/raw)?", path)
        return f"https://gist.githubusercontent.com/{m.group(1)}/{m.group(2)}/raw" if m else None
    if host in ("gist.githubusercontent.com", "raw.githubusercontent.com"):
        return f"https://{host}{path}" if path.count("/") >= 3 else None
    if host == "github.com":
        ok = re.fullmatch(r"/user-attachments/(?:files|assets)/[\w./-]+", path)
        return f"https://github.com{path}" if ok else None
    if host in ("hastebin.com", "www.toptal.com", "toptal.com"):
        m = re.fullmatch(rf"(?:/developers/hastebin)?/(?:raw/)?({_ID})(?:\.\w{{1,8}})?", path)
        if m is None or (host != "hastebin.com" and not path.startswith("/developers/hastebin/")):
            return None
        base = (
            "https://hastebin.com" if host == "hastebin.com" else "https://www.toptal.com/developers/hastebin"
        )
        return f"{base}/raw/{m.group(1)}"
    if host == "mclo.gs":
        m = re.fullmatch(rf"/({_ID})", path)
        return f"https://api.mclo.gs/1/raw/{m.group(1)}" if m else None
    if host in ("cdn.discordapp.com", "media.discordapp.net"):
        # Discord signs attachment links (ex, is, hm): the query is part of the link.
        return f"https://{host}{path}{query}" if path.startswith("/attachments/") else None
    return None


# Every host a fetch may reach, redirects included (the rewrites above name the same ones).
_HOSTS = frozenset(
    {
        "pastebin.com",
        "gist.github.com",
        "gist.githubusercontent.com",
        "raw.githubusercontent.com",
        "github.com",
        "hastebin.com",
        "www.toptal.com",
        "toptal.com",
        "api.mclo.gs",
        "mclo.gs",
        "cdn.discordapp.com",
        "media.discordapp.net",
        *_REDIRECT_HOSTS,
    }
)


def link_label(link: str) -> str:
    """A link as the reply names it: without its query (Discord's signatures) or fragment."""
    parts = urlsplit(link)
    return f"https://{parts.hostname or ''}{parts.path}"


def paste_links(text: str) -> list[tuple[str, str]]:
    """The links of `text` to allowlisted pastes and files, as (the link, the URL fetched), at most
    `MAX_LINKS`, each once. Links to any other host are not returned: they are not ours to follow."""
    out: list[tuple[str, str]] = []
    for match in _URL.finditer(text):
        link = match.group(0).rstrip(".,;:!?")
        raw = _raw_url(link)
        if raw is not None and all(raw != seen for _, seen in out):
            out.append((link, raw))
            if len(out) == MAX_LINKS:
                break
    return out


def public_address(address: Address) -> bool:
    """An address on the public internet: not private, loopback, link-local, shared, reserved or
    multicast (an IPv4 address inside IPv6 is judged as itself)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


class ForbiddenAddress(OSError):
    """A name resolved to an address the fetcher may not connect to."""


class GuardedResolver(AbstractResolver):
    """A resolver that refuses a name when any of its addresses is not allowed, so a connection to a
    private address is never opened, whatever a redirect or the DNS says."""

    def __init__(self, inner: AbstractResolver, allowed: Callable[[Address], bool] = public_address) -> None:
        self._inner = inner
        self._allowed = allowed

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        for result in results:
            if not self._allowed(ipaddress.ip_address(result["host"])):
                raise ForbiddenAddress(f"{host} resolves to an address that is not public")
        return results

    async def close(self) -> None:
        await self._inner.close()


class LinkFetcher:
    """Fetches allowlisted links through one aiohttp session of its own (opened on first use)."""

    def __init__(
        self,
        limits: FetchLimits = FetchLimits(),
        *,
        resolver: AbstractResolver | None = None,
        address_allowed: Callable[[Address], bool] = public_address,
        ssl: Any = True,
    ) -> None:
        self.limits = limits
        self._resolver = resolver
        self._address_allowed = address_allowed
        self._ssl = ssl
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            guarded = GuardedResolver(self._resolver or aiohttp.ThreadedResolver(), self._address_allowed)
            connector = aiohttp.TCPConnector(resolver=guarded, ssl=self._ssl, limit=4)
            self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,  # no proxy or .netrc from the environment
                cookie_jar=aiohttp.DummyCookieJar(),
                headers={"User-Agent": "oomcheck (Discord support bot; reads pasted logs)"},
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def fetch(self, link: str, url: str, *, max_bytes: int | None = None) -> Fetched:
        """`url` (the raw form of `link`) read up to `max_bytes` (default: the limits'), or why not."""
        cap = min(max_bytes or self.limits.max_bytes, self.limits.max_bytes)
        try:
            async with asyncio.timeout(self.limits.timeout_seconds):
                return await self._follow(link, url, cap)
        except TimeoutError:
            return Fetched(link, refusal=Refusal("timeout"))

    async def _follow(self, link: str, url: str, cap: int) -> Fetched:
        session = self._open()
        for _ in range(self.limits.max_redirects + 1):
            parts = urlsplit(url)
            if parts.scheme != "https" or (parts.hostname or "").lower() not in _HOSTS:
                return Fetched(link, refusal=Refusal("host"))
            try:
                async with session.get(url, allow_redirects=False) as response:
                    if response.status in (301, 302, 303, 307, 308) and "Location" in response.headers:
                        url = urljoin(url, response.headers["Location"])
                        continue
                    if response.status != 200:
                        return Fetched(link, refusal=Refusal("status"))
                    return await self._body(link, response, cap)
            except aiohttp.ClientConnectorError as exc:
                refused = isinstance(exc.os_error, ForbiddenAddress)
                return Fetched(link, refusal=Refusal("address" if refused else "unreachable"))
            except aiohttp.ClientError:
                return Fetched(link, refusal=Refusal("unreachable"))
        return Fetched(link, refusal=Refusal("host"))  # a redirect loop goes nowhere we read

    async def _body(self, link: str, response: aiohttp.ClientResponse, cap: int) -> Fetched:
        if response.content_length is not None and response.content_length > cap:
            return Fetched(link, refusal=Refusal("size"))
        body = bytearray()
        async for chunk in response.content.iter_chunked(64 * 1024):
            body += chunk
            if len(body) > cap:
                # Leaving the block closes the connection: nothing past this chunk is read.
                return Fetched(link, refusal=Refusal("size"))
        return Fetched(link, bytes(body))
