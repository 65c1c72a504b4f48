"""The memory estimate as the reply shows it: numbers rounded for reading, parts named by catalogue
key (the sentences are in locales/<lang>/reply.yaml, `estimate`)."""

from __future__ import annotations

from typing import Any

from diagnosis.estimate.model import Component, Span
from diagnosis.estimate.reply import ReplyEstimate, reply_estimate
from diagnosis.record import Record
from diagnosis.report import Report

# The parts a reply names: the biggest few, the rest are in `oomcheck estimate`'s table.
SHOWN_PARTS = 3


class PartView(Record):
    key: str  # reply.estimate.part.<key>
    params: dict[str, Any]


class StepFitView(Record):
    number: int
    saving: str | None  # None: the step leaves the peak where it is
    low: str
    high: str
    fit: str  # reply.estimate.fit.<fit>
    phase: str  # reply.estimate.phase.<phase>: where the peak is after the step
    moved: bool = False  # the peak is then in another phase than now


class EstimateView(Record):
    low: str
    high: str
    phase: str  # reply.estimate.phase.<phase>
    parts: list[PartView]
    vram: str
    usable: str
    assumed: bool
    fit: str
    held: str | None
    steps: list[StepFitView]
    enough_after: int | None
    label: str


def gib(value: float) -> str:
    """GiB as a reader takes them in: whole numbers from 10 up, one decimal below."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def gib_range(span: Span) -> tuple[str, str]:
    """A span as the reply and `oomcheck estimate` state it: (low, high), always two figures."""
    low, high = gib(span.low), gib(span.high)
    if high == low:  # a range, always: the high end rounds up
        high = gib(span.high + (1 if span.high >= 10 else 0.1))
    return low, high


def _part(component: Component) -> PartView:
    # A part keeps its tenths (weights 11.4 GiB): the totals round to whole GiB from 10 up.
    value = f"{component.gib.mid:.1f}" if component.gib.mid < 100 else gib(component.gib.mid)
    d = component.detail
    name = component.name
    if name == "weights":
        return PartView(
            "weights_offloaded" if d.get("offloaded") else "weights", {"gib": value, "qtype": d.get("qtype")}
        )
    if name == "activations" and "batch" in d:
        shape = "shape_video" if int(d.get("frames") or 1) > 1 else "shape_image"
        key = "activations_gc_on" if d.get("gc") else "activations_gc_off"
        return PartView(
            key, {"gib": value, "shape": shape, "side": d["side"], "frames": d["frames"], "batch": d["batch"]}
        )
    if name == "activations":
        shape = "shape_video_sample" if int(d.get("frames") or 1) > 1 else "shape_image_sample"
        return PartView(
            "preview", {"gib": value, "shape": shape, "side": d["side"], "frames": d["frames"], "batch": 1}
        )
    if name == "adapter" and d.get("full"):
        return PartView("trained", {"gib": value})
    return PartView(name, {"gib": value})


def _view(e: ReplyEstimate) -> EstimateView:
    low, high = gib_range(e.peak.total)
    named = [c for c in e.peak.components if c.name != "overhead"]
    biggest = sorted(named, key=lambda c: c.gib.mid, reverse=True)[:SHOWN_PARTS]
    steps = []
    before = e.peak.total.mid
    for s in e.steps:
        s_low, s_high = gib_range(s.total)
        # A step that leaves the peak where the step before it left it saves nothing of its own: the
        # saving said is the whole of the steps so far, and only where this one lowers it further.
        lowers = before - s.total.mid >= 0.05
        saving = gib(s.saving) if s.saving >= 0.05 and lowers else None
        before = s.total.mid
        steps.append(
            StepFitView(s.number, saving, s_low, s_high, s.fit.value, s.phase, s.phase != e.peak.phase)
        )
    return EstimateView(
        low=low,
        high=high,
        phase=e.peak.phase,
        parts=[_part(c) for c in biggest],
        vram=f"{e.vram:g}",
        usable=f"{e.usable:.1f}",
        assumed=e.assumed,
        fit=e.fit.value,
        held=None if e.held is None else f"{e.held:.1f}",
        steps=steps,
        enough_after=e.enough_after,
        label=e.job.label,
    )


def estimate_view(report: Report) -> EstimateView | None:
    estimate = reply_estimate(report)
    return None if estimate is None else _view(estimate)
