"""The fix ladder: findings ranked by the phase, one change per step, each step's config verified.

Order (each rule's `Placement`, diagnosis/rules/base.py): a few findings always come first (the
config does not parse, the error is not an OOM, the host ran out); then the findings that are errors
in this phase, in the phase's order; then the other errors, warnings and tips by their base rank;
findings that the phase rules out as the cause (GC for an OOM while loading) go last.

Each step's edits are applied to the config data left by the steps before it and re-checked on the
config alone: the step's findings must be gone and no new finding may appear, or the step does not
count as a change (later steps build on the config without it). The first steps (all of them unless
the caller asks for fewer) are then written as text: the edits are applied to the text of the step
before, the result is parsed again, and it must hold exactly the re-checked data. Only then does the
step carry a corrected config and a diff.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from diagnosis import linediff
from diagnosis.config.edit import apply_text_edits, plan_edits_detailed, uneditable
from diagnosis.config.parse import holding, parse_config, same_data, yaml_holding
from diagnosis.facts_model import Facts
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.logger import get_logger
from diagnosis.models import ConfigDoc, ConfigEdit, Finding, LadderStep, OomKind, Phase, Severity, with_text
from diagnosis.record import replace
from diagnosis.rules import Role, role, spec
from diagnosis.rules.base import LEADS_PLACE

_log = get_logger(__name__)

_SEVERITY_TIER = {Severity.ERROR: 2, Severity.WARNING: 3, Severity.INFO: 4}

Recheck = Callable[[ConfigDoc], list[Finding]]
# A finding again, its fix sized for the config as the earlier steps leave it (RuleSpec.resize);
# None keeps it as it is.
Resize = Callable[[Finding, ConfigDoc], Finding | None]


def _ranked(finding: Finding) -> bool:
    # Notices and questions are shown beside the diagnosis, not a change to make: the ladder holds only
    # steps the user can act on, so "still out of memory → next step" never lands on "send the log".
    # Tips are ranked with the steps (the reply lists them in that order) but are no step.
    return role(finding.rule_id).on_ladder or _is_tip(finding)


def _is_tip(finding: Finding) -> bool:
    return role(finding.rule_id) == Role.TIP


def drop_ruled_out(findings: Sequence[Finding], facts: Facts) -> list[Finding]:
    """Leave out later-phase findings when the evidence places the failure before them."""
    out: set[str] = set()
    gpu_failure = facts.fatal is not None and not facts.fatal.kind.on_host
    # "CUDA error: out of memory" is reported asynchronously: its traceback may name the wrong phase.
    phase_trusted = facts.oom_kind != OomKind.CUDA_ERROR.value
    loading = facts.phase in (Phase.MODEL_LOAD, Phase.QUANTIZE)
    if loading and phase_trusted and (facts.has_oom or facts.has_log):
        out.add("load")
    if (facts.host_oom is not None or facts.says_host_killed) and not gpu_failure:
        out.add("host")
    kept = [f for f in findings if not spec(f.rule_id).placement.ruled_out_by & out]
    if all(_is_tip(f) or not _ranked(f) for f in kept):
        # A tip alone would become the reply's cause; it is only worth saying beside a real one.
        kept = [f for f in kept if not _is_tip(f)]
    return kept


def _phase_key(facts: Facts) -> str:
    # Without a phase, the default ladder is the one for a training step (DESIGN.md).
    return Phase.TRAINING_STEP.value if facts.phase == Phase.UNKNOWN else facts.phase.value


def _sort_key(finding: Finding, phase: str) -> tuple[int, int]:
    placement = spec(finding.rule_id).placement
    if placement.first is not None:
        return (0, placement.first)
    if phase in placement.last_in:
        return (6, finding.ladder_rank)
    if placement.leads_when is not None and finding.params.get(placement.leads_when):
        return (1, LEADS_PLACE)
    if finding.severity == Severity.ERROR and phase in placement.phases:
        return (1, placement.phases[phase])
    return (_SEVERITY_TIER[finding.severity], finding.ladder_rank)


def rank_findings(findings: Sequence[Finding], facts: Facts) -> list[Finding]:
    """Findings in ladder order; notices and questions (a pasted secret, what is missing) at the end."""
    phase = _phase_key(facts)
    on = sorted((f for f in findings if _ranked(f)), key=lambda f: _sort_key(f, phase))
    off = [f for f in findings if not _ranked(f)]
    for place, finding in enumerate(on, start=1):
        finding.ladder_rank = place
    return on + off


def _edit_key(edits: Sequence[ConfigEdit]) -> tuple[tuple[Any, ...], ...]:
    return tuple(sorted((e.path, repr(e.value)) for e in edits))


def _group(ranked: Sequence[Finding]) -> list[tuple[list[str], list[ConfigEdit]]]:
    """One step per finding; findings making the same edit (turning gradient checkpointing on) share one.
    Tips are no step: the reply lists them beside the ladder."""
    groups: list[tuple[list[str], list[ConfigEdit]]] = []
    for finding in ranked:
        if not role(finding.rule_id).on_ladder:
            continue
        if finding.edits:
            same = next((g for g in groups if g[1] and _edit_key(g[1]) == _edit_key(finding.edits)), None)
            if same is not None:
                same[0].append(finding.rule_id)
                continue
        groups.append(([finding.rule_id], list(finding.edits)))
    return groups


def _diff(before: str, after: str, source: str) -> str:
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    hunks = linediff.hunks(a, b, linediff.opcodes(a, b))
    lines = [f"--- a/{source}\n", f"+++ b/{source}\n", *hunks] if hunks else []
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


class _CannotEdit(Exception):
    """An edit's path runs through something that is not a mapping or an existing list item."""


