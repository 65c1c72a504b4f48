"""`dtype_fp32`: The model loads in 32-bit precision."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    ev,
    path,
    then_params,
    whole_config,
)


def check_dtype(f: Facts) -> Finding | None:
    if not whole_config(f) or f.dtype != "fp32" or (f.params_b or 0) < thresholds().dtype_model_b:
        return None
    return SPEC.finding(
        # A missing key has no line to quote (the bare `train:` header says nothing): the detail says it.
        evidence=ev(f, "dtype"),
        params={
            "dtype": f.dtype if f.dtype_explicit else None,
            **({} if f.dtype_explicit else {"dtype_missing": True}),
            **then_params(f),
        },
        edits=[ConfigEdit(path(f, "dtype", ("train", "dtype")), "bf16")],
    )


SPEC = RuleSpec(
    id="dtype_fp32",
    order=100,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=("dtype", "dtype_explicit", "params_b"),
    rank=38,
    check=check_dtype,
    params=frozenset({"dtype", "dtype_missing", "then", "paths_off"}),
    placement=Placement(phases={Phase.MODEL_LOAD: 40, Phase.QUANTIZE: 40}, leads_when="dtype_missing"),
)
