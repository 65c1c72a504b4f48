"""A file with a timestamp, refreshed while connected; Docker HEALTHCHECK / systemd read it."""

from __future__ import annotations

import os
import time
from pathlib import Path


def write_heartbeat(path: Path, now: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{time.time() if now is None else now:.3f}\n", encoding="ascii")
    # A reader never sees a half-written file.
    os.replace(tmp, path)


def heartbeat_age(path: Path, now: float | None = None) -> float | None:
    """Seconds since the last beat, or None when there is no readable heartbeat."""
    try:
        stamp = float(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    return max(0.0, (time.time() if now is None else now) - stamp)
