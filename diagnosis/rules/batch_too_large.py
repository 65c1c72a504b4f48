"""`batch_too_large`: Batch size is too large for this card."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    all_phases_but,
    checks_config,
    ev,
    family,
    model_cut,
    model_over,
    path,
    sized_params,
    step_oom,
    vram,
)


def _new_batch(
    f: Facts, at: Facts | None, safe: int, after_oom: bool, over: bool = False
) -> tuple[int, bool]:
    """(the batch after the fix, whether the memory estimate chose it). The estimate picks the largest
    divisor of the batch (so that accumulation keeps the effective batch) below it and within the
    card's safe start (a larger one the config alone would flag again) at which the job fits with
    the margin. Without it: 1 after an OOM in a step (the article's safe start), else the largest
    divisor within the safe start."""
    batch = f.batch_size
    divisors = [d for d in range(1, min(batch - 1, max(safe, 1)) + 1) if batch % d == 0]
    sized = model_cut(f, at, "batch", divisors)
    if sized is None and over:
        # Fired because the training step cannot fit: the batch at which that step fits, whatever
        # the model's load needs (the low-VRAM rules' business).
        sized = model_cut(f, at, "batch", divisors, cut_only=True)
    if sized is not None:
        return sized, True
    return (1 if after_oom or over else max(divisors)), False


def check(f: Facts, at: Facts | None = None) -> Finding | None:
    if not checks_config(f) or f.batch_size <= 1:
        return None
    safe = family(f).safe_batch_for(vram(f))
    in_step = step_oom(f)
    # A config the estimate says cannot fit at all, where nothing places a crash (none yet, or an OOM
    # told in words): the table's safe start does not know the buckets (FLUX.1 at batch 4 is a safe
    # start on 24 GB, not at 1536 px). Where the log shows the phase, it says where the memory went,
    # and the table decides as before.
    over = f.phase is Phase.UNKNOWN and f.host_oom is None and model_over(f)
    if not (in_step or f.batch_size > safe or over):
        return None
    new_batch, sized = _new_batch(f, at, safe, in_step, over)
    factor = f.batch_size // new_batch
    edits = [ConfigEdit(path(f, "batch_size", ("train", "batch_size")), new_batch)]
    gas = f.gradient_accumulation_steps
    new_accumulation: int | None
    legacy: dict[str, object] = {}
    if gas > 1:
        # The legacy key counts every batch as a step and updates every `gas` of them; raising it would
        # cut the updates of the same `steps` by the batch factor. The fix moves the accumulation to
        # `gradient_accumulation` (one step takes all its batches: the two keys cannot both be > 1)
        # and divides `steps`, so the run makes the same updates on as many images.
        new_accumulation = gas * factor
        edits.append(
            ConfigEdit(path(f, "gradient_accumulation_steps", ("train", "gradient_accumulation_steps")), 1)
        )
        edits.append(
            ConfigEdit(path(f, "gradient_accumulation", ("train", "gradient_accumulation")), new_accumulation)
        )
        legacy = {"legacy_accumulation": gas, "legacy": "without_steps"}
        if f.train_steps is not None:
            new_steps = max(1, round(f.train_steps / gas))
            edits.append(ConfigEdit(path(f, "train_steps", ("train", "steps")), new_steps))
            legacy.update(legacy="with_steps", steps=f.train_steps, new_steps=new_steps)
            # Saves and previews are counted in the same steps: kept at the same point of training.
            scaled = _every_edits(f, gas)
            if scaled:
                edits.extend(scaled)
                legacy["legacy"] = "with_steps_every"
    elif gas < 0:
        # -1 already accumulates a whole epoch; the effective batch does not depend on the batch size.
        new_accumulation = None
    else:
        new_accumulation = f.gradient_accumulation * factor
        edits.append(
            ConfigEdit(path(f, "gradient_accumulation", ("train", "gradient_accumulation")), new_accumulation)
        )
    effective = f.batch_size * f.gradient_accumulation * max(gas, 1)
    return SPEC.finding(
        evidence=ev(f, "batch_size", "oom" if in_step else "batch_size"),
        params={
            **sized_params(f, sized),
            **({"over": True} if over and not in_step and f.batch_size <= safe else {}),
            "batch_size": f.batch_size,
            "new_batch_size": new_batch,
            "new_accumulation": new_accumulation,
            "effective_batch": effective,
            **legacy,
        },
        edits=edits,
        severity=Severity.ERROR if in_step else Severity.WARNING,
    )


def _every_edits(f: Facts, factor: int) -> list[ConfigEdit]:
    """`save_every` and `sample_every` divided by `factor`, where the config sets them."""
    edits = []
    for fact, default, every in (
        ("save_every", ("save", "save_every"), f.save_every),
        ("sample_every", ("sample", "sample_every"), f.sample_every),
    ):
        if fact in f.paths and every is not None and every > 0:
            new = max(1, round(every / factor))
            if new != every:
                edits.append(ConfigEdit(path(f, fact, default), new))
    return edits


SPEC = RuleSpec(
    id="batch_too_large",
    order=30,
    severity=Severity.ERROR,
    applicability=Applicability.CHANGES_RESULTS,
    reads=(
        "batch_size",
        "gradient_accumulation",
        "gradient_accumulation_steps",
        "train_steps",
        "save_every",
        "sample_every",
        "family",
        "vram_gib",
        "phase",
    ),
    rank=20,
    check=check,
    resize=check,
    params=frozenset(
        {
            "batch_size",
            "new_batch_size",
            "new_accumulation",
            "effective_batch",
            "legacy",
            "legacy_accumulation",
            "steps",
            "new_steps",
            "sized",
            "sized_assumed",
            "over",
            "card_gb",
        }
    ),
    placement=Placement(
        phases={Phase.TRAINING_STEP: 30},
        last_in=all_phases_but(Phase.TRAINING_STEP),
        ruled_out_by=frozenset({"load", "host"}),
    ),
)
