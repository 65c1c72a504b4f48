"""The engine's loggers import `logging` only when something is logged, and then log as usual."""

from __future__ import annotations

import logging

import pytest

from diagnosis.logger import get_logger
from tests.test_cli_startup import CONFIG, LOG, modules_after


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("path", [CONFIG, LOG], ids=["config", "log"])
def test_a_check_that_logs_nothing_does_not_import_logging(fmt: str, path: object) -> None:
    loaded = modules_after("check", str(path), "--format", fmt)
    assert "diagnosis.engine" in loaded
    assert "logging" not in loaded


def test_a_lazy_logger_logs_through_logging(caplog: pytest.LogCaptureFixture) -> None:
    log = get_logger("diagnosis.test_lazy")
    with caplog.at_level(logging.INFO, logger="diagnosis.test_lazy"):
        log.warning("step %d: %s", 2, "held")
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("rule %s failed", "gc_off")
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, "step 2: held"),
        (logging.ERROR, "rule gc_off failed"),
    ]
    assert caplog.records[1].exc_info is not None


def test_a_failing_rule_is_still_logged(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import diagnosis.rules as rules
    from diagnosis import diagnose

    def broken(facts: object) -> None:
        raise RuntimeError("rule bug")

    specs = tuple(s._replace(check=broken) if s.id == "gc_off" else s for s in rules._SPECS)
    monkeypatch.setattr(rules, "_SPECS", specs)
    with caplog.at_level(logging.ERROR, logger="diagnosis.rules"):
        report = diagnose([CONFIG.read_text(encoding="utf-8")])
    assert any(n.id == "rule_failed" and n.params.get("rule_id") == "gc_off" for n in report.notes)
    assert any("gc_off" in r.getMessage() for r in caplog.records)
