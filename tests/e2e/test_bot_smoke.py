"""`oomcheck bot` as a real subprocess (through run_bot.py) against the fake: log in, sync the
commands, answer one message, exit cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from .cases import CONFIG, ROOT, fenced
from .fakecord import FakeDiscord

pytestmark = pytest.mark.e2e

PASTED = "# pasted-marker: a member's own words\n"


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
async def test_s15_cli_entry_point_in_a_subprocess(fake: FakeDiscord, tmp_path: Path, level: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OOMCHECK_", "DISCORD_"))}
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": fake.token,
            "OOMCHECK_GUILD_IDS": str(fake.guild_id),
            "OOMCHECK_HELP_CHANNEL_IDS": str(fake.help_channel),
            "OOMCHECK_DATABASE_PATH": str(tmp_path / "bot.sqlite3"),
            "OOMCHECK_HEARTBEAT_PATH": str(tmp_path / "heartbeat"),
            "OOMCHECK_DEFAULT_LANGUAGE": "en",
            "OOMCHECK_LOG_LEVEL": level,
        }
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.e2e.run_bot",
        fake.base_url,
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake.wait_connected(timeout=60)
        await fake.wait_for(lambda: fake.commands.get(fake.guild_id), what="the command sync")
        msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG + PASTED), mention_bot=True)
        await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), timeout=30, what="the reply")
        proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    assert fake.token.encode() not in out + err, "the token must never reach the logs"
    # Not even at DEBUG, where discord.py would log whole gateway events and HTTP bodies.
    assert b"pasted-marker" not in out + err, "message text must never reach the logs"
    assert (tmp_path / "bot.sqlite3").exists()
