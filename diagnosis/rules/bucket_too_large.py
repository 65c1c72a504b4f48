"""`bucket_too_large`: The largest resolution bucket is too big."""

from __future__ import annotations

from typing import Any

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    CACHING_PHASES,
    Placement,
    RuleSpec,
    ds_ev,
    ev,
    family,
    gpu_oom,
    in_phases,
    model_cut,
    sized_params,
    step_oom,
    then_params,
    vram,
)

# "Do I need to drop a bucket?", "バケットを減らす必要はありますか？": answered yes or no (RuleSpec.asked_by).
WORDS = {
    "asks": (
        r"\b(?:do|should|must|have) (?:i|we) (?:really )?(?:need to |have to |to )?"
        r"(?:drop|remove|lower|reduce|cut)\b[^?\n]{0,30}\bbuckets?\b",
        r"\bneed to (?:drop|remove|lower|reduce|cut)\b[^?\n]{0,30}\bbuckets?\b[^\n]{0,20}\?",
        r"バケット[^？?\n]{0,15}(?:外|減ら|下げ|削)[^？?\n]{0,15}(?:必要|べき|ますか|ないと|なきゃ|ほうが)",
    ),
}

# Dropping the largest bucket after a step OOM only helps when a high-resolution one is there.
_HIGH_RES = 1024


def _kept(resolutions: list[int], over: bool, limit: int, largest: int) -> list[int]:
    """A dataset's buckets after the fix: those the card holds (or all but the largest)."""
    kept = [r for r in resolutions if (r <= limit if over else r < largest)]
    return kept or [min(limit, largest)]


def _edits(f: Facts, over: bool, limit: int, largest: int) -> list[ConfigEdit]:
    edits: list[ConfigEdit] = []
    for ds in f.datasets:
        key = f"datasets[{ds.index}].resolution"
        kept = _kept(ds.resolutions, over, limit, largest)
        if key not in f.paths or kept == ds.resolutions:
            continue
        value: Any = kept if len(ds.resolutions) > 1 or len(kept) > 1 else kept[0]
        edits.append(ConfigEdit(f.paths[key], value))
    return edits


def _cap(f: Facts, at: Facts | None, buckets: list[int], limit: int) -> tuple[int, bool]:
    """(the largest bucket the fix keeps, whether the memory estimate chose it): the largest of the
    user's buckets within the card's limit (a larger one the config alone would flag again) at which
    the job fits with the margin; without the estimate, the limit."""
    sized = model_cut(f, at, "bucket", [b for b in buckets if b <= limit])
    return (limit, False) if sized is None else (sized, True)


def check(f: Facts, at: Facts | None = None) -> Finding | None:
    from_config = bool(f.config_parsed and f.datasets)
    buckets = f.buckets if from_config else f.prose_buckets
    if not buckets:
        return None
    table_limit = family(f).bucket_ok_for(vram(f))
    largest = max(buckets)
    over = largest > table_limit
    in_step = step_oom(f)
    after_step_oom = in_step and largest >= _HIGH_RES and len(buckets) >= 2
    if not (over or after_step_oom):
        return None
    # Only a fix that edits the config is sized: advice names no buckets to keep.
    limit, sized = _cap(f, at, buckets, table_limit) if from_config and over else (table_limit, False)
    keep = sorted({r for ds in f.datasets for r in _kept(ds.resolutions, over, limit, largest)})
    if not from_config:
        keep = _kept(buckets, over, limit, largest)
    if over and (in_step or f.phase in CACHING_PHASES or (f.phase == Phase.UNKNOWN and gpu_oom(f))):
        severity = Severity.ERROR
    elif over:
        severity = Severity.WARNING
    else:
        severity = Severity.INFO
    evidence = ds_ev(f, f.datasets, "resolution") if from_config else ev(f, "user_buckets")
    return SPEC.finding(
        evidence=[*evidence, *ev(f, "oom")] if in_step else evidence,
        # Exact buckets to keep are named only where the edit keeps them; advice names no buckets.
        params=sized_params(f, sized)
        | {"max_bucket": largest, "limit": table_limit}
        | ({"new_buckets": keep} if over else {"within": True})
        | ({"new_max_bucket": max(keep)} if sized else {})
        # After a training step or while caching, the preview is not what failed: the next line
        # leaves it out.
        | then_params(f, prefix="" if in_step or f.phase in CACHING_PHASES else "preview_"),
        # After a step OOM with buckets the card usually holds, dropping the largest is advice: the log
        # alone cannot say that the bucket was the cause, and an edit would be asked for again (the same
        # log over the corrected config would drop the next bucket).
        edits=_edits(f, over, limit, largest) if from_config and over else [],
        severity=severity,
    )


def _quotable(out: dict[str, Any]) -> dict[str, Any]:
    largest, limit = out.get("max_bucket"), out.get("limit")
    if isinstance(largest, int) and isinstance(limit, int):
        # Above the card's limit the edit keeps the buckets up to it; otherwise it drops the largest.
        out["over"] = largest > limit
    return out


SPEC = RuleSpec(
    id="bucket_too_large",
    order=40,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("buckets", "prose_buckets", "family", "vram_gib", "phase"),
    rank=25,
    check=check,
    resize=check,
    # `step`: the ladder step a direct answer names (RuleSpec.asked_by).
    params=frozenset(
        {
            "max_bucket",
            "limit",
            "new_buckets",
            "within",
            "over",
            "then",
            "paths_off",
            "step",
            "sized",
            "sized_assumed",
            "card_gb",
            "new_max_bucket",
        }
    ),
    placement=Placement(
        phases={Phase.LATENT_CACHING: 10, Phase.TRAINING_STEP: 40},
        last_in=in_phases(Phase.MODEL_LOAD, Phase.QUANTIZE, Phase.SAVE),
        ruled_out_by=frozenset({"load", "host"}),
    ),
    quotable=_quotable,
    words=WORDS,
    asked_by="asks",
)
