"""The bot under a burst (issue #18): small replies while big logs are diagnosed, worker scaling,
peak memory of the whole bot (its worker processes included), and the cost of screening chat.

The bot runs as its own process (`oomcheck bot` through tests/e2e/run_bot.py) against the fake
Discord in this one, so the memory figure is the bot's alone: the fake holds every posted file.
Each figure is printed beside its baseline, measured in the same run.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from benchmarks.genlog import MiB, generate_log

if TYPE_CHECKING:
    from discord.types.message import Message as MessagePayload

    from benchmarks.run import Figure

ROOT = Path(__file__).resolve().parent.parent
SMALL = (
    "my run dies at step {n}, please help\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {mib}.00 MiB. GPU 0 has a total capacity "
    "of 23.55 GiB of which 201.31 MiB is free.\n"
)
CHAT = "thanks, the run finished fine after I closed the browser tab"
# Chat in Japanese that names the trainer's world (学習, LoRA) without a problem: the screen cannot
# turn it away on its script or on a missing context word.
CHAT_JA = "LoRAの学習、さっき無事に終わりました！設定ありがとうございます"
TIMEOUT_S = 300.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# ------------------------------------------------------------------------------------------------
# Memory of a process and everything it started (the forkserver and the workers under it)


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _memory_kib(pid: int) -> tuple[int, int]:
    """RSS and PSS: RSS counts the pages the workers share with the forkserver (the imported engine)
    in each of them; PSS splits each shared page between the processes that hold it."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii", errors="replace") as rollup:
            for line in rollup:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


class TreeRss:
    """Samples the summed RSS of a process tree every `interval` seconds on a thread of its own."""

    def __init__(self, root: int, interval: float = 0.02) -> None:
        self.root = root
        self.interval = interval
        self.peak_kib = 0
        self.peak_pss_kib = 0
        self.processes = 0
        self.by_pid: dict[int, int] = {}  # each process's own peak
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now_kib(self) -> int:
        pids = _descendants(self.root)
        self.processes = max(self.processes, len(pids))
        sizes = {pid: _memory_kib(pid) for pid in pids}
        for pid, (kib, _) in sizes.items():
            self.by_pid[pid] = max(self.by_pid.get(pid, 0), kib)
        self.peak_pss_kib = max(self.peak_pss_kib, sum(pss for _, pss in sizes.values()))
        return sum(rss for rss, _ in sizes.values())

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kib = max(self.peak_kib, self.now_kib())
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# ------------------------------------------------------------------------------------------------
# The bot as a process against the fake


@asynccontextmanager
async def _bot_process(fake: Any, tmp: Path, **settings: str) -> AsyncIterator[asyncio.subprocess.Process]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OOMCHECK_", "DISCORD_"))}
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": fake.token,
            "OOMCHECK_GUILD_IDS": str(fake.guild_id),
            "OOMCHECK_HELP_CHANNEL_IDS": str(fake.help_channel),
            "OOMCHECK_DATABASE_PATH": str(tmp / "bot.sqlite3"),
            "OOMCHECK_HEARTBEAT_PATH": str(tmp / "heartbeat"),
            "OOMCHECK_DEFAULT_LANGUAGE": "en",
            "OOMCHECK_USER_COOLDOWN_SECONDS": "0",
            "OOMCHECK_CHANNEL_REPLIES_PER_MINUTE": "10000",
            "OOMCHECK_LOG_LEVEL": "WARNING",
            **{f"OOMCHECK_{k.upper()}": v for k, v in settings.items()},
        }
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.e2e.run_bot",
        fake.base_url,
        cwd=tmp,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await fake.wait_connected(timeout=120)
        await fake.wait_for(lambda: fake.commands.get(fake.guild_id), timeout=60, what="the command sync")
        yield proc
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 30)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def _small_round_trip(fake: Any, n: int) -> float:
    start = time.perf_counter()
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, SMALL.format(n=n, mib=100 + n), mention_bot=True
    )
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), timeout=TIMEOUT_S, what="a small reply")
    return time.perf_counter() - start


async def _burst(
    fake: Any, members: list[Any], data: bytes, *, while_waiting: Callable[[], Any] | None = None
) -> float:
    """Every member posts the log at once; seconds until each has its reply."""
    start = time.perf_counter()
    posts = [
        await fake.user_sends(member, fake.help_channel, "", files=[("train_log.txt", data)])
        for member in members
    ]
    ids = [int(post["id"]) for post in posts]

    def all_answered() -> bool:
        return all(fake.replies_to(i) for i in ids)

    if while_waiting is not None:
        while not all_answered():
            await while_waiting()
    await fake.wait_for(all_answered, timeout=TIMEOUT_S, what="a reply to every log")
    return time.perf_counter() - start


