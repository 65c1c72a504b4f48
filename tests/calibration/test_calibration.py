"""The memory model against the calibration table (tests/calibration/calibration.yaml): the median
absolute error over the rows with a measured peak, and no row where the estimate contradicts what the
source saw on its card (fits where it ran out of memory, or the reverse) outside the estimate's range."""

from __future__ import annotations

import os
import statistics
from typing import Any, NamedTuple

import pytest
import yaml

from diagnosis.estimate import Fit, Job, estimate, fit, usable_gib
from diagnosis.estimate.fit import PHASE_OF

TABLE = os.path.join(os.path.dirname(__file__), "calibration.yaml")


class Result(NamedTuple):
    id: str
    low: float
    high: float
    observed: float | None  # GiB, for a row with a measured peak
    error: float | None  # |middle of the estimate - observed| / observed
    contradiction: str | None


def _rows() -> list[dict[str, Any]]:
    with open(TABLE, encoding="utf-8") as fh:
        rows: list[dict[str, Any]] = yaml.safe_load(fh)["rows"]
    return rows


def evaluate(row: dict[str, Any]) -> Result:
    est = estimate(Job(**row["settings"]))
    assert est is not None, row["id"]
    observed = row["observed"]
    phase = est.phase(PHASE_OF[observed["phase"]]) if "phase" in observed else None
    total = (phase or est.peak).total
    value = observed.get("peak_gib")
    if "peak_range_gib" in observed:
        value = sum(observed["peak_range_gib"]) / 2
    error = None if value is None else abs(total.mid - value) / value
    contradiction = None
    if "fits" in observed and fit(total, usable_gib(observed["fits"])) is Fit.OVER:
        contradiction = (
            f"estimate {total.low:.1f}–{total.high:.1f} GiB: over a {observed['fits']} GB card it ran on"
        )
    if "oom" in observed and fit(total, usable_gib(observed["oom"])) in (Fit.MARGIN, Fit.TIGHT):
        contradiction = (
            f"estimate {total.low:.1f}–{total.high:.1f} GiB: fits the {observed['oom']} GB card it ran out on"
        )
    return Result(row["id"], total.low, total.high, value, error, contradiction)


def results() -> list[Result]:
    return [evaluate(row) for row in _rows() if not row.get("excluded")]


def test_the_table_has_enough_real_rows() -> None:
    rows = _rows()
    assert len([r for r in rows if not r.get("excluded")]) >= 25
    for row in rows:
        assert row["source"] and row["observed"], row["id"]


def test_median_absolute_error_at_most_20_percent() -> None:
    errors = [r.error for r in results() if r.error is not None]
    assert len(errors) >= 10
    assert statistics.median(errors) <= 0.20, sorted(errors)


@pytest.mark.parametrize("row", [r for r in _rows() if not r.get("excluded")], ids=lambda r: r["id"])
def test_no_row_contradicts_its_source(row: dict[str, Any]) -> None:
    assert evaluate(row).contradiction is None


if __name__ == "__main__":  # a table of every row, for the calibration's record
    for r in results():
        err = "" if r.error is None else f"{r.error:6.1%}"
        seen = "" if r.observed is None else f"{r.observed:5.1f}"
        print(f"{r.id:32s} {r.low:6.1f}–{r.high:6.1f}  {seen:>5s} {err:>7s}  {r.contradiction or ''}")
