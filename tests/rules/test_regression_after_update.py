"""The rule `regression_after_update` (diagnosis/rules/regression_after_update.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Evidence
from tests.rules.helpers import assert_said_in_both_languages, check


def test_regression_after_update() -> None:
    f = Facts(said={"regression_after_update.regression": "since updating it OOMs"})
    found = check("regression_after_update", f)
    assert found.params == {"quote": "since updating it OOMs"}
    assert found.evidence == [Evidence("user", None, "since updating it OOMs")]
    worked = {"regression_after_update.worked_before": "It worked before"}
    assert check("regression_after_update", Facts(said=worked)) is None
    same = worked | {"regression_after_update.same_settings": "same settings"}
    assert check("regression_after_update", Facts(said=same)).params == {"quote": "It worked before"}
    assert check("regression_after_update", Facts()) is None


def test_regression_is_said_in_both_languages() -> None:
    f = Facts(said={"regression_after_update.regression": "since updating it OOMs"})
    assert_said_in_both_languages("regression_after_update", f)
