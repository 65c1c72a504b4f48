"""What the bot must remember across restarts, in SQLite (stdlib `sqlite3`).

- `answered`: source message → reply, so a message is never answered twice (restart, RESUME replays,
  THREAD_CREATE + MESSAGE_CREATE) and an edit finds its reply.
- `cases`: the *scrubbed* inputs behind a reply, so the buttons can re-render after a restart: each
  input's last `STORED_TAIL_BYTES` (a log ends with its error), compressed. Kept for the retention
  period only; raw user text is never written here.
- `diagnosis_rules` + `feedback`: diagnoses per rule and 👍/👎 votes of the replies still within the
  retention period, for `/oom-stats`; past it they are rolled up into `rule_days` and `reply_days`
  (counts per server, day and rule), which are kept for the longer statistics period.
- `reply_authors`: who may delete each reply once its case is gone (two integers a reply), kept for
  the statistics period.
- `guild_settings`: per-guild language and auto mode set with `/oom-config`.

The class is synchronous and thread-safe; the bot calls it through `asyncio.to_thread`, except for
the few methods made for the event loop (`answer_for`, `latest_answer`, `known_guild_settings`,
`try_save_reply`), which never wait for another writer.

The journal is WAL with `synchronous=NORMAL`: a commit is not fsynced on its own (the WAL is at each
checkpoint), so a reply's bookkeeping costs no disk flush. A crash of the bot loses nothing; a power
loss may lose the last commits, and the worst outcome is then a message answered a second time.
"""

from __future__ import annotations

import json
import lzma
import sqlite3
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# A migration is an ordered list of statements. They run with `execute` (not `executescript`, which
# commits on its own) so that a step and its version bump commit together or not at all.
Migration = tuple[str, ...]

_V1: Migration = (
    """CREATE TABLE answered (
        source_id INTEGER PRIMARY KEY,
        reply_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        guild_id INTEGER,
        author_id INTEGER NOT NULL,
        inputs_hash TEXT NOT NULL,
        created REAL NOT NULL
    )""",
    """CREATE TABLE cases (
        reply_id INTEGER PRIMARY KEY,
        source_id INTEGER,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        author_id INTEGER NOT NULL,
        inputs TEXT NOT NULL,
        language TEXT NOT NULL,
        explicit_language INTEGER NOT NULL,
        gpu_vram_gib REAL,
        step INTEGER NOT NULL,
        created REAL NOT NULL
    )""",
    """CREATE TABLE diagnosis_rules (
        reply_id INTEGER NOT NULL,
        guild_id INTEGER,
        rule_id TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (reply_id, rule_id)
    )""",
    """CREATE TABLE feedback (
        reply_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        helpful INTEGER NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (reply_id, user_id)
    )""",
    """CREATE TABLE guild_settings (
        guild_id INTEGER PRIMARY KEY,
        language TEXT,
        auto_mode INTEGER
    )""",
)

# Purges and /oom-stats filter by time and guild.
_V2: Migration = (
    "CREATE INDEX answered_created ON answered (created)",
    "CREATE INDEX cases_created ON cases (created)",
    "CREATE INDEX diagnosis_rules_guild ON diagnosis_rules (guild_id, rule_id)",
)

# Ordered; step i brings the schema from version i to i + 1. Never edit a released step: append one.
# Auto mode folds a member's follow-up (the log after the config) into their latest reply.
_V3: Migration = ("CREATE INDEX answered_channel_author ON answered (channel_id, author_id, created)",)

# What a case holds (a config, a log), so a member on cooldown is diagnosed only when their message
# could complete their open case (NULL in rows written before: the bot asks the engine then).
_V4: Migration = (
    "ALTER TABLE cases ADD COLUMN has_config INTEGER",
    "ALTER TABLE cases ADD COLUMN has_log INTEGER",
)

