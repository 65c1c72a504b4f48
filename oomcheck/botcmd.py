"""`oomcheck bot` (placeholder until the Discord adapter lands)."""

from __future__ import annotations

from typing import TextIO


def run_bot(*, check_config: bool, out: TextIO, err: TextIO) -> int:
    err.write("oomcheck bot: the Discord adapter is not installed yet.\n")
    return 2
