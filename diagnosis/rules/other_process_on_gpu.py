"""`other_process_on_gpu`: Another program is using the GPU."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, Evidence, Finding, OtherProcess, Phase, Severity
from diagnosis.rules.base import (
    GIB,
    LOAD_PHASES,
    Placement,
    RuleSpec,
    all_phases_but,
    batch_one,
    ev,
    fmt_gib,
    then_params,
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


SPEC = RuleSpec(
    id="other_process_on_gpu",
    order=150,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("fatal", "other_processes", "device_index", "says_wrong_gpu", "says_other_programs"),
    rank=2,
    check=check_other_process,
    # Whatever the phase, a card already half full is the first thing to rule out.
    placement=Placement(phases=dict.fromkeys(all_phases_but(), 0)),
)
