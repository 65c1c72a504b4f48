"""`fragmentation`: GPU memory is fragmented."""

from __future__ import annotations

from typing import Any

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, Finding, Phase, Severity
from diagnosis.rules.base import (
    GIB,
    Placement,
    RuleSpec,
    batch_one,
    ev,
    fmt_gib,
    in_phases,
)


def check_fragmentation(f: Facts) -> Finding | None:
    event = f.fatal
    if event is None or event.kind.on_host:
        return None
    if f.os not in (None, "linux"):
        # The only fix offered, expandable segments, needs the CUDA driver API that PyTorch uses on
        # Linux; elsewhere PyTorch warns and ignores the setting, so the user would spend a retry on it.
        return None
    reserved, tried = event.reserved_unallocated_bytes, event.tried_bytes
    if reserved is None or tried is None:
        return None
    t = thresholds()
    if reserved < t.fragmentation_min_gib * GIB or reserved < t.fragmentation_tried_ratio * tried:
        return None
    return SPEC.finding(
        evidence=ev(f, "oom"),
        params={"reserved_gib": fmt_gib(reserved / GIB), "tried_gib": fmt_gib(tried / GIB), **batch_one(f)},
    )


def _quotable(out: dict[str, Any]) -> dict[str, Any]:
    reserved, tried = out.get("reserved_gib"), out.get("tried_gib")
    if not (isinstance(reserved, int | float) and isinstance(tried, int | float) and reserved > tried):
        out.pop("tried_gib", None)  # "more than the request that failed" would not be true
    return out


SPEC = RuleSpec(
    id="fragmentation",
    order=160,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("fatal", "os"),
    rank=70,
    check=check_fragmentation,
    params=frozenset({"reserved_gib", "tried_gib", "batch_one"}),
    placement=Placement(
        last_in=in_phases(Phase.MODEL_LOAD, Phase.QUANTIZE), ruled_out_by=frozenset({"host"})
    ),
    quotable=_quotable,
)
