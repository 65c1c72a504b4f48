from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import MIGRATIONS, Answer, Case, GuildSettings, Store


def _answer(source_id: int = 1, reply_id: int = 2, created: float = 100.0) -> Answer:
    return Answer(
        source_id, reply_id, channel_id=3, guild_id=4, author_id=5, inputs_hash="h", created=created
    )


def _case(reply_id: int = 2, created: float = 100.0, guild_id: int = 4) -> Case:
    return Case(
        reply_id=reply_id,
        source_id=1,
        guild_id=guild_id,
        channel_id=3,
        author_id=5,
        inputs=(("message", "train:\n  batch_size: 4\n"), ("log.txt", "CUDA out of memory")),
        language="ja",
        explicit_language=False,
        gpu_vram_gib=24.0,
        step=1,
        created=created,
    )


def test_fresh_database_runs_every_migration(tmp_path: Path) -> None:
    store = Store(tmp_path / "sub" / "bot.sqlite3")
    assert store.schema_version() == len(MIGRATIONS)
    store.close()


def test_reopening_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    store = Store(path)
    store.save_reply(_case(), [], [_answer()])
    store.close()
    again = Store(path)  # a restart
    assert again.answer_for(1) == _answer()
    assert again.case(2) == _case()
    assert again.schema_version() == len(MIGRATIONS)
    again.close()


def test_an_old_database_is_upgraded_step_by_step(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    old = Store(path, migrations=MIGRATIONS[:1])
    assert old.schema_version() == 1
    old.record_answer(_answer())
    old.close()
    store = Store(path)
    assert store.schema_version() == len(MIGRATIONS)
    assert store.answer_for(1) == _answer()
    store.close()
    names = {
        row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='index'")
    }
    assert "cases_created" in names


def test_a_failing_step_leaves_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    Store(path, migrations=MIGRATIONS[:1]).close()
    broken = (*MIGRATIONS[:1], ("CREATE TABLE half (x INTEGER)", "THIS IS NOT SQL"))
    with pytest.raises(sqlite3.OperationalError):
        Store(path, migrations=broken)
    store = Store(path, migrations=MIGRATIONS[:1])
    assert store.schema_version() == 1
    store.close()
    tables = {
        row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    assert "half" not in tables


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    Store(path).close()
    with pytest.raises(RuntimeError, match="newer"):
        Store(path, migrations=MIGRATIONS[:1])


def test_unknown_rows_are_none(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    assert store.answer_for(99) is None
    assert store.case(99) is None
    assert store.guild_settings(99) == GuildSettings()


def test_view_updates_and_forget(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    store.save_reply(_case(), [], [_answer()])
    store.update_view(2, "en", True, 3)
    case = store.case(2)
    assert case is not None
    assert (case.language, case.explicit_language, case.step) == ("en", True, 3)
    store.forget_reply(2)
    assert store.case(2) is None
    assert store.answer_for(1) is not None  # still answered: a deleted reply is not re-posted


def test_stats_count_diagnoses_and_votes_per_rule(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    store.save_reply(_case(10), ["gc_off", "batch_too_large", "gc_off"], [])
    store.save_reply(_case(11), ["gc_off"], [])
    store.save_reply(_case(12, guild_id=7), ["gc_off"], [])  # another guild
    store.record_feedback(10, 100, True, 1.0)
    store.record_feedback(10, 101, False, 1.0)
    store.record_feedback(10, 101, True, 2.0)  # changed the vote
    store.record_feedback(11, 100, False, 1.0)
    stats = {row.rule_id: row for row in store.stats(4)}
    assert stats["gc_off"].diagnoses == 2
    assert (stats["gc_off"].helpful, stats["gc_off"].unhelpful) == (2, 1)
    assert (stats["batch_too_large"].diagnoses, stats["batch_too_large"].helpful) == (1, 2)
    assert store.reply_count(4) == 2
    assert [row.rule_id for row in store.stats(7)] == ["gc_off"]
    assert store.stats(None) == []


def test_guild_settings_round_trip(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    store.set_guild_settings(4, GuildSettings(language="en", auto_mode=False))
    assert store.guild_settings(4) == GuildSettings(language="en", auto_mode=False)
    store.set_guild_settings(4, GuildSettings(language=None, auto_mode=None))
    assert store.guild_settings(4) == GuildSettings()


def test_purge_drops_old_inputs_and_markers_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    store.save_reply(_case(reply_id=2, created=100.0), ["gc_off"], [_answer(source_id=1, created=100.0)])
    store.save_reply(_case(reply_id=3, created=500.0), [], [_answer(source_id=7, reply_id=3, created=500.0)])
    assert store.purge(before=200.0) == 1
    assert store.case(2) is None and store.case(3) is not None
    assert store.answer_for(1) is None and store.answer_for(7) is not None
    assert store.reply_count(4) == 1  # statistics hold no user text and are kept


def test_the_store_is_usable_from_worker_threads(tmp_path: Path) -> None:
    import concurrent.futures

    store = Store(tmp_path / "bot.sqlite3")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: store.record_answer(_answer(source_id=i, reply_id=i + 1000)), range(200)))
    assert all(store.answer_for(i) is not None for i in range(200))


def test_case_kinds_round_trip_and_are_unknown_in_older_rows(tmp_path: Path) -> None:
    from dataclasses import replace

    path = tmp_path / "s.sqlite3"
    old = Store(path, migrations=MIGRATIONS[:3])
    old._db.execute(  # a row as a bot before the kinds columns wrote it
        "INSERT INTO cases VALUES (9, 1, 4, 3, 5, '[]', 'en', 0, NULL, 1, 100.0)"
    )
    old.close()
    store = Store(path)
    try:
        unknown = store.case(9)
        assert unknown is not None and unknown.has_config is None and unknown.has_log is None
        store.save_reply(replace(_case(), has_config=True, has_log=False), [], [])
        known = store.case(2)
        assert known is not None and (known.has_config, known.has_log) == (True, False)
    finally:
        store.close()
