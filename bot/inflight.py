"""What the bot is in the middle of answering, so that a graceful stop can wait for it (within a
bound) and then say clearly what it could not finish."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import discord

from bot.delivery import Where


class InFlight:
    def __init__(self) -> None:
        # Set once a stop has begun: nothing new is started (the next start catches messages up).
        self.closing = False
        self._messages: dict[int, Where] = {}
        self._interactions: dict[int, discord.Interaction] = {}
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.contextmanager
    def answering(self, where: Where) -> Iterator[None]:
        """Around the answer to one member's message."""
        key = where.message_id or 0
        self._messages[key] = where
        self._idle.clear()
        try:
            yield
        finally:
            self._messages.pop(key, None)
            self._settle()

    def begin(self, interaction: discord.Interaction) -> None:
        self._interactions[interaction.id] = interaction
        self._idle.clear()

    def end(self, interaction: discord.Interaction) -> None:
        self._interactions.pop(interaction.id, None)
        self._settle()

    def _settle(self) -> None:
        if not self._messages and not self._interactions:
            self._idle.set()

    async def drain(self, timeout: float) -> bool:
        """Wait until nothing is in flight, at most `timeout` seconds; True when it all finished."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def unfinished_messages(self) -> list[Where]:
        return list(self._messages.values())

    def unfinished_interactions(self) -> list[discord.Interaction]:
        return list(self._interactions.values())