# Bounded storage: a case keeps each input's tail, compressed (`pack_inputs`; existing rows are
# rewritten by the same function, registered on the connection as `pack_inputs`); statistics past the
# retention period become counts per day; the author of a reply outlives its case, so that the author
# can still delete the reply.
_V5: Migration = (
    """CREATE TABLE cases_packed (
        reply_id INTEGER PRIMARY KEY,
        source_id INTEGER,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        author_id INTEGER NOT NULL,
        inputs BLOB NOT NULL,
        language TEXT NOT NULL,
        explicit_language INTEGER NOT NULL,
        gpu_vram_gib REAL,
        step INTEGER NOT NULL,
        created REAL NOT NULL,
        has_config INTEGER,
        has_log INTEGER
    )""",
    """INSERT INTO cases_packed SELECT reply_id, source_id, guild_id, channel_id, author_id,
        pack_inputs(inputs), language, explicit_language, gpu_vram_gib, step, created, has_config, has_log
        FROM cases""",
    "DROP TABLE cases",
    "ALTER TABLE cases_packed RENAME TO cases",
    "CREATE INDEX cases_created ON cases (created)",
    # guild_key: the guild id, 0 outside a guild (a key column cannot be NULL and stay unique).
    """CREATE TABLE rule_days (
        guild_key INTEGER NOT NULL,
        day INTEGER NOT NULL,
        rule_id TEXT NOT NULL,
        diagnoses INTEGER NOT NULL,
        helpful INTEGER NOT NULL,
        unhelpful INTEGER NOT NULL,
        PRIMARY KEY (guild_key, day, rule_id)
    ) WITHOUT ROWID""",
    """CREATE TABLE reply_days (
        guild_key INTEGER NOT NULL,
        day INTEGER NOT NULL,
        replies INTEGER NOT NULL,
        PRIMARY KEY (guild_key, day)
    ) WITHOUT ROWID""",
    """CREATE TABLE reply_authors (
        reply_id INTEGER PRIMARY KEY,
        author_id INTEGER NOT NULL,
        created REAL NOT NULL
    )""",
    "CREATE INDEX reply_authors_created ON reply_authors (created)",
    "INSERT OR IGNORE INTO reply_authors SELECT reply_id, author_id, created FROM cases",
    "CREATE INDEX diagnosis_rules_created ON diagnosis_rules (created)",
)

MIGRATIONS: tuple[Migration, ...] = (_V1, _V2, _V3, _V4, _V5)
# The first version whose cases are packed: migrating a database from below it frees most of its
# pages, which only a VACUUM gives back to the file system.
_PACKED_VERSION = 5

# What a case keeps of each input: its end, where a log has its error and its last steps. A pasted
# config or message is far smaller and kept whole.
STORED_TAIL_BYTES = 256 * 1024
# A case from this size on is compressed with LZMA (preset 0), below it with zlib. On 256 KiB of a
# log's tail LZMA gives 24 KB against zlib's 34 KB (10 ms against 6, on a thread), but every call
# costs it 1.6 ms to set up, 30 times zlib's whole time on a pasted config: a small case's
# bookkeeping is written on the event loop (`try_save_reply`).
_LZMA_FROM_BYTES = 64 * 1024
_XZ_MAGIC = b"\xfd7zXZ\x00"
_DAY = 86400

# The event loop's lookups wait at most this long for SQLite. In WAL mode a reader does not wait for
# writers; it only waits while another connection recovers or closes the write-ahead log.
_LOOP_READ_TIMEOUT_MS = 1000


@dataclass(frozen=True)
class Answer:
    source_id: int
    reply_id: int
    channel_id: int
    guild_id: int | None
    author_id: int
    inputs_hash: str
    created: float


@dataclass(frozen=True)
class Case:
    reply_id: int
    source_id: int | None
    guild_id: int | None
    channel_id: int
    author_id: int
    inputs: tuple[tuple[str, str], ...]  # (source name, scrubbed text)
    language: str
    explicit_language: bool
    gpu_vram_gib: float | None
    step: int
    created: float
    has_config: bool | None = None
    has_log: bool | None = None
    # The inputs already packed (`pack_inputs`) where they were diagnosed; `inputs` is then empty.
    # A case read back always has its `inputs`.
    packed: bytes | None = None


