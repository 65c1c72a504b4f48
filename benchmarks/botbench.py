"""Bot round trip on the fake Discord (tests/e2e/fakecord): a member posts an OOM, the reply arrives.

The product's bot (`bot.app.create_bot`) is measured against a trivial echo bot on the same fake, the
same connector and the same messages, so the ratio shows what the bot itself adds. The two take turns
in blocks (echo, bot, echo, bot, …; each block on a fresh fake), so that both see the same machine
noise, like the other figures' interleaved repetitions.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchmarks.run import Figure

OOM = (
    "my run dies at step 1, please help\n"
    "Error running job: CUDA out of memory. Tried to allocate {mib}.00 MiB. GPU 0 has a total capacity of "
    "23.55 GiB of which 201.31 MiB is free. Including non-PyTorch memory, this process has 23.33 GiB memory "
    "in use. Of the allocated memory 22.60 GiB is allocated by PyTorch, and 301.77 MiB is reserved by "
    "PyTorch but unallocated.\n"
)
WARMUP = 5
TIMEOUT_S = 10.0
BLOCKS = 4


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _round_trips(fake: Any, count: int, first: int = 0) -> list[float]:
    """Seconds from the member's MESSAGE_CREATE to the bot's reply, one message at a time."""
    times: list[float] = []
    for i in range(count + WARMUP):
        start = time.perf_counter()
        # A different size each time (over all blocks too), so no de-duplication of identical inputs
        # can answer from memory. A mention is answered even while the engine finds nothing; auto
        # mode differs by one check.
        mib = 100 + first + i
        msg = await fake.user_sends(fake.alice, fake.help_channel, OOM.format(mib=mib), mention_bot=True)
        await fake.wait_for(lambda msg=msg: fake.replies_to(int(msg["id"])), timeout=TIMEOUT_S, what="reply")
        if i >= WARMUP:
            times.append(time.perf_counter() - start)
    return times


def _echo_client(options: dict[str, Any]) -> Any:
    import discord

    class Echo(discord.Client):
        async def on_message(self, message: discord.Message) -> None:
            if message.author.bot:
                return
            await message.reply(
                message.content[:1900] or "echo",
                mention_author=False,
                allowed_mentions=discord.AllowedMentions.none(),
            )

    intents = discord.Intents.default()
    intents.message_content = True
    return Echo(intents=intents, **options)


async def _measure(count: int) -> tuple[list[float], list[float], list[str]]:
    from bot.app import create_bot
    from tests.e2e import harness
    from tests.e2e.botharness import Bots
    from tests.e2e.fakecord import FakeDiscord, point_discord_at

    results: dict[str, list[float]] = {"echo": [], "bot": []}
    complaints: list[str] = []
    per_block = -(-count // BLOCKS)
    blocks = [(block, name) for block in range(BLOCKS) for name in ("echo", "bot")]
    with tempfile.TemporaryDirectory() as tmp:
        for block, name in blocks:
            fake = FakeDiscord()
            await fake.start()
            point_discord_at(fake.base_url)
            try:
                if name == "echo":
                    client = _echo_client(harness.client_options())
                else:
                    settings = Bots(fake, Path(tmp)).settings()
                    client = create_bot(settings, **harness.client_options())
                running = await harness.start(client, fake)
                try:
                    first = block * (per_block + WARMUP)
                    results[name] += await _round_trips(fake, per_block, first)
                    await fake.settle(quiet=0.2)  # let the bot finish its bookkeeping before closing
                except AssertionError as exc:
                    raise AssertionError(f"{name}: {exc}") from exc
                finally:
                    await running.stop()
                complaints += [f"{name}: unhandled route {u}" for u in fake.unhandled]
                complaints += [f"{name}: rejected payload {v}" for v in fake.violations]
            finally:
                await fake.close()
    return results["echo"], results["bot"], complaints


def bot_round_trip(count: int) -> list[Figure]:
    from benchmarks.run import Figure

    try:
        echo, bot, complaints = asyncio.run(_measure(count))
    except AssertionError as exc:
        # A bot that never answers is a failure to report, not a figure to skip.
        return [Figure("bot round trip", f"no reply ({exc})", "a reply to every message", False)]
    for line in complaints[:5]:
        print(f"    {line[:200]}")
    e50, e99 = statistics.median(echo), _percentile(echo, 0.99)
    b50, b99 = statistics.median(bot), _percentile(bot, 0.99)
    ms = 1000
    return [
        Figure(
            f"bot round trip p50 over {len(bot)} messages: bot / echo bot",
            f"{b50 / e50:.2f}× (bot {b50 * ms:.1f} ms, echo {e50 * ms:.1f} ms)",
            "≤ 1.5×",
            b50 / e50 <= 1.5,
        ),
        Figure(
            "bot round trip p99",
            f"{b99 * ms:.1f} ms (echo {e99 * ms:.1f} ms, {b99 / e99:.2f}×)",
            "< 50 ms",
            b99 < 0.05,
        ),
    ]
