"""The health check as deployed: the real bot (`oomcheck bot`, in a subprocess) connected to the local
fake Discord writes its heartbeat where the systemd unit puts it, and oomcheck-health.service's own
command, run as systemd would run it, leaves that bot alone; a stop signal ends the bot cleanly.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.fakecord import FakeDiscord
from tests.test_deploy import HEALTH_UNIT, INSTALLED_BINARY, UNIT, _directives

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _unit_environment(unit: Path, state: Path, runtime: Path) -> dict[str, str]:
    env: dict[str, str] = {}
    for value in _directives(unit)["Environment"]:
        for assignment in shlex.split(value):
            name, _, setting = assignment.partition("=")
            env[name] = setting.replace("%S", str(state)).replace("%t", str(runtime))
    return env


async def test_a_connected_bot_passes_the_units_health_check(tmp_path: Path) -> None:
    state, runtime = tmp_path / "lib", tmp_path / "run"
    (state / "oomcheck").mkdir(parents=True)
    fake = FakeDiscord()
    await fake.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OOMCHECK_", "DISCORD_"))}
    env.update(_unit_environment(UNIT, state, runtime))
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": fake.token,
            "OOMCHECK_GUILD_IDS": str(fake.guild_id),
            "OOMCHECK_HEARTBEAT_INTERVAL_SECONDS": "0.5",
        }
    )
    heartbeat = Path(env["OOMCHECK_HEARTBEAT_PATH"])
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.e2e.run_bot",
        fake.base_url,
        cwd=state / "oomcheck",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake.wait_connected(timeout=60)
        await fake.wait_for(heartbeat.exists, timeout=30, what="the first heartbeat")

        calls = tmp_path / "systemctl-calls"
        systemctl = tmp_path / "systemctl"
        systemctl.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n', encoding="utf-8")
        systemctl.chmod(0o755)
        command = _directives(HEALTH_UNIT)["ExecStart"][0]
        command = command.replace(INSTALLED_BINARY, str(Path(sys.executable).parent / "oomcheck"))
        command = command.replace("/usr/bin/systemctl", str(systemctl))
        check_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
        check_env.update(_unit_environment(HEALTH_UNIT, state, runtime))
        check = subprocess.run(
            shlex.split(command),
            env=check_env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd="/",
        )
        assert check.returncode == 0, check.stderr
        assert not calls.exists(), calls.read_text(encoding="utf-8")

        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await fake.close()
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    assert (state / "oomcheck" / "oomcheck.sqlite3").exists()
