"""The rule catalogue: one `RuleSpec` per rule id of RULES.md, each with one small check function.

Adding a rule: write its check and spec in a module of this package, list the spec in that module's
`SPECS` with an unused `order`, and add its texts to the message catalogues (`locales/*/rules.yaml`).
The registry finds every module's `SPECS` by itself. A fact no other rule reads can be computed in the
rule from the Facts already there (e.g. `datasets`, `fatal`); only a new source of input needs facts.py.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

from diagnosis.facts_model import Facts
from diagnosis.logs import get_logger
from diagnosis.models import Finding
from diagnosis.rules.base import RuleSpec

_log = get_logger(__name__)


def module_names(package: ModuleType) -> list[str]:
    """The modules of a package folder, sorted. Not `pkgutil.iter_modules`: it imports `inspect`
    (and with it ast, dis and tokenize, about 5 ms of every start-up) only to strip the ".py"."""
    return sorted(
        entry[:-3]
        for folder in package.__path__
        for entry in os.listdir(folder)
        if entry.endswith(".py") and entry != "__init__.py" and entry[:-3].isidentifier()
    )


def discover(package: ModuleType) -> tuple[RuleSpec, ...]:
    """Every spec in the `SPECS` of the package's modules, by `order`; duplicate ids or orders are a
    programming error and fail at import."""
    found: list[RuleSpec] = []
    for name in module_names(package):
        module = importlib.import_module(f"{package.__name__}.{name}")
        found.extend(getattr(module, "SPECS", ()))
    specs = tuple(sorted(found, key=lambda spec: spec.order))
    for what, values in (("id", [s.id for s in specs]), ("order", [str(s.order) for s in specs])):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"rule {what} used twice: {', '.join(twice)}")
    return specs


_SPECS: tuple[RuleSpec, ...] = discover(sys.modules[__name__])

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


__all__ = ["RULE_IDS", "RuleSpec", "catalogue", "discover", "run_rules", "spec_of"]
