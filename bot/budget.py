"""One budget of bytes in flight: what the bot downloads and diagnoses at once, and a bounded queue.

Each big case holds its bytes (what it downloads and keeps for the engine) from before its download
until its reply is out; a case that does not fit waits its turn, first come first served, and a case
that finds the queue full is told so (`QueueFull`) instead of piling up. Memory then grows with the
budget, not with the number of members posting logs at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable


class QueueFull(Exception):
    """Too many cases are already waiting for room."""


class ByteBudget:
    def __init__(self, capacity: int, queue_limit: int) -> None:
        self.capacity = capacity
        self.queue_limit = queue_limit
        self.in_use = 0
        self.peak = 0  # the most bytes ever held at once (what the tests and the bench read)
        self._waiting: deque[tuple[int, asyncio.Future[None]]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def _fits(self, size: int) -> bool:
        return self.in_use + size <= self.capacity

    def _take(self, size: int) -> None:
        self.in_use += size
        self.peak = max(self.peak, self.in_use)

    def _wake(self) -> None:
        # In order: a big case at the head is not overtaken for ever by small ones behind it.
        while self._waiting and self._fits(self._waiting[0][0]):
            size, future = self._waiting.popleft()
            if not future.done():
                self._take(size)
                future.set_result(None)

    @contextlib.asynccontextmanager
    async def hold(
        self, size: int, on_wait: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[None]:
        """Hold `size` bytes for the block, waiting for room; `on_wait` runs once when the case has to
        wait. A case bigger than the whole budget runs alone."""
        size = max(0, min(size, self.capacity))
        if not self._waiting and self._fits(size):
            self._take(size)
        else:
            if len(self._waiting) >= self.queue_limit:
                raise QueueFull
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append((size, future))
            try:
                if on_wait is not None:
                    await on_wait()
                await future
            except BaseException:
                if future.done() and not future.cancelled():
                    self._release(size)  # room was given just as the wait was cancelled
                else:
                    with contextlib.suppress(ValueError):
                        self._waiting.remove((size, future))
                    self._wake()
                raise
        try:
            yield
        finally:
            self._release(size)

    def _release(self, size: int) -> None:
        self.in_use -= size
        self._wake()
