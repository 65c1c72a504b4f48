"""Discord's rate limits as the fake answers them: per-route buckets and the global limit.

A bucket is a route plus its major parameter (the channel, the guild, or the webhook's token), as on
Discord. Every answer on a limited route carries the `X-RateLimit-*` headers a client throttles
itself by; going past the limit is a 429 with `Retry-After`, the JSON `retry_after` and a `Via`
header (discord.py honours a 429 only with both, otherwise it assumes a Cloudflare ban).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

# The path parameters Discord keys a bucket by, beside the route itself.
MAJOR_PARAMETERS = ("channel", "guild", "token")


@dataclass
class Bucket:
    """`limit` requests per `window` seconds on one route, each major parameter counted apart. The
    window is fixed, as on Discord: it opens with the first request and resets whole when it ends."""

    route: str
    limit: int
    window: float
    hash: str
    # Per key: when the current window opened and how many requests it has taken.
    windows: dict[str, tuple[float, int]] = field(default_factory=dict)

    def _current(self, key: str, now: float) -> tuple[float, int]:
        opened, used = self.windows.get(key, (now, 0))
        if now - opened >= self.window:
            opened, used = now, 0
        return opened, used

    def take(self, key: str, now: float) -> tuple[bool, int, float]:
        """(allowed, remaining, reset_after) for one request on `key` at `now`."""
        opened, used = self._current(key, now)
        reset_after = self.window - (now - opened)
        if used >= self.limit:
            return False, 0, reset_after
        self.windows[key] = (opened, used + 1)
        return True, self.limit - used - 1, reset_after

    def state(self, key: str, now: float) -> tuple[int, float]:
        """(remaining, reset_after) of `key`'s window at `now`."""
        opened, used = self._current(key, now)
        return self.limit - used, self.window - (now - opened)


def bucket_key(params: dict[str, str]) -> str:
    return ":".join(params.get(name, "") for name in MAJOR_PARAMETERS)


def limit_headers(bucket: Bucket, remaining: int, reset_after: float) -> dict[str, str]:
    reset_after = max(reset_after, 0.001)
    return {
        "X-RateLimit-Limit": str(bucket.limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": bucket.hash,
    }


def too_many(
    retry_after: float, *, scope: str, bucket: Bucket | None = None
) -> tuple[dict[str, object], dict[str, str]]:
    """The body and headers of a 429: `scope` is "user" (a bucket), "global" or "shared"."""
    is_global = scope == "global"
    body: dict[str, object] = {
        "message": "You are being rate limited.",
        "retry_after": round(retry_after, 3),
        "global": is_global,
    }
    if is_global:
        body["code"] = 0
    headers = {
        "Via": "1.1 google",
        # Retry-After is whole seconds on Discord; the body has the precise value.
        "Retry-After": str(max(1, math.ceil(retry_after))),
        "X-RateLimit-Scope": scope,
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    if bucket is not None:
        headers.update(limit_headers(bucket, 0, retry_after))
    return body, headers
