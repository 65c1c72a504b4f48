"""The poster's language wins (issue #19): the server's default language answers only a post with no
words of its own (a bare config or log); an English post gets English under a Japanese default, and
the reverse. Run with the real engine, through the bot's service."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.app import create_bot
from tests.bot_fakes import pasted, settings
from tests.conftest import EXAMPLES

CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")


def _language(tmp_path: Path, default: str, text: str) -> str:
    async def run() -> str:
        client = create_bot(settings(tmp_path, default_language=default))
        try:
            await client.service.open_store()
            prepared = await client.service.prepare(pasted(text))
            return prepared.language
        finally:
            await client.close()

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("default", "text", "want"),
    [
        ("ja", "My FLUX lora runs out of memory at step 2, here is my config:\n" + CONFIG, "en"),
        ("en", "ステップ 2 でメモリ不足になります。設定です：\n" + CONFIG, "ja"),
        ("ja", CONFIG, "ja"),  # a bare config has no words: the server's default
        ("en", CONFIG, "en"),
    ],
)
def test_the_posters_language_wins_over_the_servers_default(
    tmp_path: Path, default: str, text: str, want: str
) -> None:
    assert _language(tmp_path, default, text) == want
