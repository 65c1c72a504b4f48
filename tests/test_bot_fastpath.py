"""The bot's fast path for chat-sized cases: engine work and bookkeeping on the event loop, big inputs
still on the engine pool, the reply's rows written in one transaction after the reply is sent."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import string
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from bot.app import OomBot, create_bot
from bot.diagnosis_port import INLINE_INPUT_CHARS
from bot.ratelimit import WindowLimiter
from bot.store import Answer, Case, GuildSettings, Store, unpack_inputs
from tests.bot_fakes import (
    BOT_ID,
    CONFIG,
    HELP,
    LOG,
    SECRET,
    Channel,
    FakeEngine,
    Message,
    SlowEngine,
    User,
    make_bot,
    settings,
)

MAIN = threading.main_thread().name
# Discord's longest message (with Nitro) is 4000 characters; a whole chat paste must stay inline.
CHAT_LIMIT = 4000


class ThreadSpyEngine(FakeEngine):
    """Records on which thread each engine call ran."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[tuple[str, str]] = []

    def _seen(self, call: str) -> None:
        self.threads.append((call, threading.current_thread().name))

    def diagnose(self, inputs: Any, **kwargs: Any) -> Any:
        self._seen("diagnose")
        return super().diagnose(inputs, **kwargs)

    def render(self, report: Any, *, lang: str, step: int) -> Any:
        self._seen("render")
        return super().render(report, lang=lang, step=step)

    def scrub(self, text: str, source: str) -> str:
        self._seen("scrub")
        return super().scrub(text, source)


async def _bot(
    tmp_path: Path, engine: FakeEngine, *, inline: int = INLINE_INPUT_CHARS, **overrides: Any
) -> OomBot:
    """A bot that keeps chat-sized engine work on the event loop, as the real one does."""
    return await make_bot(tmp_path, engine, inline=inline, **overrides)


