"""`no_low_vram`: Low VRAM mode is off for a large model."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    LOW_VRAM,
    VRAM_ONLY,
    Placement,
    RuleSpec,
    big_model,
    checks_config,
    ev,
    family,
    load_oom,
    path,
    then_params,
    vram,
)


def check_low_vram(f: Facts) -> Finding | None:
    if not checks_config(f) or f.low_vram or f.family_info is None:
        return None
    fam = family(f)
    if not fam.low_vram:
        return None
    if not (vram(f) <= fam.low_vram_up_to or (load_oom(f) and big_model(f))):
        return None
    return SPEC.finding(
        evidence=ev(f, "low_vram", "arch", "oom"),
        # Flags that only pick texts (after `then`, whose "next" wins): the UI hides Low VRAM for
        # some families, and only some support Layer Offloading (config-reference §1.3, §4.3).
        params={
            "family_label": f.family_label,
            **then_params(f, [LOW_VRAM], offload=True),
            **({"offload": True} if fam.layer_offloading and fam.ui_layer_offloading else {}),
            **({"offload_advanced": True} if fam.layer_offloading and not fam.ui_layer_offloading else {}),
            **({"ui_hidden": True} if not fam.ui_low_vram else {}),
        },
        edits=[ConfigEdit(path(f, "low_vram", ("model", "low_vram")), True)],
        severity=Severity.ERROR if load_oom(f) else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="no_low_vram",
    order=70,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=("low_vram", "family", "params_b", "vram_gib", "phase"),
    rank=40,
    check=check_low_vram,
    params=frozenset({"family_label", "offload", "offload_advanced", "ui_hidden", "then", "paths_off"}),
    placement=Placement(
        phases={
            Phase.MODEL_LOAD: 20,
            Phase.QUANTIZE: 10,
            Phase.LATENT_CACHING: 30,
            Phase.TEXT_EMBEDDING_CACHING: 20,
        },
        # Low VRAM keeps the weights in system RAM: it costs the host what it saves the card.
        ruled_out_by=VRAM_ONLY,
    ),
)
