"""Anti-spam limits: a per-user cooldown and a per-channel reply budget, both with an injected clock."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable

Clock = Callable[[], float]


class Cooldown:
    """One action per key every `seconds`."""

    def __init__(self, seconds: float, clock: Clock = time.monotonic) -> None:
        self._seconds = seconds
        self._clock = clock
        self._last: dict[Hashable, float] = {}

    def remaining(self, key: Hashable) -> float:
        last = self._last.get(key)
        if last is None:
            return 0.0
        return max(0.0, last + self._seconds - self._clock())

    def try_acquire(self, key: Hashable) -> float:
        """0.0 and the action is recorded, or the seconds left to wait (nothing recorded)."""
        left = self.remaining(key)
        if left > 0:
            return left
        now = self._clock()
        self._last[key] = now
        self._prune(now)
        return 0.0

    def refund(self, key: Hashable) -> None:
        """Undo the last `try_acquire` of `key` (the action did not happen after all). Its record
        before that one had run out, or the acquire would have failed, so forgetting it is exact."""
        self._last.pop(key, None)

    def _prune(self, now: float) -> None:
        # Keeps the table as small as the set of recently active users.
        if len(self._last) > 4096:
            self._last = {k: t for k, t in self._last.items() if t + self._seconds > now}


class WindowLimiter:
    """At most `limit` actions per key within any `window` seconds (a sliding window)."""

    def __init__(self, limit: int, window: float, clock: Clock = time.monotonic) -> None:
        self._limit = limit
        self._window = window
        self._clock = clock
        self._hits: dict[Hashable, deque[float]] = {}

    def has_room(self, key: Hashable) -> bool:
        """Whether `try_acquire` would succeed now (nothing recorded)."""
        hits = self._hits.get(key)
        if not hits:
            return self._limit > 0
        self._expire(hits, self._clock())
        return len(hits) < self._limit

    def _expire(self, hits: deque[float], now: float) -> None:
        # Oldest first, so the hits still inside the window are what is left (one look per message
        # instead of a count over up to `limit` hits).
        while hits and hits[0] <= now - self._window:
            hits.popleft()

    def refund(self, key: Hashable) -> None:
        """Undo one `try_acquire` of `key` (the action did not happen after all)."""
        hits = self._hits.get(key)
        if hits:
            hits.pop()  # the newest: the window then frees no later than it would have

    def try_acquire(self, key: Hashable) -> bool:
        now = self._clock()
        hits = self._hits.setdefault(key, deque())
        self._expire(hits, now)
        if len(hits) >= self._limit:
            return False
        hits.append(now)
        if len(self._hits) > 4096:
            self._hits = {k: v for k, v in self._hits.items() if v and v[-1] > now - self._window}
        return True
