"""Training settings that cost memory: frames, dtype, latents, the text encoder, optimizer, rank."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, ConfigEdit, Finding, Severity
from diagnosis.rules.base import (
    RuleSpec,
    batch_one,
    big_model,
    checks_config,
    ds_ev,
    ev,
    family,
    path,
    step_oom,
    then_params,
    vram,
    whole_config,
)

_FULL_PRECISION_OPTIMIZERS = frozenset({"adamw", "adam"})


def _wan_frames(limit: int) -> int:
    """Video models take 4k+1 frames."""
    return max(1, (limit - 1) // 4 * 4 + 1)


def check_video_frames(f: Facts) -> Finding | None:
    if not checks_config(f) or not family(f).is_video or f.num_frames <= 1:
        return None
    largest = f.max_bucket or 512
    budget = family(f).frames_ok_for(vram(f)) * (512 * 512) / (largest * largest)
    limit = _wan_frames(int(budget))
    over = [ds for ds in f.datasets if ds.num_frames > limit]
    if not over:
        return None
    return VIDEO.finding(
        evidence=ds_ev(f, over, "num_frames"),
        params={"frames": f.num_frames, "new_frames": limit, **then_params(f)},
        edits=[ConfigEdit(("datasets", ds.index, "num_frames"), limit) for ds in over],
        severity=Severity.ERROR if step_oom(f) else Severity.WARNING,
    )


def check_dtype(f: Facts) -> Finding | None:
    if not whole_config(f) or f.dtype != "fp32" or (f.params_b or 0) < thresholds().dtype_model_b:
        return None
    return DTYPE.finding(
        # A missing key has no line to quote (the bare `train:` header says nothing): the detail says it.
        evidence=ev(f, "dtype"),
        params={
            "dtype": f.dtype if f.dtype_explicit else None,
            **({} if f.dtype_explicit else {"dtype_missing": True}),
            **then_params(f),
        },
        edits=[ConfigEdit(path(f, "dtype", ("train", "dtype")), "bf16")],
    )


def check_latents(f: Facts) -> Finding | None:
    if not whole_config(f) or not f.datasets or f.latents_cached:
        return None
    missing = [ds for ds in f.datasets if not ds.latents_cached]
    return LATENTS.finding(
        # Only a `cache_latents…: false` line proves it; a key that is missing has no line to quote.
        evidence=ds_ev(f, missing, "cache_latents_to_disk", "cache_latents"),
        edits=[ConfigEdit(("datasets", ds.index, "cache_latents_to_disk"), True) for ds in missing],
    )


def check_train_te(f: Facts) -> Finding | None:
    if not checks_config(f) or not f.train_text_encoder or (f.params_b or 0) < thresholds().train_te_model_b:
        return None
    return TRAIN_TE.finding(
        evidence=ev(f, "train_text_encoder"),
        edits=[ConfigEdit(path(f, "train_text_encoder", ("train", "train_text_encoder")), False)],
    )


def check_optimizer(f: Facts) -> Finding | None:
    if not whole_config(f) or f.optimizer not in _FULL_PRECISION_OPTIMIZERS:
        return None
    big_lora = (f.network_rank or 0) >= thresholds().optimizer_lora_rank and big_model(f)
    if not (f.full_finetune or big_lora):
        return None
    return OPTIMIZER.finding(
        evidence=ev(f, "optimizer"),
        params={"optimizer": f.optimizer, **({} if "optimizer" in f.paths else {"optimizer_missing": True})},
        edits=[ConfigEdit(path(f, "optimizer", ("train", "optimizer")), "adamw8bit")],
    )


def check_rank(f: Facts) -> Finding | None:
    t = thresholds()
    rank = f.network_rank
    if not checks_config(f) or rank is None or rank < t.high_rank or f.full_finetune:
        return None
    if f.network_type == "lokr" or vram(f) > t.high_rank_vram_up_to:
        return None
    new_rank = t.high_rank_new
    edits = [ConfigEdit(path(f, "network_rank", ("network", "linear")), new_rank)]
    if f.network_alpha is not None and "network_alpha" in f.paths:
        # Keep alpha / rank, the LoRA's scale, as it was.
        alpha = f.network_alpha * new_rank / rank
        edits.append(
            ConfigEdit(f.paths["network_alpha"], int(alpha) if alpha.is_integer() else round(alpha, 4))
        )
    return RANK.finding(
        evidence=ev(f, "network_rank", "network_alpha"),
        params={"rank": rank, "new_rank": new_rank, **batch_one(f)},
        edits=edits,
    )


VIDEO = RuleSpec(
    id="video_frames_heavy",
    order=90,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("num_frames", "max_bucket", "family", "vram_gib"),
    rank=28,
    check=check_video_frames,
)
DTYPE = RuleSpec(
    id="dtype_fp32",
    order=100,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=("dtype", "dtype_explicit", "params_b"),
    rank=38,
    check=check_dtype,
)
LATENTS = RuleSpec(
    id="latents_not_cached",
    order=110,
    severity=Severity.INFO,
    applicability=Applicability.MEMORY_ONLY,
    reads=("datasets", "latents_cached"),
    rank=60,
    check=check_latents,
)
TRAIN_TE = RuleSpec(
    id="train_text_encoder_on",
    order=120,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("train_text_encoder", "params_b"),
    rank=48,
    check=check_train_te,
)
OPTIMIZER = RuleSpec(
    id="optimizer_full_precision_states",
    order=130,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("optimizer", "full_finetune", "network_rank", "params_b"),
    rank=52,
    check=check_optimizer,
)
RANK = RuleSpec(
    id="high_rank",
    order=140,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("network_rank", "network_alpha", "network_type", "vram_gib"),
    rank=50,
    check=check_rank,
)

SPECS: tuple[RuleSpec, ...] = (VIDEO, DTYPE, LATENTS, TRAIN_TE, OPTIMIZER, RANK)
