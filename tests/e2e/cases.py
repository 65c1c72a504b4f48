"""Inputs the scenarios post and helpers they share (flags, a look into the bot's database)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CONFIG = (ROOT / "examples" / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
LOG = (ROOT / "examples" / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
CHAT = "thanks, the run finished fine after I closed the browser tab"
FIX_LINE = "gradient_checkpointing: true"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
EPHEMERAL = 64  # a message's flag: only the member who asked sees it
JAPANESE = re.compile(r"[\u3040-\u30ff]")


def fenced(text: str, lang: str = "yaml") -> str:
    return f"```{lang}\n{text}\n```"


def config_variant(batch: int) -> str:
    """The example config with another batch size (a different input that still needs the same fix)."""
    return CONFIG.replace("batch_size: 4 # was 1", f"batch_size: {batch} # was 1")


def db_rows(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.execute(sql, params))
