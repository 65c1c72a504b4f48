"""The real bot under load: big logs go to its worker processes, and a burst stays within the byte
budget while every member gets a reply."""

from __future__ import annotations

import os

import pytest

from benchmarks.genlog import MiB, generate_log

from .botharness import Bots
from .fakecord import FakeDiscord

pytestmark = pytest.mark.e2e


def _children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


async def test_a_burst_of_big_logs_is_answered_by_worker_processes_within_the_budget(
    fake: FakeDiscord, bots: Bots
) -> None:
    running = await bots.start(engine_workers=2, inflight_bytes=3 * MiB, queue_limit=10)
    service = running.client.service  # type: ignore[attr-defined]
    workers = service.workers
    assert workers is not None and len(workers.pids()) == 2
    # The workers are processes of their own (under the forkserver, itself a child of this one).
    forkservers = _children_of(os.getpid())
    assert set(workers.pids()) <= {pid for parent in forkservers for pid in _children_of(parent)}
    log = generate_log(MiB, seed=7).encode()  # far over the 4096 characters answered inline
    members = [fake.add_member(f"member{n}") for n in range(6)]
    posts = [await fake.user_sends(m, fake.help_channel, "", files=[("train_log.txt", log)]) for m in members]
    ids = [int(p["id"]) for p in posts]
    await fake.wait_for(
        lambda: all(fake.replies_to(i) for i in ids), timeout=120, what="a reply to every log"
    )
    for i in ids:
        assert "out of memory" in fake.text_of(fake.replies_to(i)[0]).lower()
    assert service.budget.peak <= 3 * MiB
    assert service.budget.peak >= 2 * MiB  # two logs at once (one per worker), never four
    # The messages that waited for room were marked, and unmarked once answered.
    marked = {c.path for c in fake.calls("add_reaction")}
    assert marked, "with room for two logs, some of six waited"
    await fake.wait_for(
        lambda: {c.path for c in fake.calls("remove_reaction")} == marked, what="every ⏳ taken off again"
    )


async def test_a_check_refused_for_a_full_queue_asks_to_run_it_again(fake: FakeDiscord, bots: Bots) -> None:
    # A command is never retried by the bot: the member is asked to run it again, not promised an answer.
    running = await bots.start(inflight_bytes=4096, queue_limit=0)
    service = running.client.service  # type: ignore[attr-defined]
    async with service.budget.hold(4096):  # another case holds all the room
        inter = await fake.slash_command(fake.alice, fake.general, "oom-check", {"text": "x" * 5000})
        shown = await fake.shown(inter)
    assert fake.text_of(shown) == service.t("busy_command", "en")
