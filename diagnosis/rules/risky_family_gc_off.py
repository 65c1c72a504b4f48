"""`risky_family_gc_off`: Gradient checkpointing is off on a model family that needs it."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import danger_conditions
from diagnosis.models import Applicability, Finding, Phase, Severity
from diagnosis.rules.base import (
    VRAM_ONLY,
    Placement,
    RuleSpec,
    all_phases_but,
    batch_one,
    ds_ev,
    ev,
    family,
    gc_edit,
    gc_is_off,
    gc_severity,
)


def dangerous(f: Facts) -> bool:
    """The article's dangerous combination for this family holds."""
    for cond in danger_conditions(family(f)):
        mx = f.max_bucket or 0
        if cond.max_bucket_at_least is not None and mx < cond.max_bucket_at_least:
            continue
        if cond.batch_at_least is not None and f.batch_size < cond.batch_at_least:
            continue
        if cond.buckets_at_least is not None and len(f.buckets) < cond.buckets_at_least:
            continue
        if cond.control_images_at_least is not None and f.control_images < cond.control_images_at_least:
            continue
        return True
    return False


def check_risky(f: Facts) -> Finding | None:
    if not gc_is_off(f) or not dangerous(f):
        return None
    return SPEC.finding(
        evidence=[*ev(f, "gradient_checkpointing", "batch_size"), *ds_ev(f, f.datasets, "resolution")],
        params={"family": f.family, "family_label": f.family_label, **batch_one(f)},
        edits=[gc_edit(f)],
        severity=gc_severity(f),
    )


SPEC = RuleSpec(
    id="risky_family_gc_off",
    order=20,
    severity=Severity.ERROR,
    applicability=Applicability.MEMORY_ONLY,
    reads=("gradient_checkpointing", "gc_explicit", "family", "batch_size", "buckets", "control_images"),
    rank=11,
    check=check_risky,
    params=frozenset({"family", "family_label", "batch_one"}),
    placement=Placement(
        phases={Phase.TRAINING_STEP: 20}, last_in=all_phases_but(Phase.TRAINING_STEP), ruled_out_by=VRAM_ONLY
    ),
    group="gc",
)
