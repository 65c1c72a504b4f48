"""`layer_offloading_off`: The job does not fit the card even quantized and with Low VRAM, and the
model supports Layer Offloading, which is off."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Severity
from diagnosis.rules.base import (
    VRAM_ONLY,
    Placement,
    RuleSpec,
    big_model,
    ev,
    family,
    load_oom,
    model_load_over,
    no_oom_seen,
    path,
    whole_config,
)


def check_layer_offloading(f: Facts) -> Finding | None:
    if not whole_config(f) or f.layer_offloading or f.family_info is None:
        return None
    fam = family(f)
    if not fam.layer_offloading:
        return None
    # Quantize and Low VRAM come first (steps of their own); this is what is left after them.
    if (fam.low_vram and not f.low_vram) or (big_model(f) and not f.quantize):
        return None
    # The run died loading or quantizing the model, or, before any crash, the estimate says that is
    # where it cannot fit: no cut of the batch, the buckets or the frames lowers those phases.
    if not (load_oom(f) or (no_oom_seen(f) and model_load_over(f))):
        return None
    return SPEC.finding(
        evidence=ev(f, "layer_offloading", "low_vram", "quantize", "oom"),
        params={
            "family_label": f.family_label,
            **({"advanced": True} if not fam.ui_layer_offloading else {}),
        },
        edits=[ConfigEdit(path(f, "layer_offloading", ("model", "layer_offloading")), True)],
        severity=Severity.ERROR if load_oom(f) else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="layer_offloading_off",
    order=75,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=("layer_offloading", "low_vram", "quantize", "family", "params_b", "vram_gib", "phase"),
    rank=46,
    check=check_layer_offloading,
    params=frozenset({"family_label", "advanced"}),
    # It moves the weights into system RAM: after the host ran out, it is no fix.
    placement=Placement(ruled_out_by=VRAM_ONLY),
)
