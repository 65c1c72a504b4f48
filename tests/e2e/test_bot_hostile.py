"""Every hostile input of the project (tests/hostile/fixtures) posted as a message and as a file:
each gets a bounded reply, no secret is echoed, and the bot still answers afterwards."""

from __future__ import annotations

import re

import pytest

from .botharness import Bots
from .cases import CONFIG, ROOT, fenced
from .fakecord import FakeDiscord
from .fakecord.payloads import Json

pytestmark = pytest.mark.e2e

FIXTURES = ROOT / "tests" / "hostile" / "fixtures"
# Token shapes (Hugging Face, Discord bot tokens) that must never come back from the bot.
SECRET = re.compile(r"hf_[A-Za-z0-9]{20,}|[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}")


def hostile_inputs() -> list[tuple[str, bytes]]:
    if not FIXTURES.is_dir():
        return []
    return [(p.name, p.read_bytes()) for p in sorted(FIXTURES.iterdir()) if p.is_file()]


def as_message_text(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", "replace")
    else:
        text = data.decode("utf-8", "replace")
    # A member's message holds at most 2,000 characters.
    return text.replace("\x00", "")[:1900]


def bounded(fake: FakeDiscord, reply: Json) -> str:
    text = fake.text_of(reply)
    assert len(text) < 2_000_000, "reply size must be bounded"
    assert not SECRET.search(text), "a pasted secret was echoed back"
    return text


@pytest.mark.parametrize(("name", "data"), hostile_inputs(), ids=[name for name, _ in hostile_inputs()])
async def test_s14_hostile_input_as_message_and_as_file(
    fake: FakeDiscord, bot: Bots, name: str, data: bytes
) -> None:
    text = as_message_text(data)
    expected = []
    if text.strip():
        expected.append(await fake.user_sends(fake.alice, fake.general, text, mention_bot=True))
    expected.append(
        await fake.user_sends(fake.alice, fake.general, "", files=[(name, data)], mention_bot=True)
    )
    for msg in expected:
        replies = await fake.wait_for(
            lambda: fake.replies_to(int(msg["id"])),  # noqa: B023 (awaited within the iteration)
            what=f"a reply to {name}",
        )
        bounded(fake, replies[0])
    still = await fake.user_sends(fake.bob, fake.help_channel, fenced(CONFIG))
    await fake.wait_for(lambda: fake.replies_to(int(still["id"])), what="an answer after the hostile input")
    await fake.settle()
    assert len(fake.bot_posts()) == len(expected) + 1


def test_the_hostile_fixtures_are_there() -> None:
    # Without them the scenario above would be parametrized over nothing and pass silently.
    names = {name for name, _ in hostile_inputs()}
    assert {"secrets.yaml", "secrets.log", "mentions.txt"} <= names and len(names) >= 20, sorted(names)
