"""`latents_not_cached`: Latents are not cached."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    Role,
    RuleSpec,
    ds_ev,
    in_phases,
    whole_config,
)


def check_latents(f: Facts) -> Finding | None:
    if not whole_config(f) or not f.datasets or f.latents_cached:
        return None
    missing = [ds for ds in f.datasets if not ds.latents_cached]
    return SPEC.finding(
        # Only a `cache_latents…: false` line proves it; a key that is missing has no line to quote.
        evidence=ds_ev(f, missing, "cache_latents_to_disk", "cache_latents"),
        edits=[ConfigEdit(("datasets", ds.index, "cache_latents_to_disk"), True) for ds in missing],
    )


SPEC = RuleSpec(
    id="latents_not_cached",
    order=110,
    severity=Severity.INFO,
    applicability=Applicability.MEMORY_ONLY,
    reads=("datasets", "latents_cached"),
    rank=60,
    check=check_latents,
    role=Role.TIP,
    placement=Placement(
        last_in=in_phases(Phase.MODEL_LOAD, Phase.QUANTIZE), ruled_out_by=frozenset({"load", "host"})
    ),
)
