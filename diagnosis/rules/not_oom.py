"""`not_oom`: This is not an out-of-memory error."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.rules.base import Placement, Role, RuleSpec, Verdict, ev


def check_not_oom(f: Facts) -> Finding | None:
    if f.not_oom_kind is None:
        return None
    return SPEC.finding(
        evidence=ev(f, "not_oom"),
        params={"kind": f.not_oom_kind, "headline": f.not_oom_headline or ""},
    )


SPEC = RuleSpec(
    id="not_oom",
    order=220,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("not_oom_kind", "not_oom_headline"),
    rank=0,
    check=check_not_oom,
    params=frozenset({"kind", "headline"}),
    oom_checklist=False,
    role=Role.VERDICT,
    placement=Placement(first=10),
    verdict=Verdict(quote="headline", quote_lang="", after=("explanation",), ends_checklist=True),
)
