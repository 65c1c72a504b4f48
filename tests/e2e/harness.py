"""Starting and stopping a discord.py client against the fake, the way production does it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Generic, TypeVar

import discord

from .fakecord import FakeDiscord
from .fakecord.redirect import refusing_connector


def client_options() -> dict[str, Any]:
    """Public discord.py Client kwargs every test client gets (a fresh connector per client)."""
    return {"connector": refusing_connector(), "guild_ready_timeout": 0.05}


C = TypeVar("C", bound=discord.Client)


class Running(Generic[C]):
    """A logged-in, connected client and its `connect()` task."""

    def __init__(self, client: C, task: asyncio.Task[None]) -> None:
        self.client = client
        self.task = task

    async def stop(self) -> None:
        await self.client.close()
        # Awaiting the task surfaces any crash inside the gateway loop (e.g. a malformed payload).
        await asyncio.wait_for(self.task, 15)


async def start(client: C, fake: FakeDiscord, *, timeout: float = 15.0) -> Running[C]:
    identifies = fake.identifies
    await client.login(fake.token)
    task = asyncio.create_task(client.connect(reconnect=True))
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            if task.done():
                task.result()
        raise AssertionError("the client did not become ready against the fake")
    await fake.wait_connected(identifies=identifies + 1)
    return Running(client, task)
