from __future__ import annotations

from bot.ratelimit import Cooldown, WindowLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_cooldown_blocks_until_the_period_is_over() -> None:
    clock = Clock()
    cooldown = Cooldown(30, clock)
    assert cooldown.try_acquire("alice") == 0.0
    clock.now += 10
    assert cooldown.try_acquire("alice") == 20.0
    assert cooldown.try_acquire("bob") == 0.0  # per user
    clock.now += 20
    assert cooldown.remaining("alice") == 0.0
    assert cooldown.try_acquire("alice") == 0.0


def test_a_refused_attempt_does_not_restart_the_cooldown() -> None:
    clock = Clock()
    cooldown = Cooldown(30, clock)
    cooldown.try_acquire(1)
    clock.now += 29
    assert cooldown.try_acquire(1) > 0
    clock.now += 1
    assert cooldown.try_acquire(1) == 0.0


def test_zero_cooldown_never_blocks() -> None:
    cooldown = Cooldown(0, Clock())
    assert all(cooldown.try_acquire(1) == 0.0 for _ in range(5))


def test_window_limiter_allows_limit_per_window_per_key() -> None:
    clock = Clock()
    limiter = WindowLimiter(3, 60, clock)
    assert [limiter.try_acquire("c1") for _ in range(4)] == [True, True, True, False]
    assert limiter.try_acquire("c2")
    clock.now += 59.9
    assert not limiter.try_acquire("c1")
    clock.now += 0.1
    assert limiter.try_acquire("c1")


def test_window_limiter_slides() -> None:
    clock = Clock()
    limiter = WindowLimiter(2, 60, clock)
    assert limiter.try_acquire("c")
    clock.now += 30
    assert limiter.try_acquire("c")
    clock.now += 31  # the first hit left the window, the second did not
    assert limiter.try_acquire("c")
    assert not limiter.try_acquire("c")


def test_tables_stay_bounded_with_many_keys() -> None:
    clock = Clock()
    cooldown = Cooldown(1, clock)
    limiter = WindowLimiter(1, 1, clock)
    for key in range(10_000):
        clock.now += 0.01
        cooldown.try_acquire(key)
        limiter.try_acquire(key)
    assert len(cooldown._last) <= 4097
    assert len(limiter._hits) <= 4097


def test_has_room_looks_without_taking() -> None:
    clock = Clock()
    limiter = WindowLimiter(2, 60, clock)
    assert limiter.has_room("c") and limiter.has_room("c")
    assert limiter.try_acquire("c") and limiter.has_room("c")
    assert limiter.try_acquire("c") and not limiter.has_room("c")
    clock.now += 60
    assert limiter.has_room("c")
    assert not WindowLimiter(0, 60, clock).has_room("c")
