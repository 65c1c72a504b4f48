"""Engines and jobs for the worker-process tests (tests/test_bot_load.py).

A worker imports what it is handed by name; this module imports only the engine, so a new worker
is ready in a fraction of a second (the test modules import discord.py and pytest).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from bot.diagnosis_port import DiagnosisEngine
from diagnosis.report import Report


class StuckEngine(DiagnosisEngine):
    """The real engine, except that it never finishes a text holding "stuck" (a pathological input)."""

    def diagnose(self, inputs: Sequence[str], **kwargs: Any) -> Report:
        if any("stuck" in text for text in inputs):
            threading.Event().wait()
        return super().diagnose(inputs, **kwargs)


def crash(engine: object) -> None:
    os._exit(3)  # the worker dies as it does when the kernel's OOM killer picks it


def worker_pid(engine: object) -> int:
    return os.getpid()
