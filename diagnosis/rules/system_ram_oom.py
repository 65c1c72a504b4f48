"""`system_ram_oom`: System RAM ran out."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, OomKind, Severity
from diagnosis.rules.base import (
    LOAD_PHASES,
    Placement,
    RuleSpec,
    ev,
)

_SIGNALS = {
    OomKind.HOST_KILLED: "killed",
    OomKind.HOST_ALLOC: "cpu_alloc",
    OomKind.MEMORY_ERROR: "memory_error",
}


def check_system_ram(f: Facts) -> Finding | None:
    event = f.host_oom
    signal: str | None = None
    if event is not None and event.kind in _SIGNALS:
        signal = _SIGNALS[event.kind]
        if event.kind == OomKind.HOST_KILLED and "exited unexpectedly" in event.where.text.lower():
            signal = "ui_exit"
    elif event is None and f.says_host_killed:
        signal = "killed"
    if signal is None:
        return None
    return SPEC.finding(
        evidence=ev(f, "host_oom", "user_host_killed", "layer_offloading"),
        params={"signal": signal, "layer_offloading": f.layer_offloading, **_ram_case(f)},
    )


def _ram_case(f: Facts) -> dict[str, object]:
    """Which fix bullets apply: while the model loads no dataset is read yet; latents already cached
    to disk are not a RAM lever left."""
    if f.phase in LOAD_PHASES:
        return {"ram_case": "load"}
    if f.datasets and all(ds.latents_on_disk for ds in f.datasets):
        return {"ram_case": "on_disk"}
    return {}


SPEC = RuleSpec(
    id="system_ram_oom",
    order=170,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("host_oom", "says_host_killed", "layer_offloading"),
    rank=3,
    check=check_system_ram,
    params=frozenset({"signal", "layer_offloading", "ram_case"}),
    placement=Placement(first=20),
)
