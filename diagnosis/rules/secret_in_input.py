"""`secret_in_input`: A token or key was pasted."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.rules.base import Role, RuleSpec, ev


def check_secret(f: Facts) -> Finding | None:
    if f.secret_count <= 0:
        return None
    return SPEC.finding(
        evidence=ev(f, "secret"),
        params={"kinds": ", ".join(f.secret_kinds), "count": f.secret_count},
    )


SPEC = RuleSpec(
    id="secret_in_input",
    order=250,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("secret_kinds", "secret_count"),
    rank=99,
    check=check_secret,
    params=frozenset({"kinds", "count"}),
    oom_checklist=False,
    role=Role.NOTICE,
)
