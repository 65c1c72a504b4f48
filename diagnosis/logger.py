"""The engine's loggers, made on first use.

The engine logs only on failure paths (a rule that raised, a ladder step that could not be written),
and nothing else on the command line's path imports `logging`: importing it at every start would add
to the start-up of `oomcheck check`, a benchmark figure (README). So the module is imported the first
time one of these loggers is used.
"""

from __future__ import annotations

from typing import Any


class LazyLogger:
    """Stands for `logging.getLogger(name)`; the real logger is fetched when a method is called."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        import logging

        return getattr(logging.getLogger(self.name), attr)


def get_logger(name: str) -> LazyLogger:
    return LazyLogger(name)
