"""An estimate against a card: does it fit, what the OOM message proves, how far a setting must go down."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from diagnosis.estimate.arch import constants
from diagnosis.estimate.job import Job, job_from_facts
from diagnosis.estimate.model import Estimate, PhaseEstimate, Span, estimate
from diagnosis.facts_model import Facts
from diagnosis.record import replace

# The log's phases → the model's (the first sample is a preview; saving happens after a step).
PHASE_OF = {
    "model_load": "model_load",
    "quantize": "quantize",
    "latent_caching": "latent_caching",
    "text_embedding_caching": "latent_caching",
    "dataloader": "latent_caching",
    "first_sample": "sampling",
    "sampling": "sampling",
    "training_step": "training_step",
    "save": "training_step",
}


class Fit(StrEnum):
    MARGIN = "margin"  # the high end fits with the margin
    TIGHT = "tight"  # the high end fits, without the margin
    BORDERLINE = "borderline"  # the card falls inside the range
    OVER = "over"  # even the low end does not fit


def usable_gib(vram_class: float) -> float:
    """What a card sold as `vram_class` GB offers a process, in GiB."""
    return vram_class * constants().usable_share


def fit(total: Span, usable: float) -> Fit:
    if total.high <= usable * constants().margin:
        return Fit.MARGIN
    if total.high <= usable:
        return Fit.TIGHT
    if total.low <= usable:
        return Fit.BORDERLINE
    return Fit.OVER


def observed_floor(est: Estimate, phase: str, held_gib: float) -> Estimate:
    """The estimate with the phase where the run failed raised to what the process was seen holding
    (in use plus what it tried to allocate): the OOM message's numbers win over the model."""
    name = PHASE_OF.get(phase)
    out: list[PhaseEstimate] = []
    for p in est.phases:
        total = p.total
        if p.phase == name and total.low < held_gib:
            # The low end moves up to what was seen; the range keeps its width above it.
            lift = Span(held_gib - total.low, held_gib - total.low)
            comps = tuple(
                c if c.name != "overhead" else replace(c, gib=c.gib.plus(lift)) for c in p.components
            )
            p = replace(p, components=comps)
        out.append(p)
    return replace(est, phases=tuple(out))


def largest_that_fits(job: Job, field: str, candidates: Iterable[int], usable: float) -> int | None:
    """The largest of `candidates` for `field` ("frames", "bucket", "batch") whose estimated peak fits
    `usable` GiB with the margin; None when none does (or the family is not in the table)."""
    for value in sorted(set(candidates), reverse=True):
        est = estimate(replace(job, **{field: value}))
        if est is None:
            return None
        if fit(est.peak.total, usable) is Fit.MARGIN:
            return value
    return None


def largest_that_fits_on_card(facts: Facts, field: str, candidates: Iterable[int]) -> int | None:
    """`largest_that_fits` for a rule: the job its Facts describe, on the card they name. None when
    the family, its architecture or the card is not known, or nothing fits: the rule then keeps its
    own table. A rule that cuts after another step of the ladder (GC, then the batch) should pass
    Facts with that step applied, or it cuts further than needed."""
    job = job_from_facts(facts)
    if job is None or facts.vram_gib is None:
        return None
    return largest_that_fits(job, field, candidates, usable_gib(facts.vram_gib))
