"""The `oomcheck` program: what the console script and `python -m oomcheck` run in a process of their own."""

from __future__ import annotations

import gc
from collections.abc import Callable


def load_cli() -> Callable[[], int]:
    """Import the command line (and with it the engine) with the garbage collector held off.

    The imports build classes, compiled patterns and data tables that live as long as the process;
    the collector's passes over them during the imports, which every `oomcheck check` would pay for at
    start-up, could never free anything. Once built they are frozen, out of the
    collector's sight, and collection resumes for the command itself.
    """
    gc.disable()
    try:
        from oomcheck.cli import main
    finally:
        gc.freeze()
        gc.enable()
    return main


def run() -> int:
    return load_cli()()
