"""/oom-estimate: the memory estimate of a pasted config, privately, in the member's language."""

from __future__ import annotations

import pytest

from .botharness import Bots
from .cases import CONFIG, EPHEMERAL, JAPANESE
from .fakecord import FakeDiscord

pytestmark = [pytest.mark.e2e]


async def test_estimate_of_a_pasted_config(fake: FakeDiscord, bot: Bots) -> None:
    shown = await fake.shown(
        await fake.slash_command(fake.alice, fake.general, "oom-estimate", {"text": CONFIG, "gpu": 24})
    )
    assert shown["flags"] & EPHEMERAL
    text = fake.text_of(shown)
    assert "GiB" in text and "24 GB" in text
    assert "training step" in text


async def test_estimate_in_japanese_and_without_a_config(fake: FakeDiscord, bot: Bots) -> None:
    ja = await fake.shown(
        await fake.slash_command(fake.bob, fake.general, "oom-estimate", {"text": CONFIG, "lang": "ja"})
    )
    assert JAPANESE.search(fake.text_of(ja))
    none = await fake.shown(await fake.slash_command(fake.alice, fake.general, "oom-estimate", {}))
    assert fake.text_of(none)


async def test_estimate_of_an_attached_config(fake: FakeDiscord, bot: Bots) -> None:
    # The file is read the way /oom-check reads one (streamed, its bytes held in the budget).
    inter = await fake.slash_command(
        fake.alice,
        fake.general,
        "oom-estimate",
        {"gpu": 24},
        files={"file": ("config.yaml", CONFIG.encode())},
    )
    text = fake.text_of(await fake.shown(inter))
    assert "GiB" in text and "24 GB" in text
    assert "training step" in text
