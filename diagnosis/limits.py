"""Limits that protect the engine from hostile or accidental input. Hitting one is reported, not fatal."""

from __future__ import annotations

from typing import NamedTuple


class Limits(NamedTuple):
    """Caps on what one case may make the engine do."""

    max_input_bytes: int = 8 * 1024 * 1024  # per input text; larger ones keep their end (the error)
    max_pieces: int = 32  # configs + logs found in one case
    max_yaml_depth: int = 64  # nesting of mappings / sequences in a config
    max_yaml_nodes: int = 50_000  # nodes in one config document (alias bombs, giant lists)
    max_config_bytes: int = 1024 * 1024  # a config larger than this is not parsed
    max_line_chars: int = 20_000  # log lines longer than this are cut before pattern matching
    max_events: int = 1_000  # OOM events kept from one log


DEFAULT_LIMITS = Limits()
