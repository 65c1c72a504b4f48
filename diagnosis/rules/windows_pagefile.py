"""`windows_pagefile`: The Windows page file is too small."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, OomKind, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    ev,
)


def check_pagefile(f: Facts) -> Finding | None:
    if f.host_oom is None or f.host_oom.kind != OomKind.WINDOWS_PAGEFILE:
        return None
    return SPEC.finding(evidence=ev(f, "host_oom"))


SPEC = RuleSpec(
    id="windows_pagefile",
    order=180,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("host_oom",),
    rank=3,
    check=check_pagefile,
    placement=Placement(first=30),
)
