"""Seconds per step read from tqdm bars, per kind of bar, and whether the training bar slowed down.

tqdm prints its rate as `5.00s/it` below one step a second and `4.50it/s` above; both become seconds
per step. A long log redraws its training bar tens of thousands of times, so a bar's readings are a
sample: the lines that hold a multiple of `spacing` characters of the text. The same lines are taken
whether the reader feeds a line or skips it inside a run of redraws (the sample depends on where a
line sits, not on how it was read), and the spacing doubles whenever the sample is full, so a bar
keeps at most `_CAP` readings spread evenly over the log.
"""

from __future__ import annotations

import re
from statistics import median_low

from diagnosis.models import LogLine, StepTimes

# Bounded digits and one optional blank: linear, and tried only after a bar's `%|`.
_RATE = re.compile(r"(\d{1,7}(?:\.\d{1,6})?) ?(s/it|it/s)")
_CAP = 64  # readings kept per bar kind
_FIRST_SPACING = 64  # characters: at the start every bar line is taken
# "Several-fold": the later steps at least this many times slower than the earlier ones.
SLOWDOWN_FACTOR = 3.0
_QUOTE_CHARS = 1000


def seconds_per_step(line: str) -> float | None:
    """The rate of a bar line as seconds per step, or None (no rate yet: `?it/s`, or not a bar)."""
    at = line.find("%|")
    if at < 0:
        return None
    match = _RATE.search(line, at + 2)
    if match is None:
        return None
    value = float(match.group(1))
    if match.group(2) == "s/it":
        return value
    return 1.0 / value if value > 0 else None


# What a NaN or infinite loss looks like in a bar's postfix (`lr: 1.0e-04 loss: nan`).
_NAN_LOSS = ("loss: nan", "loss: inf", "loss: -inf", "loss=nan", "loss=inf")


def _has_nan_loss(text: str) -> bool:
    return "loss" in text and any(needle in text for needle in _NAN_LOSS)


def _quote(line: int, text: str) -> LogLine:
    return LogLine(line, text.strip()[:_QUOTE_CHARS])


class BarTimes:
    """The readings of one kind of bar ("training", "sample", "quantize", …) across a log."""

    __slots__ = ("count", "first", "last_line", "last_text", "nan_loss", "readings", "spacing", "taken_end")

    def __init__(self) -> None:
        self.count = 0  # bar lines of this kind seen, read or skipped
        self.first: tuple[float, LogLine] | None = None  # the first line that showed a rate
        self.last_line = 0
        self.last_text = ""
        self.spacing = _FIRST_SPACING
        self.taken_end = -1  # the end of the last line taken: the segments of one line count once
        self.readings: list[tuple[float, int, int, str]] = []  # seconds, mark, line, text
        # The first line read (a sampled line, or the last one) whose loss is NaN or infinite: once a
        # loss is NaN it stays so, and reading every line for it would cost a scan of every redraw.
        self.nan_loss: LogLine | None = None

    def _mark(self, start: int, end: int) -> int | None:
        """The first multiple of `spacing` in the line `start`..`end` (its line break), if any."""
        if start <= self.taken_end:
            return None
        mark = -(-start // self.spacing) * self.spacing
        return mark if mark <= end else None

    def see(self, line: int, text: str, start: int, end: int) -> None:
        """One bar line whose physical line is `start`..`end` in the log text (`end`: its line break)."""
        self.count += 1
        self.last_line, self.last_text = line, text
        if self.first is None:
            rate = seconds_per_step(text)
            if rate is not None:
                self.first = (rate, _quote(line, text))
        mark = self._mark(start, end)
        if mark is not None:
            self.take(mark, line, text, end)

    def see_run(self, log: str, start: int, end: int, first_line: int, lines: int) -> None:
        """The `lines` redraw lines `log[start:end]` (whole lines, each ending in a line break), numbered
        from `first_line`: the readings `see` takes from each of them, found without reading every line."""
        if lines == 0:
            return
        self.count += lines
        last_start = log.rfind("\n", start, end - 1) + 1
        self.last_line, self.last_text = first_line + lines - 1, log[max(start, last_start) : end - 1]
        if self.first is None:
            self._first_in(log, start, end, first_line)
        at = start
        number = first_line
        while at < end:
            mark = -(-at // self.spacing) * self.spacing
            if mark >= end:
                break
            before = log.rfind("\n", at, mark)  # a mark on a line break belongs to the line it ends
            line_start = at if before < 0 else before + 1
            line_end = log.find("\n", mark, end)
            number += log.count("\n", at, line_start)
            if line_start > self.taken_end:
                self.take(mark, number, log[line_start:line_end], line_end)
            at = line_end + 1
            number += 1

    def _first_in(self, log: str, start: int, end: int, first_line: int) -> None:
        at = start
        while at < end:
            hit = _RATE.search(log, at, end)
            if hit is None:
                return
            before = log.rfind("\n", start, hit.start())
            line_start = start if before < 0 else before + 1
            line_end = log.find("\n", hit.end(), end)
            text = log[line_start:line_end]
            rate = seconds_per_step(text)  # the text found may sit before the bar's `%|`
            if rate is not None:
                self.first = (rate, _quote(first_line + log.count("\n", start, line_start), text))
                return
            at = line_end + 1

    def take(self, mark: int, line: int, text: str, end: int) -> None:
        self.taken_end = end
        if self.nan_loss is None and _has_nan_loss(text):
            self.nan_loss = _quote(line, text)
        rate = seconds_per_step(text)
        if rate is None:
            return
        self.readings.append((rate, mark, line, text))
        if len(self.readings) > _CAP:
            self.spacing *= 2
            self.readings = [r for r in self.readings if r[1] % self.spacing == 0]

    def finish(self) -> None:
        if self.nan_loss is None and _has_nan_loss(self.last_text):
            self.nan_loss = _quote(self.last_line, self.last_text)

    def summary(self) -> StepTimes | None:
        if self.first is None:
            return None
        first_s, first_where = self.first
        last_s = seconds_per_step(self.last_text)
        last_where = _quote(self.last_line, self.last_text)
        if last_s is None:  # the last line shows no rate (a bar just restarted): the last one that did
            if self.readings:
                last_s, _, number, text = self.readings[-1]
                last_where = _quote(number, text)
            else:
                last_s, last_where = first_s, first_where
        # One value per line, in log order: the first and last lines, and the sample between them.
        by_line = {first_where.line: first_s}
        for seconds, _, number, _ in self.readings:
            by_line.setdefault(number, seconds)
        by_line.setdefault(last_where.line, last_s)
        values = list(by_line.values())
        ratio: float | None = None
        slow_from: LogLine | None = None
        if len(values) >= 2:
            share = max(1, len(values) // 3)
            early = median_low(values[:share])
            late = median_low(values[-share:])
            ratio = round(late / early, 2) if early > 0 else None
            if ratio is not None and ratio >= SLOWDOWN_FACTOR:
                slow = next((r for r in self.readings if r[0] >= early * SLOWDOWN_FACTOR), None)
                slow_from = _quote(slow[2], slow[3]) if slow is not None else last_where
        return StepTimes(
            first_s=first_s,
            typical_s=median_low(values),
            last_s=last_s,
            seen=self.count,
            first=first_where,
            last=last_where,
            slowdown_ratio=ratio,
            slow_from=slow_from,
        )