def _with_edit(node: Any, path: Sequence[Any], value: Any) -> Any:
    """A copy of `node` with `path` set to `value`; only the containers on the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict) and isinstance(head, str):
        copy = dict(node)
        child = node.get(head)
        # A missing or empty section is created, as the text planner inserts it.
        copy[head] = _with_edit({} if child is None and rest else child, rest, value)
        return copy
    if isinstance(node, list) and isinstance(head, int) and 0 <= head < len(node):
        items = list(node)
        items[head] = _with_edit(node[head], rest, value)
        return items
    raise _CannotEdit


def with_edits(doc: ConfigDoc, edits: Sequence[ConfigEdit]) -> ConfigDoc | None:
    """`doc` with a step's edits applied to its data, as the ladder re-checks it (its text is left
    as it was); None when they cannot be applied."""
    if uneditable(doc) is not None:
        return None  # the text planner would skip every edit
    data = doc.data
    try:
        for edit in edits:
            data = _with_edit(data, (*doc.process_path, *edit.path), edit.value)
    except _CannotEdit:
        return None
    return replace(doc, data=data)


class _Applier:
    """Walks the ladder on the config data, and writes the corrected text of the first steps.

    Which steps make the ladder is decided on the data: each step's edits are applied to the data
    left by the steps before, and the config alone is re-checked (the step's findings must be gone,
    nothing new may appear). Writing a step's text is the expensive part (plan text edits, apply
    them, parse the result), so only the first `verify` steps are written; a caller that shows a
    later step asks for it. A written step is verified when its corrected text parses to exactly the
    data that was re-checked.
    """

    def __init__(self, doc: ConfigDoc, recheck: Recheck, limits: Limits, verify: int | None) -> None:
        self.pasted = doc
        self.doc = doc  # the config with every step so far applied (data only)
        self.written = doc  # the config whose text holds every step so far, while all could be written
        self.recheck = recheck
        self.limits = limits
        self.verify = verify
        self.ids = self._ids(doc)
        self.baseline = set(self.ids)

    def _ids(self, doc: ConfigDoc) -> set[str]:
        return {f.rule_id for f in self.recheck(doc)}

    def resized(self, finding: Finding, resize: Resize | None) -> None:
        """A fix the memory estimate sizes, sized again for the config the steps so far leave (the
        rule sized it for the config as pasted): its finding takes the new cut, which the step then
        makes, writes and re-checks."""
        if resize is None or self.doc is self.pasted or spec(finding.rule_id).resize is None:
            return
        again = resize(finding, self.doc)
        if again is not None and again.edits:
            finding.params, finding.edits = again.params, again.edits

    def settled(self, rule_ids: Sequence[str]) -> bool:
        """An earlier step already removed every finding of this one (it fired on the config alone)."""
        return all(r in self.baseline and r not in self.ids for r in rule_ids)

    def apply(self, step: LadderStep) -> None:
        new_doc = with_edits(self.doc, step.edits)
        if new_doc is None:
            _log.info("step %d: edits not applicable", step.number)
            return
        ids = self._ids(new_doc)
        if ids & set(step.rule_ids) or not ids <= self.ids:
            _log.warning("step %d: re-check failed (%s → %s)", step.number, sorted(self.ids), sorted(ids))
            return
        written = self.written is self.doc
        self.doc, self.ids = new_doc, ids
        step.applied = True
        if written and (self.verify is None or step.number <= self.verify):
            self._write(step)

    def _write(self, step: LadderStep) -> None:
        plan = plan_edits_detailed(self.written, step.edits)
        if plan.skipped or not plan.edits:
            _log.info("step %d: edits not applicable (%s)", step.number, [s.reason for s in plan.skipped])
            return
        before = self.written.piece.text
        after = apply_text_edits(before, plan.edits)
        # The text before passed the tab check of AI Toolkit's own scanner; an edit adds no tab.
        scan_tabs = any("\t" in e.new for e in plan.edits)
        # A source map is needed only to plan the next step's text, and only when it is written.
        mapped = self.verify is None or step.number < self.verify
        piece = with_text(self.written.piece, after)
        # A text that is only checked is compared with the re-checked data without building its own
        # (`holding` for JSON, `yaml_holding` for YAML); when that does not show it holds, the parser
        # decides.
        new_doc = None
        if not mapped:
            new_doc = holding(piece, self.doc.data, self.limits) or yaml_holding(
                piece, self.doc.data, self.limits, scan_tabs=scan_tabs
            )
        if new_doc is None:
            new_doc = parse_config(piece, self.limits, scan_tabs=scan_tabs, mapped=mapped)
        same = new_doc.data is self.doc.data or same_data(new_doc.data, self.doc.data)
        holds = new_doc.process_path == self.doc.process_path and same
        if not new_doc.ok or not holds:
            _log.warning("step %d: corrected config does not hold the edits", step.number)
            return
        # Parsing works on LF text; the file the user gets back keeps its own line breaks.
        step.corrected_config = after.replace("\n", self.written.piece.newline)
        step.diff = _diff(before, after, self.written.piece.source)
        step.verified = True
        self.written = self.doc = new_doc


def build_ladder(
    ranked: Sequence[Finding],
    doc: ConfigDoc | None,
    recheck: Recheck,
    limits: Limits = DEFAULT_LIMITS,
    verify: int | None = None,
    resize: Resize | None = None,
) -> list[LadderStep]:
    """Ranked findings → ladder steps; corrected config text is cumulative over the steps.

    `verify`: how many steps get their corrected text written and verified (None: all of them).
    `resize`: sizes a step's fix again for the config the steps before it leave (RuleSpec.resize).
    """
    applier = _Applier(doc, recheck, limits, verify) if doc is not None and doc.ok else None
    by_id = {f.rule_id: f for f in ranked}
    steps: list[LadderStep] = []
    for rule_ids, edits in _group(ranked):
        if edits and applier is not None and steps and applier.settled(rule_ids):
            continue
        if edits and applier is not None and len(rule_ids) == 1:
            finding = by_id[rule_ids[0]]
            applier.resized(finding, resize)
            edits = list(finding.edits)
        step = LadderStep(number=len(steps) + 1, rule_ids=rule_ids, edits=edits)
        if edits and applier is not None:
            try:
                applier.apply(step)
            except Exception:
                # A bug in planning or re-checking costs this step its corrected config, not the report.
                _log.exception("step %d: could not apply the edits", step.number)
        steps.append(step)
    return steps
