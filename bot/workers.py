"""Engine work in worker processes, each killable on its own.

A diagnosis of a big log is CPU work in Python: threads add nothing under the GIL and stall the event
loop, so big inputs go to processes. `concurrent.futures.ProcessPoolExecutor` cannot stop one stuck
task (terminating a worker breaks the whole pool and fails every other diagnosis in it), hence this
small pool: one pipe per worker, a job is `fn(engine, *args)`, and a worker past its time limit is
killed and replaced while the others keep going.

Workers start from a `forkserver` (never a fork of the running event loop, whose threads and sockets
a child would inherit); the server imports the engine once, so each worker starts with it imported,
and `warm` runs one small case in each new worker so its first real job pays no first-use costs.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import pickle
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

log = logging.getLogger("oomcheck.bot")
T = TypeVar("T")
# A new worker imports the engine (already imported in the forkserver) and runs the warm-up.
_START_TIMEOUT = 120.0
# The longest wait before trying again to start a worker that did not start.
_RETRY_MAX_DELAY = 60.0
_NICENESS = 10
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)


class WorkerLost(RuntimeError):
    """The worker died before it answered (killed from outside, out of memory, a crash)."""


class DiagnosisTimedOut(TimeoutError):
    """The job ran past its time limit; its worker was killed and replaced."""


def hand_back_big_buffers() -> None:
    """Return the memory of a big input to the system once it is freed, so that a process's size
    follows what it holds now, not the biggest burst it ever went through. glibc raises its mmap
    threshold after each big free (up to 32 MiB), and big buffers then stay in its heaps (one per
    thread that allocated them) after use; a fixed threshold keeps them mapped, unmapped on free."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, 256 * 1024)


def _settle_in() -> None:
    """A worker yields the CPU to the bot's own process, whose event loop answers everyone else (the
    gateway, chat-sized cases) in milliseconds."""
    with contextlib.suppress(OSError):
        os.nice(_NICENESS)
    hand_back_big_buffers()


