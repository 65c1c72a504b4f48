"""Session fixtures of the hostile suite: big inputs are built once, engine reports are computed once."""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator
from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.report import Report
from tests.hostile.gen import EXAMPLE_CONFIG, EXAMPLE_LOG, Case, big_cases, small_cases

GC_RULES = {"gc_off", "risky_family_gc_off"}
WATCHDOG_S = 300  # far above any sane case, which takes seconds


class CaseBook:
    """Every hostile case by name, its files on disk and its engine report (each computed once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cases: dict[str, Case] = {c.name: c for c in small_cases()}
        self._big_built = False
        self._reports: dict[str, Report] = {}

    def case(self, name: str) -> Case:
        if name not in self.cases and not self._big_built:
            self.cases.update({c.name: c for c in big_cases()})
            self._big_built = True
        return self.cases[name]

    def paths(self, name: str) -> list[Path]:
        folder = self.root / name
        if not folder.exists():
            folder.mkdir()
            for filename, data in self.case(name).files:
                (folder / filename).write_bytes(data)
        return [folder / filename for filename, _ in self.case(name).files]

    def report(self, name: str) -> Report:
        if name not in self._reports:
            case = self.case(name)
            # Every ladder step written: the most work a hostile input can cause.
            self._reports[name] = diagnose(
                [data for _, data in case.files], sources=[f for f, _ in case.files], steps=None
            )
        return self._reports[name]


@pytest.fixture(scope="session")
def book(tmp_path_factory: pytest.TempPathFactory) -> CaseBook:
    return CaseBook(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="session")
def baseline() -> dict[str, Report]:
    """The unmodified example config and log, the controls that hostile variants are compared with."""
    return {
        "config": diagnose([EXAMPLE_CONFIG], sources=["config.yaml"]),
        "log": diagnose([EXAMPLE_LOG], sources=["train.log"]),
    }


@pytest.fixture(scope="session")
def engine_live(baseline: dict[str, Report]) -> None:
    """The control every semantic check compares with: the example config (GC off) raises a GC finding."""
    ids = {f.rule_id for f in baseline["config"].findings}
    assert ids & GC_RULES, "the example config (GC off) raises no GC finding: the engine is broken"


@pytest.fixture(autouse=True)
def _watchdog() -> Iterator[None]:
    """An in-process case that hangs kills the run with every thread's stack, instead of blocking CI."""
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