def _rows(path: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    """Read through a connection of our own: only committed rows are seen."""
    db = sqlite3.connect(path)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


# The bot's own user, as discord.py sets it at login (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("bot_user")


async def test_the_real_bot_keeps_any_chat_message_on_the_event_loop(tmp_path: Path) -> None:
    bot = create_bot(settings(tmp_path))
    try:
        assert bot.service.inline_input_chars == INLINE_INPUT_CHARS >= CHAT_LIMIT
    finally:
        await bot.close()


async def test_a_chat_sized_case_is_diagnosed_rendered_and_scrubbed_on_the_event_loop(tmp_path: Path) -> None:
    engine = ThreadSpyEngine()
    bot = await _bot(tmp_path, engine)
    try:
        message = Message(CONFIG + LOG, User(7), Channel(HELP))
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert len(message.outbox) == 1
        assert {call for call, _ in engine.threads} == {"diagnose", "render", "scrub"}
        assert {thread for _, thread in engine.threads} == {MAIN}
    finally:
        await bot.close()


async def test_a_big_input_still_goes_to_the_engine_pool(tmp_path: Path) -> None:
    engine = ThreadSpyEngine()
    bot = await _bot(tmp_path, engine)
    try:
        padding = "# " + "x" * 80 + "\n"
        big = CONFIG + padding * (INLINE_INPUT_CHARS // len(padding) + 1)
        assert len(big) > INLINE_INPUT_CHARS
        message = Message(big, User(7), Channel(HELP))
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert len(message.outbox) == 1
        assert {call for call, _ in engine.threads} == {"diagnose", "render", "scrub"}
        assert all(thread.startswith("oomcheck-engine") for _, thread in engine.threads), engine.threads
    finally:
        await bot.close()


async def test_a_slow_big_input_still_times_out(tmp_path: Path) -> None:
    bot = await _bot(
        tmp_path,
        SlowEngine(lambda inputs: sum(len(text) for text in inputs) > 200),
        inline=200,
        diagnosis_timeout_seconds=0.05,
        engine_workers=1,
    )
    try:
        message = Message(LOG + "x" * 200, User(7), Channel(HELP))
        with pytest.raises(TimeoutError):
            await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert message.outbox == []
        assert bot.service.claims.claim(message.id)  # released: a replay may try again
    finally:
        await bot.close()


class CheckingMessage(Message):
    """A message whose reply looks into the database at the moment the reply is sent."""

    def __init__(self, *args: Any, on_reply: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_reply = on_reply

    async def reply(self, content: str | None = None, **kwargs: Any) -> Any:
        self.on_reply()
        return await super().reply(content, **kwargs)


async def test_the_bookkeeping_lands_in_sqlite_after_the_reply_scrubbed(tmp_path: Path) -> None:
    bot = await _bot(tmp_path, FakeEngine())
    database = tmp_path / "bot.sqlite3"
    seen_at_reply: list[int] = []
    try:
        message = CheckingMessage(
            f"hf_token: {SECRET}\n{CONFIG}",
            User(7),
            Channel(HELP),
            on_reply=lambda: seen_at_reply.append(len(_rows(database, "SELECT * FROM answered"))),
        )
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert seen_at_reply == [0]  # nothing was written before the reply went out
        reply_id = message.outbox[0].id
        assert _rows(database, "SELECT reply_id FROM answered WHERE source_id = ?", message.id) == [
            (reply_id,)
        ]
        [(packed,)] = _rows(database, "SELECT inputs FROM cases WHERE reply_id = ?", reply_id)
        inputs = "\n".join(
            text for _, text in unpack_inputs(packed)
        )  # compressed: the file scan below cannot see it
        assert "hf_REDACTED" in inputs and SECRET not in inputs
        assert _rows(database, "SELECT rule_id FROM diagnosis_rules WHERE reply_id = ?", reply_id) == [
            ("gc_off",)
        ]
        await bot.messages.on_message(message)  # a replay finds the answered marker
        assert len(message.outbox) == 1
    finally:
        await bot.close()
    for path in tmp_path.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path.name


async def test_while_another_connection_writes_the_bookkeeping_goes_to_a_thread(tmp_path: Path) -> None:
    bot = await _bot(tmp_path, FakeEngine())
    database = tmp_path / "bot.sqlite3"
    other = sqlite3.connect(database, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # holds the write lock: writing now would have to wait
        message = Message(CONFIG, User(7), Channel(HELP))
        task = asyncio.create_task(bot.messages.on_message(message))  # type: ignore[arg-type]
        while not message.outbox:
            await asyncio.sleep(0.01)
        assert not task.done()  # the event loop is free, the write waits in a thread
        other.execute("COMMIT")
        await asyncio.wait_for(task, 10)
        assert _rows(database, "SELECT reply_id FROM answered WHERE source_id = ?", message.id) == [
            (message.outbox[0].id,)
        ]
    finally:
        other.close()
        await bot.close()


async def test_a_chat_sized_mention_takes_no_thread_hop_once_the_guild_is_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await _bot(tmp_path, FakeEngine())
    hops: list[str] = []
    db, run_engine = bot.service.db, bot.service.run_engine

    async def counting_db(fn: Callable[..., Any], *args: Any) -> Any:
        hops.append(f"db:{getattr(fn, '__name__', fn)}")
        return await db(fn, *args)

    async def counting_engine(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        hops.append(f"engine:{getattr(fn, '__name__', fn)}")
        return await run_engine(fn, *args, **kwargs)

    monkeypatch.setattr(bot.service, "db", counting_db)
    monkeypatch.setattr(bot.service, "run_engine", counting_engine)
    try:
        first = Message(f"<@{BOT_ID}> {LOG}", User(7), Channel(HELP))
        await bot.messages.on_message(first)  # type: ignore[arg-type]
        assert hops == ["db:guild_settings"]  # the guild's language, read once
        hops.clear()
        second = Message(f"<@{BOT_ID}> {LOG} again", User(8), Channel(HELP))
        await bot.messages.on_message(second)  # type: ignore[arg-type]
        assert len(second.outbox) == 1
        assert hops == []
    finally:
        await bot.close()


async def test_a_language_set_with_oom_config_is_used_for_the_next_reply(tmp_path: Path) -> None:
    bot = await _bot(tmp_path, FakeEngine())
    try:
        first = Message(f"<@{BOT_ID}> {LOG}", User(7), Channel(HELP))
        await bot.messages.on_message(first)  # type: ignore[arg-type]
        assert first.outbox[0].content.startswith("[en]")
        await bot.service.db(bot.service.store.set_guild_settings, 1, GuildSettings(language="ja"))
        # A bare log, with no words of its own: the server's language answers it (a post's own language
        # would win over it: tests/test_bot_reply_language.py).
        second = Message(f"<@{BOT_ID}> {LOG}", User(8), Channel(HELP))
        await bot.messages.on_message(second)  # type: ignore[arg-type]
        assert second.outbox[0].content.startswith("[ja]")
    finally:
        await bot.close()


async def test_the_heartbeat_loop_checkpoints_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await _bot(tmp_path, FakeEngine(), heartbeat_interval_seconds=0.01)
    checkpoints: list[str] = []

    async def ready() -> None:
        return None

    monkeypatch.setattr(bot, "wait_until_ready", ready)
    monkeypatch.setattr(
        bot.service.store, "checkpoint", lambda: checkpoints.append(threading.current_thread().name)
    )
    beating = asyncio.create_task(bot._heartbeat_loop())
    try:
        async with asyncio.timeout(10):
            while len(checkpoints) < 2:
                await asyncio.sleep(0.01)
        assert MAIN not in checkpoints  # from a thread: a checkpoint may flush to disk
    finally:
        beating.cancel()
        await bot.close()


# ------------------------------------------------------------------ the store


def _case(reply_id: int, text: str = "train:\n  batch_size: 4\n") -> Case:
    return Case(
        reply_id=reply_id,
        source_id=reply_id - 1,
        guild_id=4,
        channel_id=3,
        author_id=5,
        inputs=(("message", text),),
        language="en",
        explicit_language=False,
        gpu_vram_gib=None,
        step=1,
        created=100.0,
        has_config=True,
        has_log=False,
    )


def _answers(reply_id: int, source_ids: Sequence[Any] = ()) -> list[Answer]:
    ids = source_ids or (reply_id - 1,)
    return [
        Answer(s, reply_id, channel_id=3, guild_id=4, author_id=5, inputs_hash="h", created=100.0)
        for s in ids
    ]


@pytest.mark.parametrize("how", ["thread", "loop"])
def test_a_reply_is_saved_whole_or_not_at_all(tmp_path: Path, how: str) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    try:

        def save(answers: list[Answer]) -> None:
            if how == "thread":
                store.save_reply(_case(2), ["gc_off"], answers)
            else:
                assert store.try_save_reply(_case(2), ["gc_off"], answers)

        # The second answer is not an integer id: SQLite refuses it after the case and rules went in.
        with pytest.raises(sqlite3.IntegrityError):
            save(_answers(2, [1, "not an id"]))
        assert store.case(2) is None
        assert store.answer_for(1) is None
        assert store.reply_count(4) == 0
        save(_answers(2))
        assert store.case(2) == _case(2)
        assert store.answer_for(1) == _answers(2)[0]
        assert store.latest_answer(3, 5) == _answers(2)[0]
        assert store.reply_count(4) == 1
    finally:
        store.close()


def test_the_loop_connection_gives_up_instead_of_waiting_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    store = Store(path)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN IMMEDIATE")
        # The other writer finishes a little later: a store that waited for it would then succeed.
        later = threading.Timer(0.5, lambda: other.execute("COMMIT"))
        later.start()
        assert store.try_save_reply(_case(2), ["gc_off"], _answers(2)) is False
        assert store.answer_for(1) is None  # reads still work while the other connection writes
        later.join()
        assert store.try_save_reply(_case(2), ["gc_off"], _answers(2)) is True
        assert store.answer_for(1) == _answers(2)[0]
    finally:
        other.close()
        store.close()


def test_the_loop_connection_leaves_checkpoints_to_the_thread(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    store = Store(path)
    try:
        size_before = path.stat().st_size
        # Far more than SQLite's automatic checkpoint threshold (1000 pages) goes through the log.
        # Random letters: a case is stored compressed, and these barely compress.
        text = "".join(random.Random(0).choices(string.ascii_letters, k=40_000))
        for reply_id in range(2, 2 + 150):
            assert store.try_save_reply(_case(reply_id, text), [], _answers(reply_id))
        assert path.stat().st_size == size_before  # nothing copied into the database file yet
        store.checkpoint()
        assert path.stat().st_size > size_before + 150 * 40_000 // 2
    finally:
        store.close()


def test_guild_settings_are_remembered_without_asking_the_database_again(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    try:
        assert store.known_guild_settings(1) is None
        assert store.guild_settings(1) == GuildSettings()
        assert store.known_guild_settings(1) == GuildSettings()
        store.set_guild_settings(1, GuildSettings(language="ja", auto_mode=False))
        assert store.known_guild_settings(1) == GuildSettings(language="ja", auto_mode=False)
        assert store.guild_settings(1) == GuildSettings(language="ja", auto_mode=False)
    finally:
        store.close()
    again = Store(tmp_path / "bot.sqlite3")  # a restart reads what was written
    try:
        assert again.known_guild_settings(1) is None
        assert again.guild_settings(1) == GuildSettings(language="ja", auto_mode=False)
    finally:
        again.close()


# ------------------------------------------------------------------ the channel budget


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@settings_(max_examples=200, deadline=None)
@given(
    limit=st.integers(0, 4),
    steps=st.lists(st.tuples(st.sampled_from(["look", "take"]), st.integers(0, 40), st.sampled_from("ab"))),
)
def test_the_budget_check_agrees_with_counting_every_reply_in_the_window(
    limit: int, steps: list[tuple[str, int, str]]
) -> None:
    clock = _Clock()
    limiter = WindowLimiter(limit, 60.0, clock)
    taken: dict[str, list[float]] = {"a": [], "b": []}
    for action, wait, key in steps:
        clock.now += wait
        room = sum(1 for t in taken[key] if t > clock.now - 60.0) < limit
        if action == "look":
            assert limiter.has_room(key) == room
        else:
            assert limiter.try_acquire(key) == room
            if room:
                taken[key].append(clock.now)
