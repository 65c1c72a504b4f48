"""Links to pastes (bot/links.py): which links are followed and how, against a local HTTPS server
that the allowlisted names are mapped to. Nothing here reaches the internet."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.links import FetchLimits, LinkFetcher, paste_links, public_address
from tests.pasteserver import PasteServer, serve

LOG = b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.\n"


@pytest.fixture
async def server() -> AsyncIterator[PasteServer]:
    async for running in serve(PasteServer()):
        yield running


async def fetch_one(fetcher: LinkFetcher, text: str) -> tuple[bytes | None, str | None]:
    [(link, url)] = paste_links(text)
    try:
        got = await fetcher.fetch(link, url)
    finally:
        await fetcher.close()
    return got.data, got.refusal


# ---------------------------------------------------------------- which links, fetched where


@pytest.mark.parametrize(
    ("posted", "fetched"),
    [
        ("see https://pastebin.com/Ab12Cd34.", "https://pastebin.com/raw/Ab12Cd34"),
        ("https://pastebin.com/raw/Ab12Cd34", "https://pastebin.com/raw/Ab12Cd34"),
        (
            "https://gist.github.com/taro/0123456789abcdef0123",
            "https://gist.githubusercontent.com/taro/0123456789abcdef0123/raw",
        ),
        (
            "https://raw.githubusercontent.com/taro/cfg/main/job.yaml",
            "https://raw.githubusercontent.com/taro/cfg/main/job.yaml",
        ),
        (
            "https://github.com/user-attachments/files/123456/train_log.txt",
            "https://github.com/user-attachments/files/123456/train_log.txt",
        ),
        ("https://hastebin.com/ewofaxuqok.yaml", "https://hastebin.com/raw/ewofaxuqok"),
        (
            "https://www.toptal.com/developers/hastebin/ewofaxuqok",
            "https://www.toptal.com/developers/hastebin/raw/ewofaxuqok",
        ),
        ("https://mclo.gs/aB3dE9f", "https://api.mclo.gs/1/raw/aB3dE9f"),
        (
            "<https://cdn.discordapp.com/attachments/1/2/log.txt?ex=6a&is=6b&hm=ff>",
            "https://cdn.discordapp.com/attachments/1/2/log.txt?ex=6a&is=6b&hm=ff",
        ),
        ("http://pastebin.com/Ab12Cd34", "https://pastebin.com/raw/Ab12Cd34"),  # fetched over HTTPS
    ],
)
def test_allowlisted_links_are_fetched_in_their_raw_form(posted: str, fetched: str) -> None:
    assert [url for _, url in paste_links(posted)] == [fetched]


@pytest.mark.parametrize(
    "posted",
    [
        "https://example.com/log.txt",
        "https://pastebin.com.evil.example/raw/Ab12Cd34",
        "https://evil.example/?u=https%3A%2F%2Fpastebin.com",
        "https://pastebin.com:8443/raw/Ab12Cd34",
        "https://user:pw@pastebin.com/raw/Ab12Cd34",
        "https://github.com/ostris/ai-toolkit/issues/98",
        "https://cdn.discordapp.com/avatars/1/abc.png",
        "https://127.0.0.1/raw/x",
        "https://discord.com/channels/1/2/3",
    ],
)
def test_other_links_are_not_followed(posted: str) -> None:
    assert paste_links(posted) == []


def test_a_message_is_read_up_to_three_links_each_once() -> None:
    text = " ".join(f"https://pastebin.com/Paste{i}" for i in (1, 1, 2, 3, 4))
    assert [url for _, url in paste_links(text)] == [f"https://pastebin.com/raw/Paste{i}" for i in (1, 2, 3)]


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.215.14", True),
        ("2606:4700::6810:84e5", True),
        ("127.0.0.1", False),
        ("10.0.0.7", False),
        ("172.16.3.4", False),
        ("192.168.1.10", False),
        ("169.254.169.254", False),  # a cloud's metadata service
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("::1", False),
        ("fe80::1", False),
        ("fd00::1", False),
        ("::ffff:127.0.0.1", False),
        ("224.0.0.1", False),
    ],
)
def test_only_public_addresses_are_reachable(address: str, public: bool) -> None:
    import ipaddress

    assert public_address(ipaddress.ip_address(address)) is public


# ---------------------------------------------------------------- fetching


async def test_a_pastebin_link_is_read(server: PasteServer) -> None:
    server.pages["/raw/Ab12Cd34"] = LOG
    assert await fetch_one(server.fetcher(), "https://pastebin.com/Ab12Cd34") == (LOG, None)
    assert server.requests == ["/raw/Ab12Cd34"]


async def test_a_gist_is_read_through_its_redirect(server: PasteServer) -> None:
    server.redirects["/taro/0123456789abcdef0123/raw"] = (
        "https://gist.githubusercontent.com/taro/0123456789abcdef0123/raw/abc/train.log"
    )
    server.pages["/taro/0123456789abcdef0123/raw/abc/train.log"] = LOG
    data, refusal = await fetch_one(server.fetcher(), "https://gist.github.com/taro/0123456789abcdef0123")
    assert (data, refusal) == (LOG, None)


async def test_the_product_never_connects_to_127_0_0_1(server: PasteServer) -> None:
    server.pages["/raw/Ab12Cd34"] = LOG
    fetcher = server.fetcher(test_address=False)
    assert await fetch_one(fetcher, "https://pastebin.com/Ab12Cd34") == (None, "address")
    assert server.requests == []


async def test_a_redirect_to_127_0_0_1_is_refused(server: PasteServer) -> None:
    server.redirects["/raw/Ab12Cd34"] = f"https://127.0.0.1:{server.port}/secret"
    server.pages["/secret"] = b"internal"
    assert await fetch_one(server.fetcher(), "https://pastebin.com/Ab12Cd34") == (None, "host")
    assert server.requests == ["/raw/Ab12Cd34"]


async def test_a_redirect_to_another_host_or_to_http_is_refused(server: PasteServer) -> None:
    server.redirects["/raw/One"] = "https://example.com/log.txt"
    server.redirects["/raw/Two"] = "http://pastebin.com/raw/Three"
    for paste in ("One", "Two"):
        assert await fetch_one(server.fetcher(), f"https://pastebin.com/{paste}") == (None, "host")
    assert server.requests == ["/raw/One", "/raw/Two"]


async def test_a_name_that_resolves_to_a_private_address_is_refused(server: PasteServer) -> None:
    fetcher = server.fetcher()
    resolver = server.resolver(**{"pastebin.com": ("10.0.0.7", server.port)})
    allowed = fetcher._address_allowed
    fetcher = LinkFetcher(resolver=resolver, address_allowed=allowed, ssl=server.client_ssl())
    assert await fetch_one(fetcher, "https://pastebin.com/Ab12Cd34") == (None, "address")


async def test_a_host_off_the_list_is_refused_without_a_lookup(server: PasteServer) -> None:
    fetcher = server.fetcher()
    got = await fetcher.fetch("https://example.com/log", "https://example.com/log")
    await fetcher.close()
    assert got.refusal == "host"
    assert server.requests == []


async def test_a_declared_oversized_body_is_refused_unread(server: PasteServer) -> None:
    server.pages["/raw/Big"] = b"y" * 300_000
    fetcher = server.fetcher(FetchLimits(max_bytes=100_000))
    assert await fetch_one(fetcher, "https://pastebin.com/Big") == (None, "size")


async def test_an_endless_body_is_read_no_further_than_the_cap(server: PasteServer) -> None:
    cap = 1024 * 1024
    assert await fetch_one(server.fetcher(), "https://pastebin.com/raw/Missing") == (None, "status")
    server.redirects["/raw/Endless"] = "/endless"
    assert await fetch_one(server.fetcher(FetchLimits(max_bytes=cap)), "https://pastebin.com/Endless") == (
        None,
        "size",
    )
    # The server could write the cap, what the sockets buffer, and no more: far from its 128 MiB.
    assert server.streamed and server.streamed[-1] < 32 * cap


async def test_a_slow_server_is_given_up_on(server: PasteServer) -> None:
    server.redirects["/raw/Slow"] = "/slow"
    fetcher = server.fetcher(FetchLimits(timeout_seconds=0.5))
    assert await fetch_one(fetcher, "https://pastebin.com/Slow") == (None, "timeout")


async def test_a_big_paste_is_left_to_the_worker_to_decode(server: PasteServer) -> None:
    # Like a big attachment, a big paste stays bytes in the bot's process (decoding megabytes holds the
    # interpreter lock); a small one is text at once.
    from bot.media import ScreenReader, gather_links
    from bot.ocr import OcrLimits
    from bot.textfile import RawText, as_text

    log = ("step 1/3000 loss 0.12\n" * 10_000 + "CUDA out of memory\n").encode()
    server.pages["/raw/Big12345"] = log
    server.pages["/raw/Small123"] = b"CUDA out of memory\n"
    screens = ScreenReader(OcrLimits(), lambda text: None, enabled=False)  # type: ignore[arg-type,return-value]
    fetcher = server.fetcher()
    try:
        big = await gather_links("https://pastebin.com/Big12345", fetcher, screens, cap=8 << 20)
        small = await gather_links("https://pastebin.com/Small123", fetcher, screens, cap=8 << 20)
    finally:
        await fetcher.close()
    (item,) = big.inputs
    assert isinstance(item.content, RawText) and as_text(item.content) == log.decode()
    (text,) = small.inputs
    assert text.content == "CUDA out of memory\n"
