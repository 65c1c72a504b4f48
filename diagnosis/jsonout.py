"""The JSON form of a report (`oomcheck check --format json`), as DESIGN.md specifies it.

Pydantic models at this boundary make the schema explicit and keep it stable for scripts and tests.
The CLI prints `diagnosis.jsondoc.report_to_dict` directly (no pydantic import on its path); this
module validates that same dict, so the models and the printed document are one mapping.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from diagnosis.jsondoc import report_to_dict
from diagnosis.report import Report


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
    effect: str  # what its fix lowers: memory, speed or both
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
    # Where `family` and `os` were read: "config", "log" or "user_words" (the user's own words).
    family_source: str | None = None
    os_source: str | None = None
    system_ram_gib: float | None = None  # as the user states it
    swap_gib: float | None = None  # swap or page file, as the user states it
    not_oom_kind: str | None


class NoteOut(BaseModel):
    id: str
    params: dict[str, Any]


class IfOomOut(BaseModel):
    """A change a clean config would still need after an out-of-memory in a training step."""

    id: str
    applicability: str
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
    if_oom: list[IfOomOut]


def report_to_json(report: Report) -> ReportOut:
    """The report as the published models: the CLI's plain document, validated against them."""
    return ReportOut.model_validate(report_to_dict(report))
