"""The JSON form of a report as plain data: what `oomcheck check --format json` prints.

The pydantic models in `diagnosis.jsonout` are the published schema; this module builds the same
document from dicts and lists so that the command does not pay for importing pydantic and building
its model classes on every run. `jsonout.report_to_json` validates this very dict against the models,
and tests compare the two on every corpus case, so they cannot drift apart: every key appears in the
model's field order, and every value already has the type the model would give it (a float field
holds a float even when the engine found a whole number).
"""

from __future__ import annotations

from typing import Any

from diagnosis.models import ConfigEdit, Finding, format_path
from diagnosis.report import Report

_GIB = 1024**3


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / _GIB, 2)


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def jsonable(value: Any) -> Any:
    """Params and edit values as JSON data: containers become lists and dicts, anything else a string."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)


def _edits(edits: list[ConfigEdit]) -> list[dict[str, Any]]:
    return [{"path": format_path(e.path), "value": jsonable(e.value)} for e in edits]


def _step_of(finding: Finding, report: Report) -> int | None:
    for step in report.ladder:
        if finding.rule_id in step.rule_ids:
            return step.number
    return None


def _facts(report: Report) -> dict[str, Any]:
    facts = report.facts
    fatal = facts.fatal
    return {
        "phase": facts.phase.value,
        "step": facts.step,
        "total_steps": facts.total_steps,
        "step_part": None if facts.step_part is None else facts.step_part.value,
        "oom_kind": facts.oom_kind,
        "caught_ooms": facts.caught_ooms,
        "gpu_total_gib": _gib(fatal.total_bytes) if fatal else None,
        "gpu_free_gib": _gib(fatal.free_bytes) if fatal else None,
        "gpu_name": facts.gpu_name,
        "vram_gib": _float(facts.vram_gib),
        "vram_source": facts.vram_source,
        "tried_to_allocate_gib": _gib(fatal.tried_bytes) if fatal else None,
        "process_in_use_gib": _gib(fatal.process_bytes) if fatal else None,
        "allocated_gib": _gib(fatal.allocated_bytes) if fatal else None,
        "reserved_unallocated_gib": _gib(fatal.reserved_unallocated_bytes) if fatal else None,
        "other_processes": [{"pid": p.pid, "gib": _gib(p.bytes)} for p in facts.other_processes],
        "family": facts.family,
        "arch": facts.arch,
        "os": facts.os,
        "family_source": facts.family_source,
        "os_source": facts.os_source,
        "system_ram_gib": _float(facts.system_ram_gib),
        "swap_gib": _float(facts.swap_gib),
        "not_oom_kind": facts.not_oom_kind,
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    findings = [
        {
            "id": f.rule_id,
            "severity": f.severity.value,
            "applicability": f.applicability.value,
            "effect": f.effect.value,
            "step": _step_of(f, report),
            "evidence": [{"source": e.source, "line": e.line, "text": e.text} for e in f.evidence],
            "params": jsonable(f.params),
            "edits": _edits(f.edits),
        }
        for f in report.findings
    ]
    return {
        "language": report.language,
        "not_oom": report.not_oom,
        "findings": findings,
        "ladder": [
            {"step": s.number, "rule_ids": list(s.rule_ids), "edits": _edits(s.edits), "verified": s.verified}
            for s in report.ladder
        ],
        "facts": _facts(report),
        "corrected_config": report.corrected_config,
        "diff": report.diff,
        "notes": [{"id": n.id, "params": jsonable(n.params)} for n in report.notes],
        "secrets_found": report.secrets_found,
        # A clean config's changes still due after an out-of-memory in a training step, in ladder order.
        "if_oom": [
            {"id": f.rule_id, "applicability": f.applicability.value, "params": jsonable(f.params)}
            for f in report.if_oom
        ],
    }
