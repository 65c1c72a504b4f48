"""`oomcheck estimate`'s text: one row per component, one column per phase, the totals, the card."""

from __future__ import annotations

from diagnosis.estimate.model import ZERO
from diagnosis.estimate.reply import ReplyEstimate, no_estimate_reason
from diagnosis.render import display_width
from diagnosis.render.catalogue import message
from diagnosis.render.estimate_view import gib, gib_range
from diagnosis.report import Report

_COMPONENTS = ("weights", "text_encoder", "vae", "adapter", "activations", "overhead")


def _pad(text: str, width: int, right: bool = False) -> str:
    space = " " * max(0, width - display_width(text))
    return space + text if right else text + space


def _cell(low: float, high: float) -> str:
    if high <= 0:
        return "–"
    a, b = gib(low), gib(high)
    return a if a == b else f"{a}–{b}"


def render_estimate_text(e: ReplyEstimate, lang: str) -> str:
    phases = e.est.phases
    head = [message("cli.estimate.component", lang)] + [
        message(f"cli.estimate.phase.{p.phase}", lang) for p in phases
    ]
    rows = [head]
    for name in _COMPONENTS:
        spans = [p.get(name) for p in phases]
        if all(s == ZERO for s in spans):
            continue
        rows.append([message(f"cli.estimate.part.{name}", lang)] + [_cell(s.low, s.high) for s in spans])
    rows.append([message("cli.estimate.total", lang)] + [_cell(p.total.low, p.total.high) for p in phases])
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        "  ".join(_pad(cell, widths[i], right=i > 0) for i, cell in enumerate(row)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    card_key = "reply.estimate.card_assumed" if e.assumed else "reply.estimate.card"
    card = message(card_key, lang, vram=f"{e.vram:g}", usable=f"{e.usable:.1f}")
    fit = message(f"reply.estimate.fit.{e.fit.value}", lang)
    low, high = gib_range(e.peak.total)
    out = [
        message("cli.estimate.title", lang, model=e.job.label),
        "",
        *lines,
        "",
        message(
            "cli.estimate.peak",
            lang,
            low=low,
            high=high,
            phase=message(f"reply.estimate.phase.{e.peak.phase}", lang),
        ),
        message("reply.estimate.card_line", lang, card=card, fit=fit),
    ]
    if e.held is not None:
        out.append(message("reply.estimate.held", lang, held=f"{e.held:.1f}"))
    out += ["", message("cli.estimate.sources", lang)]
    return "\n".join(out) + "\n"


def render_no_estimate(report: Report, lang: str) -> str:
    """Why this case gets no estimate, in one sentence (the CLI's `estimate` and `/oom-estimate`)."""
    facts = report.facts
    reason = message(
        f"cli.no_estimate_reason.{no_estimate_reason(report)}",
        lang,
        model=facts.family_label or facts.arch or "?",
    )
    return message("cli.no_estimate", lang, reason=reason)
