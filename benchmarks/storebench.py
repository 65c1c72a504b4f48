"""The database after a simulated 14 days of a busy server, stored the way the bot stores a reply
now and the way it did before schema version 5, side by side in one run.

Each day brings `per_day` diagnoses, a mix of the inputs a help channel sees: mostly pasted configs
and chat-sized logs, then attached logs of tens to hundreds of KiB, and a few of several MiB (the
bot reads at most 8 MiB of one). Both stores get the same replies, rules, votes and daily purges.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.genlog import MiB, generate_log
from bot.store import MIGRATIONS, Answer, Case, Store

ROOT = Path(__file__).resolve().parent.parent
CONFIG = (ROOT / "examples" / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
DAY = 86400.0
KiB = 1024


@dataclass(frozen=True)
class Reply:
    case: Case
    rule_ids: tuple[str, ...]
    answer: Answer


def _log_size(rng: random.Random) -> int:
    """Bytes of the log attached to one diagnosis, or 0 for a pasted message alone."""
    draw = rng.random()
    if draw < 0.70:
        return 0
    low, high = (
        (16 * KiB, 256 * KiB) if draw < 0.97 else (256 * KiB, 2 * MiB) if draw < 0.995 else (2 * MiB, 8 * MiB)
    )
    return int(math.exp(rng.uniform(math.log(low), math.log(high))))  # log-uniform: many small, few big


def simulate(days: int, per_day: int, logs: list[str], seed: int = 1) -> Iterator[list[Reply]]:
    """The replies of each day; the same ones for the same arguments (made as they are stored, so
    that only a day's inputs are in memory at a time)."""
    from diagnosis.rules import RULE_IDS

    rng = random.Random(seed)
    rules = sorted(RULE_IDS)
    reply_id = 10**17
    for day in range(days):
        replies = []
        for n in range(per_day):
            reply_id += 2
            created = day * DAY + n * DAY / per_day
            size = _log_size(rng)
            message = (
                CONFIG.replace("batch_size: 4", f"batch_size: {1 + n % 8}")
                if rng.random() < 0.8
                else ("OOM at step 0 on my 4090, what should I change?")
            )
            inputs: tuple[tuple[str, str], ...] = (("message", message),)
            if size:
                log = rng.choice(logs)
                end = rng.randrange(len(log) // 2, len(log))
                inputs += (("train_log.txt", log[max(0, end - size) : end]),)
            case = Case(
                reply_id=reply_id,
                source_id=reply_id - 1,
                guild_id=42,
                channel_id=7,
                author_id=1000 + rng.randrange(300),
                inputs=inputs,
                language=rng.choice(("en", "ja")),
                explicit_language=False,
                gpu_vram_gib=None,
                step=1,
                created=created,
                has_config=True,
                has_log=bool(size),
            )
            answer = Answer(reply_id - 1, reply_id, 7, 42, case.author_id, f"{reply_id:064x}", created)
            replies.append(Reply(case, tuple(rng.sample(rules, rng.randint(1, 3))), answer))
        yield replies


class _Before:
    """The bot's storage before schema version 5: each input whole, as JSON text; statistics kept."""

    def __init__(self, path: Path) -> None:
        Store(path, migrations=MIGRATIONS[:4]).close()
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")

    def save(self, reply: Reply) -> None:
        c, a = reply.case, reply.answer
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute(
            "INSERT OR REPLACE INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                c.reply_id,
                c.source_id,
                c.guild_id,
                c.channel_id,
                c.author_id,
                json.dumps([list(pair) for pair in c.inputs], ensure_ascii=False),
                c.language,
                int(c.explicit_language),
                c.gpu_vram_gib,
                c.step,
                c.created,
                int(bool(c.has_config)),
                int(bool(c.has_log)),
            ),
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO diagnosis_rules VALUES (?, ?, ?, ?)",
            [(c.reply_id, c.guild_id, r, c.created) for r in reply.rule_ids],
        )
        self.db.execute(
            "INSERT OR REPLACE INTO answered VALUES (?, ?, ?, ?, ?, ?, ?)",
            (a.source_id, a.reply_id, a.channel_id, a.guild_id, a.author_id, a.inputs_hash, a.created),
        )
        self.db.execute("COMMIT")

    def vote(self, reply_id: int, user_id: int, helpful: bool, now: float) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?)", (reply_id, user_id, int(helpful), now)
        )

    def purge(self, before: float) -> None:
        self.db.execute("DELETE FROM cases WHERE created < ?", (before,))
        self.db.execute("DELETE FROM answered WHERE created < ?", (before,))

    def close(self) -> None:
        self.db.close()  # the last connection to close checkpoints and removes the write-ahead log


class _Now:
    """The bot's storage as it is: `Store`, with its daily purge."""

    def __init__(self, path: Path) -> None:
        self.store = Store(path)

    def save(self, reply: Reply) -> None:
        self.store.save_reply(reply.case, reply.rule_ids, [reply.answer])

    def vote(self, reply_id: int, user_id: int, helpful: bool, now: float) -> None:
        self.store.record_feedback(reply_id, user_id, helpful, now)

    def purge(self, before: float) -> None:
        self.store.purge(before, stats_before=before - 351 * DAY)

    def close(self) -> None:
        self.store.close()


@dataclass(frozen=True)
class Outcome:
    size: int  # bytes on disk: the database and its write-ahead log
    seconds: float  # storing every reply, its votes and the daily purges
    replies: int
    input_bytes: int


def _run(
    make: Callable[[Path], _Before | _Now], path: Path, days: Iterable[list[Reply]], retention: float
) -> Outcome:
    rng = random.Random(2)
    seconds = 0.0
    count = input_bytes = 0
    path.parent.mkdir(parents=True)
    db = make(path)
    for number, replies in enumerate(days):
        count += len(replies)
        input_bytes += sum(len(text.encode()) for r in replies for _, text in r.case.inputs)
        t0 = time.perf_counter()
        db.purge(number * DAY - retention)
        for reply in replies:
            db.save(reply)
            if rng.random() < 0.2:
                db.vote(reply.case.reply_id, 5000 + rng.randrange(50), rng.random() < 0.8, reply.case.created)
        seconds += time.perf_counter() - t0
    db.close()
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return Outcome(size, seconds, count, input_bytes)


@dataclass(frozen=True)
class Migration:
    size: int  # bytes on disk once the old database is migrated (and vacuumed)
    seconds: float


def _migrate(path: Path) -> Migration:
    """Open the old database with the current `Store`, as the bot does on its first start after an
    update; the time is what that start waits before it connects."""
    t0 = time.perf_counter()
    Store(path).close()
    seconds = time.perf_counter() - t0
    return Migration(sum(p.stat().st_size for p in path.parent.glob(path.name + "*")), seconds)


def database_sizes(
    days: int = 14, per_day: int = 500, retention_days: float = 14.0
) -> tuple[Outcome, Outcome, Migration]:
    """(now, before, the before database migrated): the same simulated replies stored both ways."""
    logs = [generate_log(8 * MiB, seed=s) for s in range(3)]
    with tempfile.TemporaryDirectory() as tmp:
        now = _run(
            _Now, Path(tmp) / "now" / "bot.sqlite3", simulate(days, per_day, logs), retention_days * DAY
        )
        old = Path(tmp) / "before" / "bot.sqlite3"
        before = _run(_Before, old, simulate(days, per_day, logs), retention_days * DAY)
        migrated = _migrate(old)
    return now, before, migrated
