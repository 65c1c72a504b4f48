"""`optimizer_full_precision_states`: The optimizer keeps full-precision states."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    all_phases_but,
    big_model,
    ev,
    path,
    whole_config,
)

_FULL_PRECISION_OPTIMIZERS = frozenset({"adamw", "adam"})


def check_optimizer(f: Facts) -> Finding | None:
    if not whole_config(f) or f.optimizer not in _FULL_PRECISION_OPTIMIZERS:
        return None
    big_lora = (f.network_rank or 0) >= thresholds().optimizer_lora_rank and big_model(f)
    if not (f.full_finetune or big_lora):
        return None
    return SPEC.finding(
        evidence=ev(f, "optimizer"),
        params={"optimizer": f.optimizer, **({} if "optimizer" in f.paths else {"optimizer_missing": True})},
        edits=[ConfigEdit(path(f, "optimizer", ("train", "optimizer")), "adamw8bit")],
    )


SPEC = RuleSpec(
    id="optimizer_full_precision_states",
    order=130,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("optimizer", "full_finetune", "network_rank", "params_b"),
    rank=52,
    check=check_optimizer,
    params=frozenset({"optimizer", "optimizer_missing"}),
    placement=Placement(
        last_in=all_phases_but(Phase.DATALOADER, Phase.TRAINING_STEP, Phase.SAVE),
        ruled_out_by=frozenset({"load", "host"}),
    ),
)
