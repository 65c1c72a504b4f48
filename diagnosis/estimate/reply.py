"""The estimate a reply shows: the peak of the config as pasted (raised to what an OOM message
proves), the card, and what each ladder step would save. Computed only when a reply shows it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from diagnosis.estimate.fit import Fit, card_fit, fit, job_at, raised
from diagnosis.estimate.job import Job
from diagnosis.estimate.model import Estimate, PhaseEstimate, Span, estimate
from diagnosis.facts import read_config_facts
from diagnosis.ladder import with_edits
from diagnosis.record import Record
from diagnosis.report import Report


class StepSaving(Record):
    number: int
    saving: float  # GiB, the peak's middle now minus after this step (and the steps before it)
    total: Span
    fit: Fit
    phase: str  # where the peak is after the step


class ReplyEstimate(Record):
    est: Estimate  # every phase, raised to what the OOM message shows
    peak: PhaseEstimate
    job: Job
    vram: float  # the card's class in GB
    usable: float  # GiB
    assumed: bool  # the card is assumed, not known
    fit: Fit
    held: float | None  # GiB the OOM message shows the process held (in use + tried), when it does
    steps: tuple[StepSaving, ...]
    enough_after: int | None  # the first step after which the estimate fits with the margin


def _step_jobs(report: Report, job: Job) -> Iterator[tuple[int, Job]]:
    """The job after each ladder step that changes the config (the steps are cumulative), as the
    ladder counted them: a step whose re-check failed is no change, and the later steps build on the
    config without it. Yielded one at a time: the caller stops at the first step after which the job
    fits, and each step re-reads the config's facts."""
    doc = report.config
    if doc is None or not doc.ok:
        return
    for step in report.ladder:
        if not (step.edits and step.applied):
            continue
        edited = with_edits(doc, step.edits)
        if edited is None:
            continue
        doc = edited
        yield step.number, job_at(read_config_facts(doc), job)


def no_estimate_reason(report: Report) -> str:
    """Why `reply_estimate` gives none, in its own order (a card is always known or assumed):
    "no_config", "host_oom" or "no_family"."""
    facts = report.facts
    if not facts.config_parsed:
        return "no_config"
    if facts.host_oom is not None:
        return "host_oom"
    return "no_family"


def reply_estimate(report: Report) -> ReplyEstimate | None:
    """The estimate for a reply, or None where it would mean nothing: no config read, the family or
    the card not known, a family the memory model does not hold, an OOM of system RAM."""
    facts = report.facts
    card = card_fit(facts) if facts.config_parsed else None
    if card is None or facts.vram_gib is None:
        return None
    job, usable, floor = card.job, card.usable, card.floor
    held = None if floor is None else floor.held
    shown = card.seen
    peak = shown.peak
    steps: list[StepSaving] = []
    enough: int | None = None
    for number, after_job in _step_jobs(report, job):
        after = estimate(after_job)
        if after is None:
            break
        # What the OOM message proves, less what the step saves in that phase by the model.
        after = raised(after, floor)
        total_after = after.peak.total
        verdict = fit(total_after, usable)
        saving = max(0.0, peak.total.mid - total_after.mid)
        steps.append(StepSaving(number, saving, total_after, verdict, after.peak.phase))
        if verdict is Fit.MARGIN:
            enough = number
            break
    return ReplyEstimate(
        est=shown,
        peak=peak,
        job=job,
        vram=facts.vram_gib,
        usable=usable,
        assumed=facts.vram_source == "assumed",
        fit=fit(peak.total, usable),
        held=held if held is not None and peak.total.low <= held + 1e-9 else None,
        steps=tuple(steps),
        enough_after=enough,
    )


def _span(span: Span) -> dict[str, float]:
    return {"low_gib": round(span.low, 2), "high_gib": round(span.high, 2)}


def estimate_to_dict(e: ReplyEstimate) -> dict[str, Any]:
    """The estimate as `oomcheck estimate --format json` prints it."""
    return {
        "family": e.job.family,
        "model": e.job.label,
        "card": {"vram_gb": e.vram, "usable_gib": round(e.usable, 2), "assumed": e.assumed},
        "peak": {"phase": e.peak.phase, **_span(e.peak.total), "fit": e.fit.value},
        "observed_gib": None if e.held is None else round(e.held, 2),
        "phases": [
            {
                "phase": p.phase,
                **_span(p.total),
                "components": [
                    {"name": c.name, **_span(c.gib), "detail": dict(c.detail)} for c in p.components
                ],
            }
            for p in e.est.phases
        ],
        "steps": [
            {"step": s.number, "saving_gib": round(s.saving, 2), **_span(s.total), "fit": s.fit.value}
            for s in e.steps
        ],
        "sources": e.est.arch.sources,
    }
