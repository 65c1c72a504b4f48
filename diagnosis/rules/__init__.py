"""The rule catalogue: one module per rule id of RULES.md, named after it, holding the rule's whole
`SPEC` (role, ladder placement, the facts it reads, its check and its fix).

Adding a rule: write `diagnosis/rules/<rule_id>.py` with its check and `SPEC` (an unused `order`), add
its texts to the message catalogues (`locales/*/rules.yaml`) and its tests
(`tests/rules/test_<rule_id>.py`). The registry finds the module by itself. Helpers that several rules
share live in `base.py`. A fact no other rule reads can be computed in the rule from the Facts already
there (e.g. `datasets`, `fatal`); only a new source of input needs facts.py.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

from diagnosis.facts_model import Facts
from diagnosis.logger import get_logger
from diagnosis.models import Finding
from diagnosis.rules.base import Role, RuleSpec

_log = get_logger(__name__)


def module_names(package: ModuleType) -> list[str]:
    """The modules of a package folder, sorted. Not `pkgutil.iter_modules`: it imports `inspect`
    (and with it ast, dis and tokenize, which every start-up would pay for) only to strip the ".py"."""
    return sorted(
        entry[:-3]
        for folder in package.__path__
        for entry in os.listdir(folder)
        if entry.endswith(".py") and entry != "__init__.py" and entry[:-3].isidentifier()
    )


def discover(package: ModuleType) -> tuple[RuleSpec, ...]:
    """The `SPEC` of each module of the package (a module without one holds helpers), by `order`; a
    module named otherwise than its rule's id, or a duplicate id or order, is a programming error and
    fails at import."""
    found: list[RuleSpec] = []
    for name in module_names(package):
        module = importlib.import_module(f"{package.__name__}.{name}")
        spec = getattr(module, "SPEC", None)
        if spec is None:
            continue
        if spec.id != name:
            raise ValueError(f"rule {spec.id} is in module {name}: a rule's module is named after its id")
        found.append(spec)
    specs = tuple(sorted(found, key=lambda spec: spec.order))
    for what, values in (("id", [s.id for s in specs]), ("order", [str(s.order) for s in specs])):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"rule {what} used twice: {', '.join(twice)}")
    return specs


_SPECS: tuple[RuleSpec, ...] = discover(sys.modules[__name__])

RULE_IDS: tuple[str, ...] = tuple(rule.id for rule in _SPECS)
_BY_ID: dict[str, RuleSpec] = {rule.id: rule for rule in _SPECS}
# Every rule's word lists, as "<rule id>.<list>" → patterns: the facts stage hears them all in one pass.
WORDS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (f"{rule.id}.{name}", tuple(patterns)) for rule in _SPECS for name, patterns in rule.words.items()
)


def catalogue() -> list[RuleSpec]:
    return list(_SPECS)


def spec_of(rule_id: str) -> RuleSpec | None:
    return _BY_ID.get(rule_id)


def run_rules(facts: Facts) -> tuple[list[Finding], list[str]]:
    """Every rule over the facts → (findings, ids of rules that failed). A failing rule is logged and
    skipped; the others still run. An error that is not an out-of-memory suppresses the OOM checklist."""
    findings: list[Finding] = []
    failed: list[str] = []
    for rule in _SPECS:
        try:
            found = rule.check(facts)
        except Exception:
            _log.exception("rule %s failed", rule.id)
            failed.append(rule.id)
            continue
        if found is not None:
            findings.append(found)
    if ends_checklist(findings):
        findings = [f for f in findings if not _BY_ID[f.rule_id].oom_checklist]
    return findings, failed


def ends_checklist(findings: list[Finding]) -> bool:
    """The findings hold a verdict that there is no out-of-memory to fix (`Report.not_oom`)."""
    return any(f.ends_checklist for f in findings)


def spec(rule_id: str) -> RuleSpec:
    """The spec of a rule id the engine produced (a KeyError for any other id is a programming error)."""
    return _BY_ID[rule_id]


def role(rule_id: str) -> Role:
    return _BY_ID[rule_id].role


def with_role(*roles: Role) -> tuple[str, ...]:
    """The ids of the rules in these roles, in catalogue order."""
    return tuple(s.id for s in _SPECS if s.role in roles)


__all__ = [
    "RULE_IDS",
    "WORDS",
    "Role",
    "RuleSpec",
    "catalogue",
    "discover",
    "ends_checklist",
    "role",
    "run_rules",
    "spec",
    "spec_of",
    "with_role",
]
