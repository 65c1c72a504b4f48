"""`gpu_too_small_for_model`: The GPU is too small for this model."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Phase, Severity
from diagnosis.rules.base import (
    VRAM_ONLY,
    Placement,
    RuleSpec,
    checks_config,
    ev,
    family,
    gpu_oom,
    vram,
)


def check_gpu_too_small(f: Facts) -> Finding | None:
    needed = family(f).min_vram
    if not checks_config(f) or f.family_info is None or needed is None or f.vram_source == "assumed":
        return None
    if vram(f) >= needed:
        return None
    return SPEC.finding(
        evidence=ev(f, "arch", "oom"),
        params={"family_label": f.family_label, "vram_gib": vram(f), "needed_gib": needed},
        severity=Severity.ERROR if gpu_oom(f) else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="gpu_too_small_for_model",
    order=190,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("family", "vram_gib", "vram_source"),
    rank=80,
    check=check_gpu_too_small,
    params=frozenset({"family_label", "vram_gib", "needed_gib"}),
    # Before every config change: on a card below what the family needs with every low-memory path
    # on, none of those changes can make it fit.
    placement=Placement(first=50, phases={Phase.MODEL_LOAD: 50, Phase.QUANTIZE: 50}, ruled_out_by=VRAM_ONLY),
)
