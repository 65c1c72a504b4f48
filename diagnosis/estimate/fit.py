"""An estimate against a card: does it fit, what the OOM message proves, how far a setting must go down."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum

from diagnosis.estimate.arch import constants
from diagnosis.estimate.job import Job, job_from_facts
from diagnosis.estimate.model import GIB, Estimate, PhaseEstimate, Span, estimate
from diagnosis.facts_model import Facts
from diagnosis.record import Record, fields, replace

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


def estimate_of(job: Job, memo: dict[tuple[object, ...], object] | None = None) -> Estimate | None:
    """`estimate(job)`, remembered in `memo` (a case's `Facts.estimates`): the ladder sizes several
    steps of one case (batch, bucket, frames, each on the config as the steps before it leave it)
    from the same jobs. A Job is a record of plain values: equal values, equal estimates."""
    if memo is None:
        return estimate(job)
    key = tuple(getattr(job, f.name) for f in fields(job))
    if key not in memo:
        memo[key] = estimate(job)
    found = memo[key]
    return found if isinstance(found, Estimate) else None


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


class Floor(Record):
    """What an OOM message proves, for the estimate of a changed config: the process held `held` GiB
    at `phase` (the log's phase) with the config whose estimate is `before`. A change is credited with
    what the model says it saves in that phase, and no more."""

    phase: str
    held: float
    before: Estimate


def held_in(facts: Facts) -> tuple[float, float | None] | None:
    """(what the process held when it failed, the card's total) from the fatal OOM message of the
    card, in GiB; None when there is none or it gives no figures."""
    event = facts.fatal
    if event is None or event.kind.on_host:
        return None
    held, _ = event.trainer_and_others()
    if held is None:
        return None
    total = None if event.total_bytes is None else event.total_bytes / GIB
    return (held + (event.tried_bytes or 0)) / GIB, total


def raised(after: Estimate, floor: Floor | None) -> Estimate:
    """`after` (the estimate of a changed config) never below what the OOM message proves less what
    the change saves by the model in the phase where the run failed."""
    if floor is None:
        return after
    name = PHASE_OF.get(floor.phase, "training_step")
    before, now = floor.before.phase(name), after.phase(name)
    if before is None or now is None:
        return after
    return observed_floor(after, floor.phase, floor.held - (before.total.mid - now.total.mid))


# The phases that the batch, the buckets and the frames change. Loading and quantizing the model do
# not depend on them: a load that does not fit is the low-VRAM and quantization rules' to fix, and no
# cut of these makes it fit, so it is no reason for a cut to fire.
_CUT_PHASES = ("latent_caching", "training_step")


def _cut_peak(est: Estimate) -> Span:
    """The highest of the phases a cut changes (the training step, latent caching)."""
    totals = [p.total for p in est.phases if p.phase in _CUT_PHASES]
    return max(totals, key=lambda t: (t.high, t.low)) if totals else est.peak.total


def largest_that_fits(
    job: Job,
    field: str,
    candidates: Iterable[int],
    usable: float,
    floor: Floor | None = None,
    tied: Callable[[int], Mapping[str, int]] | None = None,
    memo: dict[tuple[object, ...], object] | None = None,
    cut_only: bool = False,
) -> int | None:
    """The largest of `candidates` for `field` ("frames", "bucket", "batch") whose estimated peak fits
    `usable` GiB with the margin; None when none does (or the family is not in the table). `floor`:
    what an OOM message proves (`raised`); `tied`: the other settings that go with a value (the
    buckets a clip of that many frames keeps)."""
    for value in sorted(set(candidates), reverse=True):
        est = estimate_of(replace(job, **{field: value, **(tied(value) if tied is not None else {})}), memo)
        if est is None:
            return None
        seen = raised(est, floor)
        if fit(_cut_peak(seen) if cut_only else seen.peak.total, usable) is Fit.MARGIN:
            return value
    return None


def job_at(at: Facts, case: Job) -> Job:
    """The job of a config as the ladder leaves it (`at`: what that config alone says), for the model
    the case names, whatever the config alone resolves it to (a family read from the log)."""
    facts = at.copy()
    facts.family, facts.family_label, facts.params_b = case.family, case.label, case.params_b
    facts.is_video = case.is_video
    job = job_from_facts(facts)
    assert job is not None  # the family and its size are set above
    return job


class CardFit(Record):
    """A card's room for a cut: what it offers a process (GiB) and what an OOM message proves."""

    job: Job  # the case's job, as pasted
    est: Estimate  # its estimate
    usable: float
    floor: Floor | None

    @property
    def seen(self) -> Estimate:
        """The estimate, never below what the OOM message proves."""
        return raised(self.est, self.floor)


def card_fit(facts: Facts) -> CardFit | None:
    """The case's job on its card, or None when the estimate cannot say: the family, its size, its
    architecture or the card not known, or the host (not the card) ran out."""
    job = job_from_facts(facts)
    if job is None or facts.vram_gib is None or facts.host_oom is not None:
        return None
    before = estimate_of(job, facts.estimates)
    if before is None:
        return None
    seen = held_in(facts)
    if seen is None:
        return CardFit(job, before, usable_gib(facts.vram_gib), None)
    held, total = seen
    usable = total if total is not None else usable_gib(facts.vram_gib)
    return CardFit(job, before, usable, Floor(facts.phase.value, held, before))


def largest_that_fits_on_card(
    facts: Facts,
    field: str,
    candidates: Iterable[int],
    at: Facts | None = None,
    tied: Callable[[int], Mapping[str, int]] | None = None,
    cut_only: bool = False,
) -> int | None:
    """`largest_that_fits` for a rule: the job its Facts describe, on the card they name, never below
    what the OOM message proves. None when the family, its architecture or the card is not known, or
    nothing fits: the rule then keeps its own table. `at`: the config as the ladder leaves it before
    the rule's step (its facts alone), or the cut goes further than needed after an earlier step
    (GC, then the batch)."""
    card = card_fit(facts)
    if card is None:
        return None
    job = card.job if at is None else job_at(at, card.job)
    return largest_that_fits(job, field, candidates, card.usable, card.floor, tied, facts.estimates, cut_only)


def over_on_card(facts: Facts) -> bool:
    """Whether the estimate says the case's job, as pasted, does not fit its card even at the low end
    of its range (or what an OOM message proves): False when the estimate cannot say."""
    card = card_fit(facts)
    return card is not None and fit(_cut_peak(card.seen), card.usable) is Fit.OVER


_LOAD_PHASES = ("model_load", "quantize")


def load_over_on_card(facts: Facts) -> bool:
    """Whether the estimate says loading or quantizing the case's model, as pasted, does not fit its
    card even at the low end of its range: what no cut of the batch, the buckets or the frames lowers.
    False when it cannot say."""
    card = card_fit(facts)
    return card is not None and any(
        fit(p.total, card.usable) is Fit.OVER for p in card.seen.phases if p.phase in _LOAD_PHASES
    )
