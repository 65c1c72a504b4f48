"""The rule catalogue: one `RuleSpec` per rule id of RULES.md, each with one small check function.

Adding a rule: write its check and spec in a module here, add the spec to `_SPECS`, and add its texts
to the message catalogues (`locales/*/rules.yaml`).
"""

from __future__ import annotations

import logging

from diagnosis.facts_model import Facts
from diagnosis.models import Finding
from diagnosis.rules import batch, buckets, case, environment, gc, model_memory, preview, training
from diagnosis.rules.base import RuleSpec

_log = logging.getLogger(__name__)

_SPECS: tuple[RuleSpec, ...] = (
    gc.GC_OFF,
    gc.RISKY,
    batch.SPEC,
    buckets.SPEC,
    preview.SPEC,
    model_memory.NO_QUANTIZE,
    model_memory.NO_LOW_VRAM,
    model_memory.TEXT_ENCODER,
    training.VIDEO,
    training.DTYPE,
    training.LATENTS,
    training.TRAIN_TE,
    training.OPTIMIZER,
    training.RANK,
    environment.SPEC,
    environment.FRAGMENTATION,
    environment.SYSTEM_RAM,
    environment.PAGEFILE,
    environment.GPU_TOO_SMALL,
    environment.SHM,
    case.REGRESSION,
    case.NOT_OOM,
    case.INPUT_INCOMPLETE,
    case.YAML_INVALID,
    case.SECRET,
)

RULE_IDS: tuple[str, ...] = tuple(spec.id for spec in _SPECS)


def catalogue() -> list[RuleSpec]:
    return list(_SPECS)


def spec_of(rule_id: str) -> RuleSpec | None:
    return next((s for s in _SPECS if s.id == rule_id), None)


def run_rules(facts: Facts) -> tuple[list[Finding], list[str]]:
    """Every rule over the facts → (findings, ids of rules that failed). A failing rule is logged and
    skipped; the others still run. An error that is not an out-of-memory suppresses the OOM checklist."""
    findings: list[Finding] = []
    failed: list[str] = []
    for spec in _SPECS:
        try:
            found = spec.check(facts)
        except Exception:
            _log.exception("rule %s failed", spec.id)
            failed.append(spec.id)
            continue
        if found is not None:
            findings.append(found)
    if any(f.rule_id == "not_oom" for f in findings):
        keep = {s.id for s in _SPECS if not s.oom_checklist}
        findings = [f for f in findings if f.rule_id in keep]
    return findings, failed


__all__ = ["RULE_IDS", "RuleSpec", "catalogue", "run_rules", "spec_of"]
