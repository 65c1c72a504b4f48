"""`train_text_encoder_on`: The text encoder is being trained."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    VRAM_ONLY,
    Placement,
    RuleSpec,
    checks_config,
    ev,
    in_phases,
    path,
)


def check_train_te(f: Facts) -> Finding | None:
    if not checks_config(f) or not f.train_text_encoder or (f.params_b or 0) < thresholds().train_te_model_b:
        return None
    return SPEC.finding(
        evidence=ev(f, "train_text_encoder"),
        edits=[ConfigEdit(path(f, "train_text_encoder", ("train", "train_text_encoder")), False)],
    )


SPEC = RuleSpec(
    id="train_text_encoder_on",
    order=120,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("train_text_encoder", "params_b"),
    rank=48,
    check=check_train_te,
    placement=Placement(
        last_in=in_phases(
            Phase.MODEL_LOAD, Phase.QUANTIZE, Phase.LATENT_CACHING, Phase.TEXT_EMBEDDING_CACHING
        ),
        ruled_out_by=VRAM_ONLY,
    ),
)
