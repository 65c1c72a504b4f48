"""`regression_after_update`: It broke after an update."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.rules.base import RuleSpec


def check_regression(f: Facts) -> Finding | None:
    if not f.says_regression:
        return None
    quote = f.evidence.get("user_regression")
    return SPEC.finding(evidence=[quote], params={"quote": quote.text if quote else ""})


SPEC = RuleSpec(
    id="regression_after_update",
    order=210,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("says_regression",),
    rank=85,
    check=check_regression,
    standalone=False,
)
