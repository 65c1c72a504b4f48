"""Sending to Discord when Discord misbehaves: bounded retries, permission problems said once per
channel, vanished channels skipped quietly, and a log line for every reply that is finally lost.

discord.py already retries some failures (a 429 carrying `Via`, and 500/502/504 on channel routes,
up to five times) but not a 503, nor a 429 past `max_ratelimit_timeout` (`RateLimited`, which is not
an `HTTPException`), nor a storm that outlasts its five tries. Those come here, and are tried again
within `attempts` and `max_wait` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

import discord

log = logging.getLogger("oomcheck.bot")
T = TypeVar("T")

MISSING_PERMISSIONS = 50013
MISSING_ACCESS = 50001
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
INVALID_FORM_BODY = 50035
# A channel send needs these; a reply also reads history, embeds and files need their own.
SEND = ("view_channel", "send_messages")
SEND_IN_THREAD = ("view_channel", "send_messages_in_threads")


@dataclass(frozen=True)
class Where:
    """What is being delivered, for the log: the member's message it answers, where."""

    what: str
    guild_id: int | None
    channel_id: int
    message_id: int | None


@dataclass(frozen=True)
class Delivered(Generic[T]):
    """What the send returned (an operation may return None and still have been delivered)."""

    value: T


@dataclass(frozen=True)
class PermissionProblem:
    guild_id: int | None
    channel_id: int
    missing: tuple[str, ...]
    code: int
    at: float


class PermissionProblems:
    """The last permission problem per server (for `/oom-config`), logged once per channel until a
    send in that channel works again."""

    def __init__(self) -> None:
        self._open: set[int] = set()
        self._last: dict[int | None, PermissionProblem] = {}

    def record(self, problem: PermissionProblem) -> bool:
        """Keep `problem`; True when it is news for its channel (and so was logged)."""
        self._last[problem.guild_id] = problem
        if problem.channel_id in self._open:
            return False
        self._open.add(problem.channel_id)
        log.warning(
            "missing permission in guild=%s channel=%s: %s (Discord error %s); "
            "replies there are skipped until it is granted",
            problem.guild_id,
            problem.channel_id,
            ", ".join(problem.missing),
            problem.code,
        )
        return True

    def resolved(self, channel_id: int) -> None:
        if channel_id in self._open:
            self._open.discard(channel_id)
            log.info("channel %s accepts the bot's messages again", channel_id)

    def last(self, guild_id: int | None) -> PermissionProblem | None:
        return self._last.get(guild_id)


def needed_for(
    channel: object, *, reply: bool = False, embeds: bool = False, files: bool = False
) -> tuple[str, ...]:
    """The permission names (discord.Permissions attributes) a send into `channel` needs."""
    needs = list(SEND_IN_THREAD if isinstance(channel, discord.Thread) else SEND)
    if reply:
        needs.append("read_message_history")
    if embeds:
        needs.append("embed_links")
    if files:
        needs.append("attach_files")
    return tuple(needs)


def missing_in(channel: object, needs: Collection[str]) -> tuple[str, ...]:
    """Which of `needs` the bot lacks in `channel`, as its cache knows them; Discord's error does
    not say, and a cache that has not caught up yet says "unknown"."""
    guild = getattr(channel, "guild", None)
    me = getattr(guild, "me", None)
    permissions_for = getattr(channel, "permissions_for", None)
    if me is None or permissions_for is None:
        return ("unknown",)
    granted = permissions_for(me)
    missing = tuple(name for name in needs if not getattr(granted, name, False))
    return missing or ("unknown",)


def _is_gone(exc: discord.HTTPException) -> bool:
    """The channel, thread or answered message no longer exists (deleted before the reply)."""
    if exc.code in (UNKNOWN_CHANNEL, UNKNOWN_MESSAGE):
        return True
    # A reply to a deleted message: Discord refuses the reference rather than the message.
    return exc.code == INVALID_FORM_BODY and "message_reference" in exc.text.lower()


def _retry_after(exc: discord.HTTPException) -> float:
    headers = exc.response.headers if exc.response is not None else {}
    for name in ("X-RateLimit-Reset-After", "Retry-After"):
        try:
            return float(headers[name])
        except (KeyError, ValueError):
            continue
    return 1.0


class Delivery:
    def __init__(
        self,
        *,
        attempts: int,
        backoff: float,
        max_wait: float,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.attempts = attempts
        self.backoff = backoff
        self.max_wait = max_wait
        self.permissions = PermissionProblems()
        self._sleep = sleep

    async def send(
        self,
        op: Callable[[], Awaitable[T]],
        where: Where,
        *,
        channel: object = None,
        needs: Collection[str] = SEND,
    ) -> Delivered[T] | None:
        """`op()`'s result, or None when it could not be delivered (and the log says why)."""
        waited = 0.0
        reason = ""
        for attempt in range(1, self.attempts + 1):
            try:
                result = await op()
            except discord.RateLimited as exc:
                delay, reason = exc.retry_after, "rate limited (429)"
            except discord.DiscordServerError as exc:
                delay, reason = self.backoff * 2 ** (attempt - 1), f"HTTP {exc.status}"
            except discord.Forbidden as exc:
                if exc.code in (MISSING_PERMISSIONS, MISSING_ACCESS):
                    self._permission_problem(where, exc.code, missing_in(channel, needs))
                    return None
                reason = f"HTTP 403 (Discord error {exc.code})"
                break
            except discord.HTTPException as exc:
                if exc.status == 429:
                    delay, reason = _retry_after(exc), "rate limited (429)"
                elif _is_gone(exc):
                    log.debug(
                        "%s to message %s skipped: channel %s or the message is gone (Discord error %s)",
                        where.what,
                        where.message_id,
                        where.channel_id,
                        exc.code,
                    )
                    return None
                else:
                    reason = f"HTTP {exc.status} (Discord error {exc.code})"
                    break
            else:
                self.permissions.resolved(where.channel_id)
                return Delivered(result)
            if attempt == self.attempts or waited + delay > self.max_wait:
                break
            await self._sleep(delay)
            waited += delay
        log.warning(
            "%s to message %s NOT delivered (guild=%s channel=%s): %s, gave up after %d attempt(s), %.1f s",
            where.what,
            where.message_id,
            where.guild_id,
            where.channel_id,
            reason,
            attempt,
            waited,
        )
        return None

    def _permission_problem(self, where: Where, code: int, missing: tuple[str, ...]) -> None:
        self.permissions.record(
            PermissionProblem(where.guild_id, where.channel_id, missing, code, time.time())
        )
        log.debug("%s to message %s skipped for a missing permission", where.what, where.message_id)
