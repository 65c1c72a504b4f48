"""Settings of the bot, from the environment and a `.env` file.

Every name takes the `OOMCHECK_` prefix (e.g. `OOMCHECK_HELP_CHANNEL_IDS=123,456`), except the token,
which is read from `DISCORD_TOKEN` like most Discord tooling expects.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from locales import LANGUAGES

IdList = Annotated[list[int], NoDecode]
if TYPE_CHECKING:
    ReplyLanguage = str
else:
    # One of the reply languages of the registry, checked as a literal (its error names the choices).
    ReplyLanguage = Literal[LANGUAGES]
_SEPARATORS = str.maketrans({",": " ", "[": " ", "]": " ", ";": " "})


class BotSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="OOMCHECK_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("DISCORD_TOKEN", "OOMCHECK_DISCORD_TOKEN")
    )
    guild_ids: IdList = Field(default_factory=list)  # commands sync instantly to these guilds
    help_channel_ids: IdList = Field(default_factory=list)
    forum_channel_ids: IdList = Field(default_factory=list)
    moderator_role_ids: IdList = Field(default_factory=list)
    default_language: ReplyLanguage = "ja"
    auto_mode: bool = True
    user_cooldown_seconds: float = Field(default=20.0, ge=0)
    channel_replies_per_minute: int = Field(default=6, ge=1)
    input_cap_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    # A text attachment up to this size is downloaded; past the input cap only its end is kept (a log
    # ends with its error). Larger ones are skipped. Never below the input cap.
    attachment_read_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    # Screenshots of a console are read with Tesseract when it is installed (the `ocr` extra and the
    # tesseract-ocr packages); bounded in bytes here and in pixels in bot/ocr.py.
    read_screenshots: bool = True
    screenshot_max_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    # Links to pastes and files on the allowlist of bot/links.py are followed over HTTPS.
    read_links: bool = True
    link_max_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    link_timeout_seconds: float = Field(default=15.0, gt=0)
    history_depth: int = Field(default=25, ge=1, le=100)
    edit_window_minutes: float = Field(default=15.0, ge=0)
    retention_days: float = Field(default=14.0, gt=0)
    # Per-day counts of the diagnoses per rule and of the votes, and who may delete each reply.
    stats_retention_days: float = Field(default=365.0, gt=0)
    database_path: Path = Path("oomcheck-bot.sqlite3")
    heartbeat_path: Path = Path("oomcheck-bot.heartbeat")
    heartbeat_interval_seconds: float = Field(default=30.0, gt=0)
    # Worker processes diagnosing big inputs at once; 0: one per core.
    engine_workers: int = Field(default=0, ge=0, le=32)
    # Past this a diagnosis is stopped (its worker killed and replaced) and the member told so.
    diagnosis_timeout_seconds: float = Field(default=30.0, gt=0)
    # Bytes of big inputs downloaded or diagnosed at once, all cases together; what does not fit
    # waits its turn (a ⏳ on the message), up to `queue_limit` cases; past that the member is told
    # the bot is busy and the message is answered `busy_retry_seconds` later.
    # The default lets two 8 MiB logs and a little more in at once, one for each worker of a 2-core
    # machine: this process holds a big input's bytes once (its download, until a worker has read
    # it; the worker decodes, diagnoses and packs it), and each worker diagnosing one grows by about
    # 100 MiB. A larger budget only lets more downloads wait for a worker.
    inflight_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    queue_limit: int = Field(default=32, ge=0)
    busy_retry_seconds: float = Field(default=60.0, gt=0)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    # Delivery under faults: a reply that Discord refuses with a 5xx or a 429 is tried again, up to
    # this many attempts and this many seconds of waiting in all (5xx waits double from the backoff).
    delivery_attempts: int = Field(default=4, ge=1, le=10)
    delivery_backoff_seconds: float = Field(default=1.0, gt=0)
    delivery_max_wait_seconds: float = Field(default=60.0, ge=0)
    # After a restart or an invalidated session: the messages of the help channels (and forum posts)
    # that came in while the bot was away are answered, up to this many per channel and this old.
    catchup_messages: int = Field(default=50, ge=0, le=100)
    catchup_max_age_minutes: float = Field(default=60.0, ge=0)
    # A graceful stop (SIGTERM) lets replies in flight finish for this long, then fails the rest.
    shutdown_grace_seconds: float = Field(default=10.0, ge=0)

    @field_validator(
        "guild_ids", "help_channel_ids", "forum_channel_ids", "moderator_role_ids", mode="before"
    )
    @classmethod
    def _split_ids(cls, value: object) -> object:
        # "1, 2 3" from an env file reads better than JSON; "[1, 2]" is accepted too.
        if isinstance(value, str):
            return value.translate(_SEPARATORS).split()
        if isinstance(value, int):
            return [value]
        return value

    @field_validator("token", mode="before")
    @classmethod
    def _blank_token_is_missing(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def worker_count(self) -> int:
        """`engine_workers`, with 0 read as one per core."""
        return self.engine_workers or min(32, os.cpu_count() or 1)

    def heartbeat_max_age(self) -> float:
        """How old the heartbeat may be before the bot counts as unhealthy (three missed beats)."""
        return 3 * self.heartbeat_interval_seconds