def send_job(conn: Connection, job: object) -> None:
    """A job to a worker. Big buffers in it (a file's bytes, `bot.textfile.RawText`) go out of band:
    written to the pipe from where they are, with the interpreter lock released, instead of copied
    into the pickle with it held (milliseconds for every megabyte)."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(job, protocol=5, buffer_callback=buffers.append)
    conn.send_bytes(len(buffers).to_bytes(4, "big") + head)
    for buffer in buffers:
        with buffer.raw() as raw:
            conn.send_bytes(raw)


def recv_job(conn: Connection) -> Any:
    """What `send_job` sent."""
    head = conn.recv_bytes()
    buffers = [conn.recv_bytes() for _ in range(int.from_bytes(head[:4], "big"))]
    return pickle.loads(memoryview(head)[4:], buffers=buffers)


def _serve(conn: Connection, factory: Callable[[], Any], warm: Callable[[Any], object] | None) -> None:
    _settle_in()
    engine = factory()
    if warm is not None:
        warm(engine)
    conn.send(None)  # ready: a job's time limit never pays for the imports and the warm-up
    while True:
        try:
            fn, args, kwargs = recv_job(conn)
        except (EOFError, OSError):
            return  # the bot closed its end: nothing more will come
        try:
            reply: tuple[bool, Any] = (True, fn(engine, *args, **kwargs))
        except Exception as exc:
            reply = (False, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # an unpicklable result or exception: say what it was
            conn.send((False, RuntimeError(f"{type(exc).__name__} while returning a result")))


class _Worker:
    def __init__(
        self, ctx: BaseContext, factory: Callable[[], Any], warm: Callable[[Any], object] | None
    ) -> None:
        parent, child = ctx.Pipe()
        self.process: BaseProcess = ctx.Process(  # type: ignore[attr-defined]
            target=_serve, args=(child, factory, warm), name="oomcheck-engine", daemon=True
        )
        self.process.start()
        child.close()  # only the worker holds its end, so its death reads as EOF here
        self.conn = parent

    def wait_ready(self, timeout: float) -> None:
        if not self.conn.poll(timeout):
            self.kill()
            raise WorkerLost(f"a new worker was not ready within {timeout} s")
        self.conn.recv()

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)

    def stop(self) -> None:
        self.conn.close()  # the worker reads EOF and returns
        self.process.join(2)
        if self.process.is_alive():
            self.kill()


class ProcessWorkers:
    """`size` engine processes; `run` hands a job to an idle one and waits at most `timeout`."""

    def __init__(
        self,
        factory: Callable[[], Any],
        size: int,
        *,
        warm: Callable[[Any], object] | None = None,
        preload: Sequence[str] = (),
        start_method: str = "forkserver",
    ) -> None:
        self.size = size
        self._factory = factory
        self._warm = warm
        self._ctx = multiprocessing.get_context(start_method)
        if preload and start_method == "forkserver":
            self._ctx.set_forkserver_preload(list(preload))
        self._idle: asyncio.Queue[_Worker] | None = None
        self._all: set[_Worker] = set()
        # Sending a big input and reading a report back are blocking pipe I/O: one thread per worker.
        self._io = ThreadPoolExecutor(size, thread_name_prefix="oomcheck-worker-io")
        self.replaced = 0
        self._tasks: set[asyncio.Task[object]] = set()

    def pids(self) -> list[int]:
        return [w.pid for w in self._all if w.pid is not None]

    def _new(self) -> _Worker:
        worker = _Worker(self._ctx, self._factory, self._warm)
        worker.wait_ready(_START_TIMEOUT)
        self._all.add(worker)
        return worker

    async def start(self) -> None:
        if self._idle is not None:
            return
        self._idle = asyncio.Queue()
        for _ in range(self.size):
            self._idle.put_nowait(await asyncio.to_thread(self._new))

    async def _retire(self, worker: _Worker, reading: asyncio.Future[Any] | None = None) -> None:
        """Kill `worker`; its pending read then ends with EOF."""
        self._all.discard(worker)
        await asyncio.to_thread(worker.kill)
        if reading is not None:
            with contextlib.suppress(EOFError, OSError, TimeoutError):
                await asyncio.wait_for(reading, 10)
        worker.conn.close()
        self.replaced += 1

    async def _refill(self, *, retry: bool) -> bool:
        """Start a worker in a retired one's place; False when it did not start. With `retry`, one
        that does not start is tried again, later and later, until one does: a pool that lost a
        slot for good would leave every big case waiting."""
        assert self._idle is not None
        delay = 1.0
        while True:
            try:
                self._idle.put_nowait(await asyncio.to_thread(self._new))
                return True
            except (WorkerLost, EOFError, OSError) as exc:
                log.warning("a new engine worker did not start (%s)", exc)
                if not retry:
                    return False
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX_DELAY)

    async def _replace(self, worker: _Worker, reading: asyncio.Future[Any] | None = None) -> None:
        """Retire `worker` and start another in its place; if that one does not start, keep trying
        in the background (the job that lost its worker answers its user meanwhile)."""
        await self._retire(worker, reading)
        if not await self._refill(retry=False):
            self._in_background(self._refill(retry=True))

    def _in_background(self, job: Coroutine[Any, Any, object]) -> None:
        self._tasks.add(task := asyncio.get_running_loop().create_task(job))
        task.add_done_callback(self._tasks.discard)

    async def run(self, timeout: float, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._idle is None:
            await self.start()
        assert self._idle is not None
        worker = await self._idle.get()
        loop = asyncio.get_running_loop()
        reading: asyncio.Future[Any] | None = None
        try:
            await loop.run_in_executor(self._io, send_job, worker.conn, (fn, args, kwargs))
            reading = loop.run_in_executor(self._io, worker.conn.recv)
            ok, value = await asyncio.wait_for(asyncio.shield(reading), timeout)
        except TimeoutError:
            log.warning("a diagnosis ran past %.0f s; its worker %s is replaced", timeout, worker.pid)
            await self._replace(worker, reading)
            raise DiagnosisTimedOut(f"no result within {timeout} s") from None
        except (EOFError, OSError) as exc:
            log.warning("engine worker %s died; it is replaced", worker.pid)
            await self._replace(worker)
            raise WorkerLost(str(exc)) from exc
        except asyncio.CancelledError:
            # The worker may be mid-job and cannot take another until it answers: it is replaced.
            self._in_background(self._replace(worker, reading))
            raise
        self._idle.put_nowait(worker)
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def close(self) -> None:
        for worker in list(self._all):
            worker.stop()
        self._all.clear()
        self._io.shutdown(wait=False, cancel_futures=True)