def _print_processes(root: int, rss: TreeRss) -> None:
    mib = [f"{'bot' if pid == root else pid}: {kib / 1024:.0f}" for pid, kib in sorted(rss.by_pid.items())]
    print(f"    each process's own peak RSS, MiB (shared pages count in each): {', '.join(mib)}")


async def _bursts() -> tuple[
    list[float], list[float], dict[str, tuple[int, int, int, float]], int, list[str]
]:
    from tests.e2e.fakecord import FakeDiscord, point_discord_at

    eight = generate_log(8 * MiB - 4096, seed=3).encode()
    # The read limit is 32 MiB: the biggest log that is still read (its last 8 MiB).
    big = generate_log(32 * MiB, seed=4).encode()[-(32 * MiB - 4096) :]
    idle: list[float] = []
    loaded: list[float] = []
    peaks: dict[str, tuple[int, int, int, float]] = {}
    complaints: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        # `oomcheck bot` refuses a token without the shape of a real one (three base64url parts).
        token = ".".join(secrets.token_urlsafe(n) for n in (18, 6, 27))
        fake = FakeDiscord(token=token)
        await fake.start()
        point_discord_at(fake.base_url)
        members = [fake.add_member(f"member{n}") for n in range(24)]
        try:
            async with _bot_process(fake, Path(tmp)) as proc:
                counter = iter(range(1_000_000))
                for _ in range(5):  # warm-up: the first replies pay for first-use costs
                    await _small_round_trip(fake, next(counter))
                for _ in range(30):
                    idle.append(await _small_round_trip(fake, next(counter)))
                with TreeRss(proc.pid) as rss:
                    start_kib = rss.now_kib()

                    async def small() -> None:
                        loaded.append(await _small_round_trip(fake, next(counter)))

                    seconds = await _burst(fake, members[:16], eight, while_waiting=small)
                peaks["16 × 8 MiB"] = (start_kib, rss.peak_kib, rss.peak_pss_kib, seconds)
                _print_processes(proc.pid, rss)
                await fake.settle(quiet=0.5)
                with TreeRss(proc.pid) as rss:
                    start_kib = rss.now_kib()
                    seconds = await _burst(fake, members[:24], big)
                peaks["24 × 32 MiB"] = (start_kib, rss.peak_kib, rss.peak_pss_kib, seconds)
                _print_processes(proc.pid, rss)
                processes = rss.processes
                await fake.settle(quiet=0.5)
            complaints += [f"unhandled route {u}" for u in fake.unhandled]
            complaints += [f"rejected payload {v}" for v in fake.violations]
        finally:
            await fake.close()
    return idle, loaded, peaks, processes, complaints


def burst_figures() -> list[Figure]:
    from benchmarks.run import Figure

    try:
        idle, loaded, peaks, processes, complaints = asyncio.run(_bursts())
    except AssertionError as exc:
        return [Figure("bot under a burst", f"no reply ({exc})", "a reply to every message", False)]
    for line in complaints[:5]:
        print(f"    {line[:200]}")
    i99, l99 = _percentile(idle, 0.99), _percentile(loaded, 0.99)
    figures = [
        Figure(
            f"small-reply p99 while 16 × 8 MiB logs are diagnosed ({len(loaded)} replies)",
            f"{_ms(l99)} (p50 {_ms(statistics.median(loaded))}; idle p99 {_ms(i99)}, {l99 / i99:.1f}×)",
            "≤ 50 ms",
            l99 <= 0.05,
        )
    ]
    for name, (start_kib, peak_kib, pss_kib, seconds) in peaks.items():
        figures.append(
            Figure(
                f"peak RSS of the bot and its {processes - 1} child processes during {name} burst",
                f"{peak_kib / 1024:.0f} MiB (PSS {pss_kib / 1024:.0f} MiB; "
                f"before it {start_kib / 1024:.0f} MiB; "
                f"every reply in {seconds:.1f} s)",
                "≤ 400 MiB",
                peak_kib <= 400 * 1024,
            )
        )
    return figures


# ------------------------------------------------------------------------------------------------
# Worker scaling, and a chat-sized case inline vs in a worker


