from __future__ import annotations

import json
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


# ---------------------------------------------------------------------------------------------- bounds


def _log(lines: int) -> str:
    return "".join(f"step {n}/5000 loss 0.{n % 997:03d} lr 1e-4\n" for n in range(lines)) + (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 58.00 MiB\n"
    )


def test_a_case_keeps_the_compressed_tail_of_a_long_log(tmp_path: Path) -> None:
    from dataclasses import replace

    from bot.store import STORED_TAIL_BYTES

    log = _log(300_000)  # about 12 MiB
    assert len(log.encode()) > 40 * STORED_TAIL_BYTES
    store = Store(tmp_path / "bot.sqlite3")
    store.save_reply(replace(_case(), inputs=(("message", "batch 4 OOM"), ("oom.log", log))), [], [])
    case = store.case(2)
    assert case is not None
    (message, kept) = case.inputs
    assert message == ("message", "batch 4 OOM"), "a short input is kept whole"
    assert kept[0] == "oom.log" and log.endswith(kept[1]), "the log's end, where its error is"
    assert STORED_TAIL_BYTES - 100 < len(kept[1].encode()) <= STORED_TAIL_BYTES
    assert kept[1].startswith("step "), "from a whole line"
    (stored,) = db_rows(tmp_path / "bot.sqlite3", "SELECT length(inputs) FROM cases")
    assert stored[0] < STORED_TAIL_BYTES // 4, "compressed"
    store.close()


def test_the_tail_is_cut_on_a_character_and_a_line(tmp_path: Path) -> None:
    from bot.store import stored_tail

    text = "一行目\n" + "二" * 100 + "\n最後の行\n"
    tail = stored_tail(text, limit=len(("二" * 50 + "\n最後の行\n").encode()) + 1)  # mid-character
    assert tail == "最後の行\n"
    assert stored_tail("short", limit=100) == "short"


def db_rows(path: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return list(db.execute(sql, params))


def test_an_existing_database_is_packed_and_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    old = Store(path, migrations=MIGRATIONS[:4])
    log = _log(60_000)
    for reply_id in range(1, 21):
        old._db.execute(  # rows as the bot before version 5 wrote them: the whole input, as JSON text
            "INSERT INTO cases VALUES (?, 1, 4, 3, 5, ?, 'en', 0, NULL, 1, 100.0, 0, 1)",
            (reply_id, json.dumps([["oom.log", log]])),
        )
    old.close()
    before = path.stat().st_size
    store = Store(path)
    case = store.case(7)
    assert case is not None and case.inputs[0][0] == "oom.log" and log.endswith(case.inputs[0][1])
    assert (case.has_config, case.has_log) == (False, True)
    assert store.reply_author(7) == 5, "the authors of existing replies are kept"
    store.close()
    assert path.stat().st_size < before / 5


def test_purging_rolls_the_statistics_up_and_keeps_them(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    day = 86400.0
    store.save_reply(_case(10, created=1 * day), ["gc_off", "batch_too_large"], [])
    store.save_reply(_case(11, created=1 * day + 60), ["gc_off"], [])
    store.save_reply(_case(12, created=2 * day), ["gc_off"], [])
    store.save_reply(_case(13, created=30 * day), ["gc_off"], [])  # still within the retention period
    store.save_reply(_case(14, created=1 * day, guild_id=7), ["gc_off"], [])
    store.record_feedback(10, 100, True, 1 * day)
    store.record_feedback(10, 101, False, 1 * day)
    store.record_feedback(12, 100, True, 2 * day)
    store.record_feedback(13, 100, False, 30 * day)
    expected = (store.stats(4), store.reply_count(4), store.stats(7))
    assert store.purge(before=20 * day) == 4
    assert (store.stats(4), store.reply_count(4), store.stats(7)) == expected
    rows = db_rows(tmp_path / "bot.sqlite3", "SELECT COUNT(*) FROM diagnosis_rules")
    assert rows == [(1,)], "only the reply within the retention period is kept one by one"
    assert db_rows(tmp_path / "bot.sqlite3", "SELECT reply_id FROM feedback") == [(13,)]
    assert store.purge(before=20 * day) == 0
    assert store.stats(4) == expected[0], "purging again counts nothing twice"
    # Past the statistics period, the counts of the first days go too.
    store.purge(before=40 * day, stats_before=2 * day)
    stats = {row.rule_id: row for row in store.stats(4)}
    assert (stats["gc_off"].diagnoses, stats["gc_off"].helpful, stats["gc_off"].unhelpful) == (2, 1, 1)
    assert "batch_too_large" not in stats
    assert store.reply_count(4) == 2
    store.close()


def test_the_author_of_a_reply_outlives_its_case(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.sqlite3")
    store.save_reply(_case(reply_id=2, created=100.0), ["gc_off"], [_answer(created=100.0)])
    store.save_reply(_case(reply_id=3, created=100.0), [], [])
    store.purge(before=200.0, stats_before=50.0)
    assert store.case(2) is None
    assert store.reply_author(2) == 5
    store.forget_reply(3)
    assert store.reply_author(3) is None, "a deleted reply needs no author"
    store.purge(before=200.0, stats_before=150.0)
    assert store.reply_author(2) is None
    store.close()


def test_a_small_case_is_packed_with_zlib_and_a_big_one_with_lzma() -> None:
    from bot.store import pack_inputs, unpack_inputs

    # LZMA costs about 1.6 ms to set up on every call, and a small case is written on the event loop.
    small = (("message", "train:\n  batch_size: 4\n"),)
    big = (("message", "OOM"), ("oom.log", _log(4_000)))  # 140 KB: over 64 KiB, kept whole
    assert not pack_inputs(small).startswith(b"\xfd7zXZ\x00")
    assert pack_inputs(big).startswith(b"\xfd7zXZ\x00")
    assert unpack_inputs(pack_inputs(small)) == small
    assert unpack_inputs(pack_inputs(big)) == big
