"""`gc_off` and `risky_family_gc_off`: gradient checkpointing explicitly off (missing means on)."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import danger_conditions
from diagnosis.models import Applicability, ConfigEdit, Finding, Severity
from diagnosis.rules.base import (
    CACHING_PHASES,
    LOAD_PHASES,
    SAMPLING_PHASES,
    RuleSpec,
    batch_one,
    checks_config,
    ds_ev,
    ev,
    family,
    gpu_oom,
    path,
)


def _gc_is_off(f: Facts) -> bool:
    return checks_config(f) and f.gc_explicit and not f.gradient_checkpointing


def _severity(f: Facts) -> Severity:
    # GC only shapes training-step activations: an OOM while loading, caching or sampling, or one of
    # the host, is not caused by it, so it stays a warning there.
    if f.host_oom is not None or f.phase in LOAD_PHASES | SAMPLING_PHASES | CACHING_PHASES:
        return Severity.WARNING
    return Severity.ERROR if gpu_oom(f) else Severity.WARNING


def _edit(f: Facts) -> ConfigEdit:
    return ConfigEdit(path(f, "gradient_checkpointing", ("train", "gradient_checkpointing")), True)


def check_gc_off(f: Facts) -> Finding | None:
    if not _gc_is_off(f):
        return None
    return GC_OFF.finding(
        evidence=ev(f, "gradient_checkpointing"), params=batch_one(f), edits=[_edit(f)], severity=_severity(f)
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
    if not _gc_is_off(f) or not dangerous(f):
        return None
    return RISKY.finding(
        evidence=[*ev(f, "gradient_checkpointing", "batch_size"), *ds_ev(f, f.datasets, "resolution")],
        params={"family": f.family, "family_label": f.family_label, **batch_one(f)},
        edits=[_edit(f)],
        severity=_severity(f),
    )


GC_OFF = RuleSpec(
    id="gc_off",
    order=10,
    severity=Severity.ERROR,
    applicability=Applicability.MEMORY_ONLY,
    reads=("gradient_checkpointing", "gc_explicit", "phase", "gpu_oom", "host_oom"),
    rank=10,
    check=check_gc_off,
)

RISKY = RuleSpec(
    id="risky_family_gc_off",
    order=20,
    severity=Severity.ERROR,
    applicability=Applicability.MEMORY_ONLY,
    reads=("gradient_checkpointing", "gc_explicit", "family", "batch_size", "buckets", "control_images"),
    rank=11,
    check=check_risky,
)

SPECS: tuple[RuleSpec, ...] = (GC_OFF, RISKY)
