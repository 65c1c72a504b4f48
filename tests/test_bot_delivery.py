"""Delivery under faults (bot/delivery.py) with discord.py's own exceptions and a recorded clock:
what is retried, how long it waits, when it gives up, and what it logs."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.delivery import Delivered, Delivery, PermissionProblem, PermissionProblems, Where, missing_in

WHERE = Where("reply", 1, 2, 3)


def response(status: int, headers: dict[str, str] | None = None) -> Any:
    return SimpleNamespace(status=status, reason="reason", headers=headers or {})


def error(status: int, code: int = 0, message: str = "") -> discord.HTTPException:
    body = {"code": code, "message": message or "failed"}
    resp = response(status)
    if status >= 500:
        return discord.DiscordServerError(resp, body)
    if status == 403:
        return discord.Forbidden(resp, body)
    if status == 404:
        return discord.NotFound(resp, body)
    return discord.HTTPException(resp, body)


def scripted(*outcomes: BaseException | str) -> tuple[Callable[[], Awaitable[str]], list[int]]:
    """An operation that raises or returns `outcomes` in turn; the list counts the calls."""
    calls: list[int] = []

    async def op() -> str:
        outcome = outcomes[len(calls)]
        calls.append(1)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return op, calls


def delivery(**kwargs: Any) -> tuple[Delivery, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    options: dict[str, Any] = {"attempts": 4, "backoff": 1.0, "max_wait": 60.0}
    options.update(kwargs)
    return Delivery(sleep=sleep, **options), slept


async def test_a_5xx_is_retried_with_a_doubling_wait() -> None:
    sender, slept = delivery()
    op, calls = scripted(error(503), error(502), "sent")
    assert await sender.send(op, WHERE) == Delivered("sent")
    assert len(calls) == 3 and slept == [1.0, 2.0]


async def test_a_429_waits_what_discord_asks() -> None:
    sender, slept = delivery()
    storm = discord.HTTPException(response(429, {"X-RateLimit-Reset-After": "0.25"}), {"message": "rl"})
    op, _ = scripted(discord.RateLimited(7.5), storm, "sent")
    assert await sender.send(op, WHERE) == Delivered("sent")
    assert slept == [7.5, 0.25]


async def test_attempts_and_total_wait_are_bounded(caplog: pytest.LogCaptureFixture) -> None:
    sender, slept = delivery(attempts=3)
    op, calls = scripted(*[error(503)] * 5)
    assert await sender.send(op, WHERE) is None
    assert len(calls) == 3 and slept == [1.0, 2.0]
    sender, slept = delivery(max_wait=10.0)
    op, calls = scripted(discord.RateLimited(6.0), discord.RateLimited(6.0), "sent")
    assert await sender.send(op, WHERE) is None, "a second 6 s wait would pass the 10 s bound"
    assert len(calls) == 2 and slept == [6.0]
    lost = [r.getMessage() for r in caplog.records if "NOT delivered" in r.getMessage()]
    assert len(lost) == 2 and all("guild=1 channel=2" in line and "message 3" in line for line in lost)


@pytest.mark.parametrize(
    "failure",
    [
        error(404, 10003),
        error(404, 10008),
        error(400, 50035, "Invalid Form Body\nIn message_reference: Unknown message"),
    ],
    ids=["channel", "message", "reference"],
)
async def test_what_is_gone_is_skipped_at_debug(
    failure: discord.HTTPException, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="oomcheck")
    sender, slept = delivery()
    op, calls = scripted(failure)
    assert await sender.send(op, WHERE) is None
    assert len(calls) == 1 and slept == []
    assert [r.levelno for r in caplog.records if r.name.startswith("oomcheck")] == [logging.DEBUG]


async def test_other_client_errors_are_not_retried(caplog: pytest.LogCaptureFixture) -> None:
    sender, slept = delivery()
    op, calls = scripted(error(400, 50035, "Invalid Form Body\nIn content: too long"), "sent")
    assert await sender.send(op, WHERE) is None
    assert len(calls) == 1 and slept == []
    assert [r for r in caplog.records if "NOT delivered" in r.getMessage()]


async def test_a_permission_problem_is_logged_once_per_channel(caplog: pytest.LogCaptureFixture) -> None:
    sender, _ = delivery()
    for message_id in (3, 4, 5):
        op, _ = scripted(error(403, 50013))
        assert await sender.send(op, Where("reply", 1, 2, message_id)) is None
    op, _ = scripted(error(403, 50001))
    await sender.send(op, Where("reply", 1, 9, 6))
    lines = [r.getMessage() for r in caplog.records if "missing permission" in r.getMessage()]
    assert len(lines) == 2 and "channel=2" in lines[0] and "channel=9" in lines[1]
    last = sender.permissions.last(1)
    assert last is not None and last.channel_id == 9 and last.code == 50001
    # Once a send works there again, a new problem there is news again.
    op, _ = scripted("sent")
    await sender.send(op, Where("reply", 1, 2, 7))
    op, _ = scripted(error(403, 50013))
    await sender.send(op, Where("reply", 1, 2, 8))
    assert len([r for r in caplog.records if "missing permission" in r.getMessage()]) == 3


def test_the_missing_permission_is_read_from_the_cache() -> None:
    granted = discord.Permissions(view_channel=True, send_messages=True)
    channel = SimpleNamespace(guild=SimpleNamespace(me=object()), permissions_for=lambda me: granted)
    assert missing_in(channel, ("view_channel", "send_messages", "embed_links")) == ("embed_links",)
    assert missing_in(channel, ("view_channel",)) == ("unknown",), "a stale cache says it does not know"
    assert missing_in(None, ("view_channel",)) == ("unknown",)


def test_problems_are_kept_per_guild() -> None:
    problems = PermissionProblems()
    problems.record(PermissionProblem(1, 2, ("send_messages",), 50013, 0.0))
    assert problems.last(1) is not None and problems.last(5) is None
