"""`not_oom`: No out-of-memory at all: an error of another kind, a slowdown, a hang or a silent exit."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Evidence, Finding, Phase, Severity
from diagnosis.rules.base import Placement, Role, RuleSpec, Verdict, ev, no_oom_seen, said, slowdown

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # A bigger batch takes longer per step (case 223): expected, not a memory problem.
    "batch_slower": (
        r"\bbatch\b[^.\n]{0,80}\b(?:slower|time per (?:iteration|step)|s(?:ec)?/it)\b",
        r"\b(?:slower|time per (?:iteration|step))\b[^.\n]{0,80}\bbatch\b",
        r"バッチ[^。\n]{0,40}(?:遅く|遅い|時間)",
    ),
    # Slow only until the first sample, or while sampling: previews are not training steps.
    "slow_sampling": (
        r"\b(?:sampl(?:e|es|ing)|previews?)\b[^.\n]{0,40}\b(?:slow|takes? (?:forever|ages|long))",
        r"\bslow\b[^.\n]{0,40}\b(?:sampl(?:e|es|ing)|previews?)\b",
    ),
    # The job never gets going: the UI says "Starting job..." (or the job stays queued) and nothing
    # follows. Before any log line, so only the user's words tell it.
    "not_started": (
        r"\b(?:says?|shows?|showing|displays?|displayed|stuck (?:at|on)|hangs? (?:at|on)) [\"'“]?starting\b",
        r"\bstarting job\b[^\n]{0,80}\b(?:for (?:hours|an hour|ages|a long time)|forever|still)\b",
        r"\b(?:click|press|hit)(?:ed)? (?:on )?(?:the )?start\b[^.\n]{0,60}\bnothing (?:else )?(?:seems to )?happens?\b",  # noqa: E501 (a pattern reads best on one line)
        r"\b(?:stays?|stuck|remains?|sits?) (?:at |on |in )?[\"'“]?queued\b",
        r"(?:Starting job|開始中)[^\n]{0,30}(?:のまま|から進ま|で止ま)",
        r"(?:スタート|開始|Start)[^\n]{0,20}(?:押して|押しても|クリックして)[^\n]{0,20}何も(?:起き|始まら)",
    ),
}

# Where a run that stops without an error most often stops, and what the reply says for each.
_STALL_PHASES = frozenset(
    {
        Phase.MODEL_LOAD,
        Phase.QUANTIZE,
        Phase.LATENT_CACHING,
        Phase.TEXT_EMBEDDING_CACHING,
        Phase.DATALOADER,
        Phase.FIRST_SAMPLE,
        Phase.SAMPLING,
        Phase.TRAINING_STEP,
    }
)


def _error(f: Facts) -> Finding | None:
    """An error in the log that is not an out-of-memory: its line, its kind and a finer kind."""
    if f.not_oom_kind is None:
        return None
    params: dict[str, object] = {"kind": f.not_oom_kind, "headline": f.not_oom_headline or ""}
    if f.error_kind and f.error_kind != f.not_oom_kind:
        params["detail"] = f.error_kind
    return SPEC.finding(evidence=ev(f, "not_oom"), params=params)


def _quote(evidence: Evidence | None) -> str:
    return evidence.text if evidence is not None and evidence.source != "user" else ""


def _symptom(f: Facts) -> Finding | None:
    """No error and no out-of-memory: a slowdown, a hang or the process gone without a word."""
    if not no_oom_seen(f):
        return None
    slow = slowdown(f)
    if slow is not None:
        # The finer kind first: its own wording (a bigger batch is slower per step, as expected) wins
        # over the slowdown's.
        params: dict[str, object] = {}
        batch = SPEC.heard(f, "batch_slower")
        sampling = SPEC.heard(f, "slow_sampling")
        if batch is not None:
            params["detail"] = "batch_scaling"
        elif sampling is not None:
            params["detail"] = "sampling"
        params |= {"kind": "slowdown", "headline": _quote(slow)}
        if f.step_slowdown_ratio is not None and f.step_slowdown_ratio >= 1.5:
            params["ratio"] = round(f.step_slowdown_ratio, 1)
        # A slowdown is never answered with the OOM checklist; what makes a run crawl (VRAM spilling
        # into RAM) is a rule of its own that stays beside this verdict.
        return SPEC.finding(evidence=[slow, batch or sampling, *ev(f, "step_times")], params=params)
    exited = f.evidence.get("exit") if f.silent_exit else None
    exited = exited or said(f, "exits")
    if exited is not None:
        params = {"kind": "silent_exit", "headline": _quote(exited)}
        if f.silent_exit and f.exit_code is not None:
            params["code"] = str(f.exit_code)
        return SPEC.finding(
            evidence=[exited, said(f, "no_error"), *ev(f, "last_phase")], params=params, ends_checklist=False
        )
    stuck = f.evidence.get("last_phase") if f.ends_without_error and f.last_phase in _STALL_PHASES else None
    not_started = SPEC.heard(f, "not_started")
    stuck = stuck or said(f, "stuck") or not_started
    if stuck is not None:
        phase = f.last_phase if f.last_phase in _STALL_PHASES else f.phase
        params = {"kind": "stall", "headline": _quote(stuck)}
        if phase is Phase.TRAINING_STEP and f.step is not None and f.step > 1:
            params["at"] = "training"  # not the first step: it may have trained for hours
        elif phase in _STALL_PHASES:
            params["at"] = phase.value
        elif not_started is not None:
            params["at"] = "job_start"
        return SPEC.finding(
            evidence=[stuck, not_started, said(f, "no_error")], params=params, ends_checklist=False
        )
    return None


def check_not_oom(f: Facts) -> Finding | None:
    return _error(f) or _symptom(f)


SPEC = RuleSpec(
    id="not_oom",
    order=220,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=(
        "not_oom_kind",
        "not_oom_headline",
        "error_kind",
        "step_slowdown",
        "step_slowdown_ratio",
        "silent_exit",
        "exit_code",
        "ends_without_error",
        "last_phase",
        "step",
        "said",
    ),
    rank=0,
    check=check_not_oom,
    params=frozenset({"kind", "headline", "detail", "ratio", "code", "at"}),
    oom_checklist=False,
    role=Role.VERDICT,
    placement=Placement(first=10),
    verdict=Verdict(
        quote="headline", quote_lang="", before=("measured",), after=("explanation",), ends_checklist=True
    ),
    words=WORDS,
)