async def _throughput(logs: int, rounds: int) -> tuple[list[float], list[float], float, float]:
    from bot import engine_jobs
    from bot.textfile import RawText
    from bot.workers import ProcessWorkers

    data = generate_log(8 * MiB - 4096, seed=5).encode()
    # As the bot hands a big attachment to a worker: its bytes, decoded there.
    log = RawText(data, 8 * MiB, len(data))
    case = engine_jobs.Diagnosis((log,), ("train_log.txt",), None, None, 1, "en")
    chat = engine_jobs.Diagnosis((SMALL.format(n=1, mib=100),), ("message",), None, None, 1, "en")
    pools = {
        n: ProcessWorkers(engine_jobs.real_engine, n, warm=engine_jobs.warm, preload=["bot.engine_jobs"])
        for n in (1, 2)
    }
    times: dict[int, list[float]] = {1: [], 2: []}
    try:
        for pool in pools.values():
            await pool.start()

        async def one(pool: ProcessWorkers, job: engine_jobs.Diagnosis) -> object:
            return await pool.run(
                120, engine_jobs.diagnose_and_render, job, user_locale=None, lang=None, step=1, screen=True
            )

        for _ in range(rounds):
            for n, pool in pools.items():  # interleaved: both see the same machine noise
                start = time.perf_counter()
                await asyncio.gather(*(one(pool, case) for _ in range(logs)))
                times[n].append(time.perf_counter() - start)
        engine = engine_jobs.real_engine()
        engine_jobs.warm(engine)
        inline: list[float] = []
        hop: list[float] = []
        for _ in range(60):
            start = time.perf_counter()
            engine_jobs.diagnose_and_render(engine, chat, user_locale=None, lang=None, step=1, screen=True)
            middle = time.perf_counter()
            await one(pools[1], chat)
            inline.append(middle - start)
            hop.append(time.perf_counter() - middle)
    finally:
        for pool in pools.values():
            pool.close()
    return times[1], times[2], statistics.median(inline), statistics.median(hop)


def worker_figures(logs: int = 4, rounds: int = 5) -> list[Figure]:
    from benchmarks.run import Figure

    one, two, inline, hop = asyncio.run(_throughput(logs, rounds))
    t1, t2 = statistics.median(one), statistics.median(two)
    return [
        Figure(
            f"{logs} × 8 MiB logs: throughput with 2 worker processes / 1",
            f"{t1 / t2:.2f}× (1 worker {logs / t1:.2f} logs/s, 2 workers {logs / t2:.2f} logs/s)",
            "≥ 1.7×",
            t1 / t2 >= 1.7,
        ),
        Figure(
            "chat-sized case: in a worker process / on the event loop",
            f"{hop / inline:.1f}× (worker {_ms(hop)}, inline {_ms(inline)}): chat stays inline",
            "inline when faster",
            hop >= inline,
        ),
    ]


# ------------------------------------------------------------------------------------------------
# Screening a chat line vs discord.py building the Message


def screening_figures(reps: int = 15) -> list[Figure]:
    import discord

    from benchmarks.run import Figure, paired_medians
    from bot import engine_jobs
    from tests.e2e.fakecord import payloads

    client = discord.Client(intents=discord.Intents.none())
    state = client._connection
    channel = discord.PartialMessageable(state=state, id=10)
    author = {"id": "5", "username": "alice", "discriminator": "0", "global_name": "Alice", "avatar": None}
    member = {"roles": [], "joined_at": payloads.iso_now(), "deaf": False, "mute": False}
    engine = engine_jobs.real_engine()
    engine_jobs.warm(engine)
    batch = 200
    figures = []
    for language, line in (("en", CHAT), ("ja", CHAT_JA)):
        # The fake's payload is the gateway's JSON, typed only as a dict.
        data = cast(
            "MessagePayload", payloads.message(123, 10, author, line, guild_id=1, member_payload=member)
        )
        chat = engine_jobs.Diagnosis((line,), ("message",), None, None, 1, "en")
        screened = engine_jobs.diagnose_and_render(
            engine, chat, user_locale=None, lang=None, step=1, screen=True
        )
        assert screened is None, f"the bench's chat line is answered: {line!r}"

        def screen(chat: engine_jobs.Diagnosis = chat) -> None:
            for _ in range(batch):
                engine_jobs.diagnose_and_render(
                    engine, chat, user_locale=None, lang=None, step=1, screen=True
                )

        def build(data: MessagePayload = data) -> None:
            for _ in range(batch):
                discord.Message(state=state, channel=channel, data=data)

        screen_s, build_s = paired_medians(screen, build, reps)
        ratio = screen_s / build_s
        each_us = screen_s / batch * 1e6, build_s / batch * 1e6
        figures.append(
            Figure(
                f"screening a chat line ({language}) / discord.py building its Message",
                f"{ratio:.1f}× (screen {each_us[0]:.0f} µs, Message {each_us[1]:.0f} µs)",
                "≤ 3×",
                ratio <= 3,
            )
        )
    return figures


def load_figures(reps: int) -> list[Figure]:
    return [*screening_figures(reps), *worker_figures(), *burst_figures()]
