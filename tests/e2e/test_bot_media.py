"""Links to pastes and screenshots of the console, end to end: the real bot on the fake Discord, the
paste hosts served by a local HTTPS server that the allowlisted names are mapped to (never the
internet), screenshots drawn with Pillow and read back with Tesseract."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import EXAMPLES
from tests.pasteserver import PasteServer, serve
from tests.screenshots import console_png, needs_ocr, photo_like

from .botharness import Bots
from .fakecord import FakeDiscord
from .fakecord.payloads import Json

pytestmark = [pytest.mark.e2e]

OOM_LOG = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
HEADLINE = "Out of memory at step 2 of training"


@pytest.fixture
async def pastes(bot: Bots) -> AsyncIterator[PasteServer]:
    """The paste hosts, and the running bot's fetcher pointed at them (its own resolver and CA)."""
    async for server in serve(PasteServer()):
        assert bot.current is not None
        service = bot.current.client.service  # type: ignore[attr-defined]
        await service.links.close()
        service.links = server.fetcher()
        yield server
        await service.links.close()


async def one_reply(fake: FakeDiscord, msg: Json, *, timeout: float = 15.0) -> str:
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="a reply", timeout=timeout)
    await fake.settle()
    replies = fake.replies_to(int(msg["id"]))
    assert len(replies) == 1, f"expected exactly one reply, got {len(replies)}"
    return fake.text_of(replies[0])


@pytest.mark.parametrize(
    ("posted", "served"),
    [
        ("my run died: https://pastebin.com/Ab12Cd34", "/raw/Ab12Cd34"),
        ("log here https://gist.github.com/taro/0123456789abcdef0123", "/taro/0123456789abcdef0123/raw"),
        (
            "the log from before: https://cdn.discordapp.com/attachments/11/22/train.log?ex=6a&is=6b&hm=ff",
            "/attachments/11/22/train.log?ex=6a&is=6b&hm=ff",
        ),
    ],
    ids=["pastebin", "gist", "discord-attachment-link"],
)
async def test_a_link_to_the_log_is_diagnosed_and_named(
    fake: FakeDiscord, bot: Bots, pastes: PasteServer, posted: str, served: str
) -> None:
    pastes.pages[served] = OOM_LOG.encode()
    msg = await fake.user_sends(fake.alice, fake.help_channel, posted)
    text = await one_reply(fake, msg)
    assert HEADLINE in text
    link = posted.split()[-1].split("?")[0]
    assert f"I read <{link}>." in text
    assert pastes.requests == [served]


async def test_a_link_redirected_to_127_0_0_1_is_refused_with_a_line(
    fake: FakeDiscord, bot: Bots, pastes: PasteServer
) -> None:
    pastes.redirects["/raw/Ab12Cd34"] = f"https://127.0.0.1:{pastes.port}/admin"
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, "https://pastebin.com/Ab12Cd34", mention_bot=True
    )
    text = await one_reply(fake, msg)
    assert "I did not open https://pastebin.com/Ab12Cd34: I only follow links to pastebin" in text
    assert pastes.requests == ["/raw/Ab12Cd34"]


async def test_links_elsewhere_are_never_fetched(fake: FakeDiscord, bot: Bots, pastes: PasteServer) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, "look https://example.com/log.txt")
    other = await fake.user_sends(fake.bob, fake.help_channel, f"```\n{OOM_LOG}\n```")
    await one_reply(fake, other)  # a barrier: the first message was handled before this one
    assert fake.replies_to(int(msg["id"])) == []
    assert pastes.requests == []


@needs_ocr
async def test_a_screenshot_of_the_log_is_diagnosed(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, "here's the error", files=[("console.png", console_png(OOM_LOG))]
    )
    text = await one_reply(fake, msg, timeout=120)
    assert HEADLINE in text
    assert "OOM (read from your screenshot console.png): tried to allocate 512.00 MiB" in text
    assert "I read the text of console.png from the screenshot." in text


@needs_ocr
async def test_a_photo_gets_no_reply_in_auto_mode(fake: FakeDiscord, bot: Bots) -> None:
    photo = await fake.user_sends(
        fake.alice, fake.help_channel, "my setup", files=[("desk.jpg", photo_like())]
    )
    other = await fake.user_sends(fake.bob, fake.help_channel, f"```\n{OOM_LOG}\n```")
    await one_reply(fake, other, timeout=60)  # a barrier: messages are handled in order per channel
    await fake.settle()
    assert fake.replies_to(int(photo["id"])) == []


@needs_ocr
async def test_a_screenshot_read_too_poorly_asks_for_the_text_in_auto_mode(
    fake: FakeDiscord, bot: Bots
) -> None:
    # A read whose figures break the message's arithmetic (291 GiB free on a 23.55 GiB card).
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total\n"
        "capacity of 23.55 GiB of which 291.31 GiB is free. Including non-PyTorch memory, this process\n"
        "has 23.33 GiB memory in use.\n"
    )
    shot = console_png(text, columns=100)
    msg = await fake.user_sends(fake.alice, fake.help_channel, "", files=[("oom.png", shot)])
    reply = await one_reply(fake, msg, timeout=60)
    assert reply.strip() == (
        "I could not read oom.png reliably enough to check it. Please paste the console's text, "
        "or attach the log file."
    )


async def test_without_tesseract_a_mention_with_a_screenshot_asks_for_the_text(
    fake: FakeDiscord, bot: Bots, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot import ocr

    monkeypatch.setattr(ocr, "available", lambda: False)
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    msg = await fake.user_sends(fake.alice, fake.general, "help", files=[("err.png", png)], mention_bot=True)
    text = await one_reply(fake, msg)
    assert "I cannot read images on this server, so I did not read err.png." in text
    assert not [r for r in fake.calls("cdn") if r.path.endswith(".png")], "nothing downloaded"


async def test_oom_check_with_a_link_as_its_text(fake: FakeDiscord, bot: Bots, pastes: PasteServer) -> None:
    pastes.pages["/1/raw/aB3dE9f"] = OOM_LOG.encode()
    inter = await fake.slash_command(
        fake.alice, fake.general, "oom-check", {"text": "https://mclo.gs/aB3dE9f"}
    )
    text = fake.text_of(await fake.shown(inter))
    assert HEADLINE in text
    assert "I read <https://mclo.gs/aB3dE9f>." in text


@needs_ocr
async def test_oom_check_with_a_screenshot_as_its_file(fake: FakeDiscord, bot: Bots) -> None:
    files = {"file": ("console.png", console_png(OOM_LOG, scale=1.25))}
    inter = await fake.slash_command(fake.alice, fake.general, "oom-check", files=files)
    text = fake.text_of(await fake.shown(inter))
    assert HEADLINE in text
    assert "read from your screenshot console.png" in text
