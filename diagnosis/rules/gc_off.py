"""`gc_off`: Gradient checkpointing is turned off."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Phase, Severity
from diagnosis.rules.base import (
    VRAM_ONLY,
    Placement,
    RuleSpec,
    all_phases_but,
    batch_one,
    ev,
    gc_edit,
    gc_is_off,
    gc_severity,
)


def check_gc_off(f: Facts) -> Finding | None:
    if not gc_is_off(f):
        return None
    return SPEC.finding(
        evidence=ev(f, "gradient_checkpointing"),
        params=batch_one(f),
        edits=[gc_edit(f)],
        severity=gc_severity(f),
    )


SPEC = RuleSpec(
    id="gc_off",
    order=10,
    severity=Severity.ERROR,
    applicability=Applicability.MEMORY_ONLY,
    reads=("gradient_checkpointing", "gc_explicit", "phase", "gpu_oom", "host_oom"),
    rank=10,
    check=check_gc_off,
    params=frozenset({"batch_one"}),
    placement=Placement(
        phases={Phase.TRAINING_STEP: 10}, last_in=all_phases_but(Phase.TRAINING_STEP), ruled_out_by=VRAM_ONLY
    ),
    group="gc",
)
