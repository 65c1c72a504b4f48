"""The JSON form of a report (`oomcheck check --format json`), as DESIGN.md specifies it.

Pydantic models at this boundary make the schema explicit and keep it stable for scripts and tests.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from diagnosis.models import Finding, Report, format_path

_GIB = 1024**3


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / _GIB, 2)


class EvidenceOut(BaseModel):
    source: str
    line: int | None
    text: str


class EditOut(BaseModel):
    path: str
    value: Any


class FindingOut(BaseModel):
    id: str
    severity: str
    applicability: str
    step: int | None  # the ladder step that fixes it, None when no step does
    evidence: list[EvidenceOut]
    params: dict[str, Any]
    edits: list[EditOut]


class StepOut(BaseModel):
    step: int
    rule_ids: list[str]
    edits: list[EditOut]
    verified: bool


class ProcessOut(BaseModel):
    pid: int | None
    gib: float | None


class FactsOut(BaseModel):
    phase: str
    step: int | None
    total_steps: int | None
    step_part: str | None
    oom_kind: str | None
    caught_ooms: int
    gpu_total_gib: float | None
    gpu_free_gib: float | None
    gpu_name: str | None
    vram_gib: float | None
    vram_source: str | None
    tried_to_allocate_gib: float | None
    process_in_use_gib: float | None
    allocated_gib: float | None
    reserved_unallocated_gib: float | None
    other_processes: list[ProcessOut]
    family: str | None
    arch: str | None
    os: str | None
    not_oom_kind: str | None


class NoteOut(BaseModel):
    id: str
    params: dict[str, Any]


class ReportOut(BaseModel):
    language: str
    not_oom: bool
    findings: list[FindingOut]
    ladder: list[StepOut]
    facts: FactsOut
    corrected_config: str | None
    diff: str | None
    notes: list[NoteOut]
    secrets_found: int


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def _edits(edits: list[Any]) -> list[EditOut]:
    return [EditOut(path=format_path(e.path), value=_jsonable(e.value)) for e in edits]


def _step_of(finding: Finding, report: Report) -> int | None:
    for step in report.ladder:
        if finding.rule_id in step.rule_ids:
            return step.number
    return None


def report_to_json(report: Report) -> ReportOut:
    facts = report.facts
    fatal = facts.fatal
    findings = [
        FindingOut(
            id=f.rule_id,
            severity=f.severity.value,
            applicability=f.applicability.value,
            step=_step_of(f, report),
            evidence=[EvidenceOut(source=e.source, line=e.line, text=e.text) for e in f.evidence],
            params=_jsonable(f.params),
            edits=_edits(f.edits),
        )
        for f in report.findings
    ]
    facts_out = FactsOut(
        phase=facts.phase.value,
        step=facts.step,
        total_steps=facts.total_steps,
        step_part=None if facts.step_part is None else facts.step_part.value,
        oom_kind=facts.oom_kind,
        caught_ooms=facts.caught_ooms,
        gpu_total_gib=_gib(fatal.total_bytes) if fatal else None,
        gpu_free_gib=_gib(fatal.free_bytes) if fatal else None,
        gpu_name=facts.gpu_name,
        vram_gib=facts.vram_gib,
        vram_source=facts.vram_source,
        tried_to_allocate_gib=_gib(fatal.tried_bytes) if fatal else None,
        process_in_use_gib=_gib(fatal.process_bytes) if fatal else None,
        allocated_gib=_gib(fatal.allocated_bytes) if fatal else None,
        reserved_unallocated_gib=_gib(fatal.reserved_unallocated_bytes) if fatal else None,
        other_processes=[ProcessOut(pid=p.pid, gib=_gib(p.bytes)) for p in facts.other_processes],
        family=facts.family,
        arch=facts.arch,
        os=facts.os,
        not_oom_kind=facts.not_oom_kind,
    )
    return ReportOut(
        language=report.language,
        not_oom=report.not_oom,
        findings=findings,
        ladder=[
            StepOut(step=s.number, rule_ids=s.rule_ids, edits=_edits(s.edits), verified=s.verified)
            for s in report.ladder
        ],
        facts=facts_out,
        corrected_config=report.corrected_config,
        diff=report.diff,
        notes=[NoteOut(id=n.id, params=_jsonable(n.params)) for n in report.notes],
        secrets_found=report.secrets_found,
    )