def _flag(value: object) -> bool | None:
    return None if value is None else bool(value)


def stored_tail(text: str, limit: int = STORED_TAIL_BYTES) -> str:
    """The last `limit` bytes of `text` (UTF-8), from the first whole line in them."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    tail = data[-limit:].decode("utf-8", errors="ignore")
    # A half line at the cut would read as a line of its own to the log reader.
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) - 1 else tail


def pack_inputs(inputs: Sequence[tuple[str, str]]) -> bytes:
    """A case's inputs as stored: each one's tail, as compressed JSON."""
    data = json.dumps([[source, stored_tail(text)] for source, text in inputs], ensure_ascii=False).encode()
    if len(data) < _LZMA_FROM_BYTES:
        return zlib.compress(data, 6)
    return lzma.compress(data, preset=0)


def unpack_inputs(stored: bytes | str) -> tuple[tuple[str, str], ...]:
    """The inputs of a stored case (packed, or JSON text as written before version 5)."""
    if isinstance(stored, bytes):
        data = (lzma.decompress(stored) if stored.startswith(_XZ_MAGIC) else zlib.decompress(stored)).decode()
    else:
        data = stored
    return tuple((str(source), str(text)) for source, text in json.loads(data))


def _pack_legacy(stored: str | bytes) -> bytes:
    return pack_inputs(unpack_inputs(stored))


@dataclass(frozen=True)
class GuildSettings:
    language: str | None = None
    auto_mode: bool | None = None


@dataclass(frozen=True)
class RuleStats:
    rule_id: str
    diagnoses: int
    helpful: int
    unhelpful: int


def _insert_answer(db: sqlite3.Connection, answer: Answer) -> None:
    db.execute(
        "INSERT OR REPLACE INTO answered VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            answer.source_id,
            answer.reply_id,
            answer.channel_id,
            answer.guild_id,
            answer.author_id,
            answer.inputs_hash,
            answer.created,
        ),
    )


def _insert_case(db: sqlite3.Connection, case: Case) -> None:
    db.execute(
        "INSERT OR REPLACE INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            case.reply_id,
            case.source_id,
            case.guild_id,
            case.channel_id,
            case.author_id,
            pack_inputs(case.inputs) if case.packed is None else case.packed,
            case.language,
            int(case.explicit_language),
            case.gpu_vram_gib,
            case.step,
            case.created,
            None if case.has_config is None else int(case.has_config),
            None if case.has_log is None else int(case.has_log),
        ),
    )


def _insert_rules(
    db: sqlite3.Connection, reply_id: int, guild_id: int | None, rule_ids: Sequence[str], now: float
) -> None:
    db.executemany(
        "INSERT OR IGNORE INTO diagnosis_rules VALUES (?, ?, ?, ?)",
        [(reply_id, guild_id, rule_id, now) for rule_id in dict.fromkeys(rule_ids)],
    )


def _write_reply(
    db: sqlite3.Connection, case: Case, rule_ids: Sequence[str], answers: Sequence[Answer]
) -> None:
    """The rows of one sent reply, inside the transaction the caller began; commits or rolls back."""
    try:
        _insert_case(db, case)
        db.execute(
            "INSERT OR IGNORE INTO reply_authors VALUES (?, ?, ?)",
            (case.reply_id, case.author_id, case.created),
        )
        _insert_rules(db, case.reply_id, case.guild_id, rule_ids, case.created)
        for answer in answers:
            _insert_answer(db, answer)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


class Store:
    def __init__(self, path: Path | str, migrations: Sequence[Migration] = MIGRATIONS) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.create_function("pack_inputs", 1, _pack_legacy, deterministic=True)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._migrate(migrations)
        # What the bot does for every message (was it answered already? the member's latest answer;
        # a small reply's bookkeeping) goes through a second connection, made for the event loop: in
        # WAL mode its reads never wait for the other connection's writes, and its writes never wait
        # at all (`try_save_reply` gives up at once when the store is busy). It never checkpoints
        # either, so the event loop never waits for a disk flush: `checkpoint` (from a thread) does.
        if str(path) == ":memory:":
            self._loop_db, self._loop_lock = self._db, self._lock  # a second connection would be empty
        else:
            self._loop_db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._loop_db.execute("PRAGMA synchronous=NORMAL")
            self._loop_db.execute("PRAGMA wal_autocheckpoint=0")
            self._loop_db.execute(f"PRAGMA busy_timeout={_LOOP_READ_TIMEOUT_MS}")
            self._loop_lock = threading.Lock()
        # The bot is the only writer of guild settings, so what it wrote or read stays true; the
        # language of every reply is read from here without a database round trip.
        self._guilds: dict[int, GuildSettings] = {}

    def close(self) -> None:
        with self._loop_lock:
            if self._loop_db is not self._db:
                self._loop_db.close()
        with self._lock:
            self._db.close()

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file (PASSIVE: waits for nobody). The bot
        calls it from a thread now and then, as the event loop's connection never does."""
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    # ---------------------------------------------------------------- schema

    def _migrate(self, migrations: Sequence[Migration]) -> None:
        self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = self._db.execute("SELECT version FROM schema_version").fetchone()
        version = int(row[0]) if row else 0
        if row is None:
            self._db.execute("INSERT INTO schema_version (version) VALUES (0)")
        if version > len(migrations):
            raise RuntimeError(
                f"database schema version {version} is newer than this bot ({len(migrations)})"
            )
        for number in range(version, len(migrations)):
            # Each step and its version bump commit together, so a crash never leaves a half-step.
            self._db.execute("BEGIN")
            try:
                for statement in migrations[number]:
                    self._db.execute(statement)
                self._db.execute("UPDATE schema_version SET version = ?", (number + 1,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        if 0 < version < _PACKED_VERSION <= len(migrations):
            self._db.execute("VACUUM")

    def schema_version(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT version FROM schema_version").fetchone()
        return int(row[0])

    # ---------------------------------------------------------------- answered messages

    def answer_for(self, source_id: int) -> Answer | None:
        """Cheap enough for the event loop (a primary-key lookup on the loop's connection)."""
        with self._loop_lock:
            row = self._loop_db.execute(
                "SELECT source_id, reply_id, channel_id, guild_id, author_id, inputs_hash, created "
                "FROM answered WHERE source_id = ?",
                (source_id,),
            ).fetchone()
        return Answer(*row) if row else None

    def latest_answer(self, channel_id: int, author_id: int) -> Answer | None:
        """The most recent answered message of this member in this channel (indexed; cheap enough
        for the event loop, on the loop's connection)."""
        with self._loop_lock:
            row = self._loop_db.execute(
                "SELECT source_id, reply_id, channel_id, guild_id, author_id, inputs_hash, created "
                "FROM answered WHERE channel_id = ? AND author_id = ? ORDER BY created DESC LIMIT 1",
                (channel_id, author_id),
            ).fetchone()
        return Answer(*row) if row else None

    def sources_of_reply(self, reply_id: int) -> list[int]:
        """Every message this reply answers, oldest first (two when a config and its log were merged)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT source_id FROM answered WHERE reply_id = ? ORDER BY source_id", (reply_id,)
            ).fetchall()
        return [int(row[0]) for row in rows]

    def record_answer(self, answer: Answer) -> None:
        with self._lock:
            _insert_answer(self._db, answer)

    def forget_reply(self, reply_id: int) -> None:
        """The reply was deleted: drop its stored inputs (the answered marker stays: no re-answer)."""
        with self._lock:
            self._db.execute("DELETE FROM cases WHERE reply_id = ?", (reply_id,))
            self._db.execute("DELETE FROM reply_authors WHERE reply_id = ?", (reply_id,))

    def reply_author(self, reply_id: int) -> int | None:
        """The member a reply answers, while the statistics period lasts (its case may be gone)."""
        with self._lock:
            row = self._db.execute(
                "SELECT author_id FROM reply_authors WHERE reply_id = ?", (reply_id,)
            ).fetchone()
        return None if row is None else int(row[0])

    # ---------------------------------------------------------------- cases

    def save_reply(self, case: Case, rule_ids: Sequence[str], answers: Sequence[Answer]) -> None:
        """Everything a sent reply leaves behind (its case, its rules for the stats, the answered
        markers of its messages) in one transaction: one commit instead of one per row."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            _write_reply(self._db, case, rule_ids, answers)

    def try_save_reply(self, case: Case, rule_ids: Sequence[str], answers: Sequence[Answer]) -> bool:
        """`save_reply` on the event loop's connection, only if that needs no waiting: False (and
        nothing written) while another connection or thread is writing; then use `save_reply`."""
        if not self._loop_lock.acquire(blocking=False):
            return False
        try:
            db = self._loop_db
            db.execute("PRAGMA busy_timeout=0")
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # "database is locked": a writer is at work
                return False
            finally:
                db.execute(f"PRAGMA busy_timeout={_LOOP_READ_TIMEOUT_MS}")
            _write_reply(db, case, rule_ids, answers)
            return True
        finally:
            self._loop_lock.release()

    def case(self, reply_id: int) -> Case | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM cases WHERE reply_id = ?", (reply_id,)).fetchone()
        if row is None:
            return None
        inputs = unpack_inputs(row[5])
        return Case(
            reply_id=row[0],
            source_id=row[1],
            guild_id=row[2],
            channel_id=row[3],
            author_id=row[4],
            inputs=inputs,
            language=row[6],
            explicit_language=bool(row[7]),
            gpu_vram_gib=row[8],
            step=row[9],
            created=row[10],
            has_config=_flag(row[11]),
            has_log=_flag(row[12]),
        )

    def update_view(self, reply_id: int, language: str, explicit_language: bool, step: int) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE cases SET language = ?, explicit_language = ?, step = ? WHERE reply_id = ?",
                (language, int(explicit_language), step, reply_id),
            )

    # ---------------------------------------------------------------- stats and feedback

    def record_feedback(self, reply_id: int, user_id: int, helpful: bool, now: float) -> None:
        """One vote per user and reply; a second click changes the vote."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?)", (reply_id, user_id, int(helpful), now)
            )

    def stats(self, guild_id: int | None) -> list[RuleStats]:
        """Per rule: the replies within the retention period, plus the rolled-up days before."""
        with self._lock:
            rows = self._db.execute(
                """
                SELECT rule_id, SUM(diagnoses) AS total, SUM(helpful), SUM(unhelpful) FROM (
                    SELECT d.rule_id,
                           COUNT(DISTINCT d.reply_id) AS diagnoses,
                           COALESCE(SUM(f.helpful = 1), 0) AS helpful,
                           COALESCE(SUM(f.helpful = 0), 0) AS unhelpful
                    FROM diagnosis_rules d LEFT JOIN feedback f ON f.reply_id = d.reply_id
                    WHERE d.guild_id IS ?
                    GROUP BY d.rule_id
                    UNION ALL
                    SELECT rule_id, diagnoses, helpful, unhelpful FROM rule_days WHERE guild_key = ?
                )
                GROUP BY rule_id
                ORDER BY total DESC, rule_id
                """,
                (guild_id, guild_id or 0),
            ).fetchall()
        return [RuleStats(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]

    def reply_count(self, guild_id: int | None) -> int:
        with self._lock:
            row = self._db.execute(
                """SELECT (SELECT COUNT(DISTINCT reply_id) FROM diagnosis_rules WHERE guild_id IS ?)
                        + (SELECT COALESCE(SUM(replies), 0) FROM reply_days WHERE guild_key = ?)""",
                (guild_id, guild_id or 0),
            ).fetchone()
        return int(row[0])

    # ---------------------------------------------------------------- guild settings

    def guild_settings(self, guild_id: int) -> GuildSettings:
        with self._lock:
            known = self._guilds.get(guild_id)
            if known is not None:
                return known
            row = self._db.execute(
                "SELECT language, auto_mode FROM guild_settings WHERE guild_id = ?", (guild_id,)
            ).fetchone()
            settings = (
                GuildSettings()
                if row is None
                else GuildSettings(language=row[0], auto_mode=None if row[1] is None else bool(row[1]))
            )
            self._guilds[guild_id] = settings
        return settings

    def known_guild_settings(self, guild_id: int) -> GuildSettings | None:
        """The guild's settings when already read or written by this store, else None; never
        touches the database, so the event loop may call it directly."""
        return self._guilds.get(guild_id)

    def set_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO guild_settings VALUES (?, ?, ?)",
                (
                    guild_id,
                    settings.language,
                    None if settings.auto_mode is None else int(settings.auto_mode),
                ),
            )
            self._guilds[guild_id] = settings

    # ---------------------------------------------------------------- retention

    def purge(self, before: float, *, stats_before: float | None = None) -> int:
        """Drop stored inputs and answered markers older than `before` (epoch seconds), roll the
        statistics of those replies up into counts per day, and drop the counts and the reply
        authors older than `stats_before`. Returns the number of cases dropped."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                removed = db.execute("DELETE FROM cases WHERE created < ?", (before,)).rowcount
                db.execute("DELETE FROM answered WHERE created < ?", (before,))
                _roll_up(db, before)
                if stats_before is not None:
                    day = int(stats_before // _DAY)
                    db.execute("DELETE FROM rule_days WHERE day < ?", (day,))
                    db.execute("DELETE FROM reply_days WHERE day < ?", (day,))
                    db.execute("DELETE FROM reply_authors WHERE created < ?", (stats_before,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return int(removed)


def _roll_up(db: sqlite3.Connection, before: float) -> None:
    """Fold the per-reply statistics older than `before` into the per-day counts, then drop them.
    A vote is final from then on: the reply's rules are no longer known one by one."""
    # "WHERE" before "ON CONFLICT" keeps SQLite from reading the upsert's ON as a join's.
    db.execute(
        f"""
        INSERT INTO rule_days (guild_key, day, rule_id, diagnoses, helpful, unhelpful)
        SELECT IFNULL(d.guild_id, 0), CAST(d.created / {_DAY} AS INTEGER), d.rule_id,
               COUNT(DISTINCT d.reply_id), COALESCE(SUM(f.helpful = 1), 0), COALESCE(SUM(f.helpful = 0), 0)
        FROM diagnosis_rules d LEFT JOIN feedback f ON f.reply_id = d.reply_id
        WHERE d.created < ?
        GROUP BY 1, 2, 3
        ON CONFLICT (guild_key, day, rule_id) DO UPDATE SET
            diagnoses = diagnoses + excluded.diagnoses,
            helpful = helpful + excluded.helpful,
            unhelpful = unhelpful + excluded.unhelpful
        """,
        (before,),
    )
    db.execute(
        f"""
        INSERT INTO reply_days (guild_key, day, replies)
        SELECT IFNULL(guild_id, 0), CAST(created / {_DAY} AS INTEGER), COUNT(DISTINCT reply_id)
        FROM diagnosis_rules WHERE created < ?
        GROUP BY 1, 2
        ON CONFLICT (guild_key, day) DO UPDATE SET replies = replies + excluded.replies
        """,
        (before,),
    )
    db.execute(
        "DELETE FROM feedback WHERE reply_id IN (SELECT reply_id FROM diagnosis_rules WHERE created < ?)",
        (before,),
    )
    db.execute("DELETE FROM diagnosis_rules WHERE created < ?", (before,))
    # Votes on replies that found nothing (no rules to count them under), once as old.
    db.execute("DELETE FROM feedback WHERE created < ?", (before,))
