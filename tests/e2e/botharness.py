"""The product's bot (`bot.app.create_bot`) started against the fake, with a temp SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord

from bot.app import create_bot
from bot.links import LinkFetcher
from bot.settings import BotSettings

from . import harness
from .fakecord import FakeDiscord
from .fakecord.redirect import RefuseAllResolver


class Bots:
    """Starts, restarts and stops the real bot; every start reuses the same database file."""

    def __init__(self, fake: FakeDiscord, tmp_path: Path) -> None:
        self.fake = fake
        self.tmp_path = tmp_path
        self.database = tmp_path / "oomcheck.sqlite3"
        self.current: harness.Running[discord.Client] | None = None
        self.starts = 0

    def settings(self, **overrides: Any) -> BotSettings:
        fake = self.fake
        values: dict[str, Any] = {
            "DISCORD_TOKEN": fake.token,
            "guild_ids": [fake.guild_id],
            "help_channel_ids": [fake.help_channel, *fake.extra_help_channels],
            "forum_channel_ids": [fake.forum],
            "moderator_role_ids": [fake.moderator_role_id],
            "default_language": "en",
            "user_cooldown_seconds": 0,
            "channel_replies_per_minute": 10_000,
            "database_path": self.database,
            "heartbeat_path": self.tmp_path / "heartbeat",
            # A retried 5xx waits milliseconds here, not seconds.
            "delivery_backoff_seconds": 0.01,
            # No look-back at start unless a test asks for it: most tests count the history reads.
            "catchup_messages": 0,
        }
        values.update(overrides)
        return BotSettings(_env_file=None, **values)

    async def start(self, **overrides: Any) -> harness.Running[discord.Client]:
        client = create_bot(self.settings(**overrides), **harness.client_options())
        # Links are fetched by the bot's own session: in the tests it resolves no name at all, unless a
        # test points it at its local paste server (tests/e2e/test_bot_media.py).
        client.service.links = LinkFetcher(resolver=RefuseAllResolver())
        self.starts += 1
        self.current = await harness.start(client, self.fake)
        return self.current

    async def stop(self) -> None:
        if self.current is not None:
            running, self.current = self.current, None
            await running.stop()

    async def restart(self, **overrides: Any) -> harness.Running[discord.Client]:
        """A new process in all but name: a new client object, the same database file."""
        await self.stop()
        return await self.start(**overrides)
