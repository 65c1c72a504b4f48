"""Reading console logs: OOM events, phase, step, GPU, echoed config, non-OOM errors.

`read_log(piece)` turns one log piece into `LogFacts` and never raises: a failure inside the reader
yields facts that hold only the piece and the `log_reader_error` limit, so the engine can still answer
from the config and the user's words.
"""

from __future__ import annotations

from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.models import LogFacts, Piece

READER_ERROR = "log_reader_error"


def read_log(piece: Piece, limits: Limits = DEFAULT_LIMITS) -> LogFacts:
    # The reader and its OOM formats are imported with the first log: a config alone never needs them,
    # and the package's small helpers (detect, gpus, phase) are imported without them.
    from diagnosis.logreader.reader import read

    try:
        return read(piece, limits)
    except Exception:  # a bug here must not take the whole diagnosis down
        return LogFacts(piece=piece, limits_hit=[READER_ERROR])


__all__ = ["READER_ERROR", "read_log"]
