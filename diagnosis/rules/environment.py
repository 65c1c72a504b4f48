"""What is outside the config: other programs on the card, fragmentation, host RAM, the card's size."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, Evidence, Finding, OomKind, OtherProcess, Phase, Severity
from diagnosis.rules.base import (
    GIB,
    LOAD_PHASES,
    RuleSpec,
    batch_one,
    checks_config,
    ev,
    family,
    fmt_gib,
    gpu_oom,
    then_params,
    vram,
)


def _foreign(f: Facts) -> list[OtherProcess]:
    """Processes listed in the OOM message that are not the trainer itself."""
    return [] if f.fatal is None else f.fatal.trainer_and_others()[1]


def check_other_process(f: Facts) -> Finding | None:
    t = thresholds()
    event = f.fatal
    if event is not None and not event.kind.on_host:
        total = event.total_bytes or 0
        others = _foreign(f)
        held = sum(p.bytes for p in others)
        # The config (or the user) names another card than the one that ran out: the device setting did
        # not take, whatever else is on the card that failed.
        device = f.device_index
        if "device" not in f.paths and f.prose_device_index is not None:
            device = f.prose_device_index
        if device is not None and event.device_index is not None and device != event.device_index:
            return _finding(f, held, others, "device_mismatch", ev(f, "device", "user_device"))
        if others and held >= max(t.others_min_gib * GIB, t.others_min_fraction * total):
            return _finding(f, held, others, "other_pids")
        spill = event.allocated_bytes is not None and total and event.allocated_bytes > total
        if (
            not others
            and not spill
            and total
            and event.free_bytes is not None
            and event.process_bytes is not None
        ):
            unaccounted = total - event.free_bytes - event.process_bytes
            if unaccounted >= max(t.unaccounted_min_gib * GIB, t.unaccounted_min_fraction * total):
                return _finding(f, unaccounted, [], "unaccounted")
    if f.says_wrong_gpu and (f.has_oom or f.fatal is not None):
        # The user's words: the job runs on another card than the one chosen (case 023). What the
        # message measured comes first; the advice is that of a measured mismatch, the device first.
        return SPEC.finding(
            evidence=ev(f, "user_wrong_gpu", "oom"),
            params={"reason": "device_mismatch", **_next_by_phase(f), **batch_one(f)},
            severity=Severity.WARNING,
        )
    if f.says_other_programs and (f.has_oom or f.fatal is not None):
        return SPEC.finding(
            evidence=ev(f, "user_other_programs", "oom", "user_closed_others"),
            # Nothing measured: no size and no PIDs to quote.
            params={"reason": "user_says", **_next_by_phase(f), **batch_one(f), **_tried_closing(f)},
            severity=Severity.WARNING,
        )
    return None


def _finding(
    f: Facts, held: int, procs: list[OtherProcess], reason: str, extra: list[Evidence | None] | None = None
) -> Finding:
    return SPEC.finding(
        # The user's "closing them did not help" picks the step's wording: it is quoted as its reason.
        evidence=[*ev(f, "oom"), *(extra or []), *ev(f, "user_other_programs", "user_closed_others")],
        params=_params(held, procs, reason) | _next_by_phase(f) | batch_one(f) | _tried_closing(f),
        severity=Severity.ERROR,
    )


def _tried_closing(f: Facts) -> dict[str, object]:
    """`tried_closing` when the user says closing the programs did not help (case 020): the step then
    asks to find what still holds the card instead of to close the programs again. A device mismatch
    has its own wording, which comes first (its `reason` is read before this flag)."""
    return {"tried_closing": True} if f.says_closed_others else {}


def _next_by_phase(f: Facts) -> dict[str, object]:
    """What to lower once the card is free depends on the phase that failed (RULES.md "Phase changes
    the order"): while loading, the model's low-memory options; while caching latents, the buckets."""
    if f.phase in LOAD_PHASES:
        return then_params(f, prefix="load_")
    if f.phase == Phase.LATENT_CACHING:
        return {"then": "caching"}
    return {}


def _params(held: int, procs: list[OtherProcess], reason: str) -> dict[str, object]:
    params: dict[str, object] = {"reason": reason}
    if held > 0:
        params["others_gib"] = fmt_gib(held / GIB)
    pids = [p.pid for p in procs if p.pid is not None]
    if pids:
        params["pids"] = pids
    return params


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
    return FRAGMENTATION.finding(
        evidence=ev(f, "oom"),
        params={"reserved_gib": fmt_gib(reserved / GIB), "tried_gib": fmt_gib(tried / GIB), **batch_one(f)},
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
    return SYSTEM_RAM.finding(
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


def check_pagefile(f: Facts) -> Finding | None:
    if f.host_oom is None or f.host_oom.kind != OomKind.WINDOWS_PAGEFILE:
        return None
    return PAGEFILE.finding(evidence=ev(f, "host_oom"))


def check_shm(f: Facts) -> Finding | None:
    if f.host_oom is None or f.host_oom.kind != OomKind.SHM:
        return None
    return SHM.finding(evidence=ev(f, "host_oom"))


def check_gpu_too_small(f: Facts) -> Finding | None:
    needed = family(f).min_vram
    if not checks_config(f) or f.family_info is None or needed is None or f.vram_source == "assumed":
        return None
    if vram(f) >= needed:
        return None
    return GPU_TOO_SMALL.finding(
        evidence=ev(f, "arch", "oom"),
        params={"family_label": f.family_label, "vram_gib": vram(f), "needed_gib": needed},
        severity=Severity.ERROR if gpu_oom(f) else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="other_process_on_gpu",
    order=150,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("fatal", "other_processes", "device_index", "says_wrong_gpu", "says_other_programs"),
    rank=2,
    check=check_other_process,
)
FRAGMENTATION = RuleSpec(
    id="fragmentation",
    order=160,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("fatal", "os"),
    rank=70,
    check=check_fragmentation,
)
SYSTEM_RAM = RuleSpec(
    id="system_ram_oom",
    order=170,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("host_oom", "says_host_killed", "layer_offloading"),
    rank=3,
    check=check_system_ram,
)
PAGEFILE = RuleSpec(
    id="windows_pagefile",
    order=180,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("host_oom",),
    rank=3,
    check=check_pagefile,
)
SHM = RuleSpec(
    id="shm_too_small",
    order=200,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("host_oom",),
    rank=3,
    check=check_shm,
)
GPU_TOO_SMALL = RuleSpec(
    id="gpu_too_small_for_model",
    order=190,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("family", "vram_gib", "vram_source"),
    rank=80,
    check=check_gpu_too_small,
)

SPECS: tuple[RuleSpec, ...] = (SPEC, FRAGMENTATION, SYSTEM_RAM, PAGEFILE, GPU_TOO_SMALL, SHM)
