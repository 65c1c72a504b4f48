"""`high_rank`: The LoRA rank is high."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    all_phases_but,
    batch_one,
    checks_config,
    ev,
    path,
    vram,
)


def check_rank(f: Facts) -> Finding | None:
    t = thresholds()
    rank = f.network_rank
    if not checks_config(f) or rank is None or rank < t.high_rank or f.full_finetune:
        return None
    if f.network_type == "lokr" or vram(f) > t.high_rank_vram_up_to:
        return None
    new_rank = t.high_rank_new
    edits = [ConfigEdit(path(f, "network_rank", ("network", "linear")), new_rank)]
    if f.network_alpha is not None and "network_alpha" in f.paths:
        # Keep alpha / rank, the LoRA's scale, as it was.
        alpha = f.network_alpha * new_rank / rank
        edits.append(
            ConfigEdit(f.paths["network_alpha"], int(alpha) if alpha.is_integer() else round(alpha, 4))
        )
    return SPEC.finding(
        evidence=ev(f, "network_rank", "network_alpha"),
        params={"rank": rank, "new_rank": new_rank, **batch_one(f)},
        edits=edits,
    )


SPEC = RuleSpec(
    id="high_rank",
    order=140,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("network_rank", "network_alpha", "network_type", "vram_gib"),
    rank=50,
    check=check_rank,
    params=frozenset({"rank", "new_rank", "batch_one"}),
    placement=Placement(
        last_in=all_phases_but(Phase.TRAINING_STEP, Phase.SAVE),
        ruled_out_by=frozenset({"load", "host"}),
    ),
)
