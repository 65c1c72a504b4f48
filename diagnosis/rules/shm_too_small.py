"""`shm_too_small`: Shared memory (/dev/shm) is too small."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, OomKind, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    ev,
)


def check_shm(f: Facts) -> Finding | None:
    if f.host_oom is None or f.host_oom.kind != OomKind.SHM:
        return None
    return SPEC.finding(evidence=ev(f, "host_oom"))


SPEC = RuleSpec(
    id="shm_too_small",
    order=200,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("host_oom",),
    rank=3,
    check=check_shm,
    placement=Placement(first=40),
)
