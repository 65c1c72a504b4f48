"""`video_frames_heavy`: Too many video frames for this card."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    checks_config,
    ds_ev,
    family,
    in_phases,
    step_oom,
    then_params,
    vram,
)


def _wan_frames(limit: int) -> int:
    """Video models take 4k+1 frames."""
    return max(1, (limit - 1) // 4 * 4 + 1)


def check_video_frames(f: Facts) -> Finding | None:
    if not checks_config(f) or not family(f).is_video or f.num_frames <= 1:
        return None
    largest = f.max_bucket or 512
    budget = family(f).frames_ok_for(vram(f)) * (512 * 512) / (largest * largest)
    limit = _wan_frames(int(budget))
    over = [ds for ds in f.datasets if ds.num_frames > limit]
    if not over:
        return None
    return SPEC.finding(
        evidence=ds_ev(f, over, "num_frames"),
        params={"frames": f.num_frames, "new_frames": limit, **then_params(f)},
        edits=[ConfigEdit(("datasets", ds.index, "num_frames"), limit) for ds in over],
        severity=Severity.ERROR if step_oom(f) else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="video_frames_heavy",
    order=90,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("num_frames", "max_bucket", "family", "vram_gib"),
    rank=28,
    check=check_video_frames,
    params=frozenset({"frames", "new_frames", "then", "paths_off"}),
    placement=Placement(
        phases={Phase.LATENT_CACHING: 20, Phase.TRAINING_STEP: 50},
        last_in=in_phases(Phase.MODEL_LOAD, Phase.QUANTIZE),
        ruled_out_by=frozenset({"load", "host"}),
    ),
)
