"""The registry finds every rule module's `SPEC` by itself: adding a rule touches its module, the
catalogues and its test file only."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import diagnosis.rules as rules
from diagnosis import diagnose, record
from diagnosis.facts_model import Facts
from diagnosis.models import Finding
from diagnosis.rules import RULE_IDS, catalogue, discover, run_rules, spec
from tests.conftest import CORPUS, EXAMPLES
from tests.rules.helpers import check

_MODULE = """
from diagnosis.models import Applicability, Severity
from diagnosis.rules.base import RuleSpec

SPEC = RuleSpec(
    id="{rid}", order={order}, severity=Severity.INFO, applicability=Applicability.ADVICE,
    reads=(), rank=50, check=lambda f: None,
)
"""


def test_rules_run_in_the_order_of_their_specs() -> None:
    assert list(RULE_IDS) == [s.id for s in sorted(catalogue(), key=lambda s: s.order)]
    assert len({s.order for s in catalogue()}) == len(RULE_IDS)


def test_each_rule_is_the_module_of_its_name() -> None:
    listed = set()
    for info in pkgutil.iter_modules(rules.__path__):
        module = importlib.import_module(f"diagnosis.rules.{info.name}")
        spec = getattr(module, "SPEC", None)
        if spec is not None:
            assert spec.id == info.name
            listed.add(spec.id)
        else:
            assert info.name == "base", f"{info.name} holds no SPEC: shared helpers go in base.py"
    assert listed == set(RULE_IDS)


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "h3b_extra_rules"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        yield root
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.split(".")[0] == "h3b_extra_rules"]:
            del sys.modules[name]


def test_a_new_module_is_picked_up_in_its_order(package: Path) -> None:
    (package / "late_rule.py").write_text(_MODULE.format(rid="late_rule", order=900), encoding="utf-8")
    (package / "early_rule.py").write_text(_MODULE.format(rid="early_rule", order=5), encoding="utf-8")
    (package / "helpers.py").write_text("X = 1\n", encoding="utf-8")
    found = discover(importlib.import_module("h3b_extra_rules"))
    assert [spec.id for spec in found] == ["early_rule", "late_rule"]


def test_a_reused_order_is_refused(package: Path) -> None:
    (package / "one_rule.py").write_text(_MODULE.format(rid="one_rule", order=7), encoding="utf-8")
    (package / "two_rule.py").write_text(_MODULE.format(rid="two_rule", order=7), encoding="utf-8")
    with pytest.raises(ValueError, match="order"):
        discover(importlib.import_module("h3b_extra_rules"))


def test_a_rule_in_a_module_of_another_name_is_refused(package: Path) -> None:
    (package / "themed.py").write_text(_MODULE.format(rid="one_rule", order=7), encoding="utf-8")
    with pytest.raises(ValueError, match="named after its id"):
        discover(importlib.import_module("h3b_extra_rules"))


def _inputs() -> dict[str, list[str]]:
    """Every corpus input, and the bundled examples alone and together (as `make demo` sends them)."""
    cases = {p.parent.name: [p.read_text(encoding="utf-8")] for p in sorted(CORPUS.glob("*/*/input.txt"))}
    examples = {p.name: [p.read_text(encoding="utf-8")] for p in sorted(EXAMPLES.iterdir()) if p.is_file()}
    return cases | examples | {"examples together": [t[0] for _, t in sorted(examples.items())]}


INPUTS = _inputs()


@cache
def _found(name: str) -> list[Finding]:
    report = diagnose(INPUTS[name])
    # Every rule's finding on these facts, also those the ladder rules out before the reply.
    return [*report.findings, *run_rules(report.facts)[0]]


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_every_finding_carries_only_the_params_its_spec_declares(name: str) -> None:
    extra = {f.rule_id: extra for f in _found(name) if (extra := set(f.params) - spec(f.rule_id).params)}
    assert extra == {}


def test_the_corpus_and_examples_bring_findings_with_params() -> None:
    # The test above holds only as far as these inputs bring findings that carry params.
    with_params = {f.rule_id for name in INPUTS for f in _found(name) if f.params}
    assert len(with_params) >= 12, sorted(with_params)
    assert any(f.params for f in _found("examples together"))


def test_a_verdict_quotes_a_param_its_rule_declares() -> None:
    for rule in catalogue():
        if rule.verdict is not None:
            assert rule.verdict.quote in rule.params, rule.id


def test_the_rule_modules_are_the_ones_pkgutil_lists() -> None:
    # The registry lists the package folder itself (pkgutil would import inspect at every start-up).
    listed = sorted(info.name for info in pkgutil.iter_modules(rules.__path__))
    assert rules.module_names(rules) == listed
    assert {"base", "gc_off", "preview_heavy"} <= set(listed)


def test_catalogue_has_every_rule_once() -> None:
    assert len(set(RULE_IDS)) == len(RULE_IDS)
    fields = {field.name for field in record.fields(Facts)}
    for rule in catalogue():
        # `reads` is published in the catalogue: every name must be a field the rule can read.
        assert rule.reads and set(rule.reads) <= fields, (rule.id, set(rule.reads) - fields)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_every_rule_is_quiet_on_an_empty_case(rule_id: str) -> None:
    found = check(rule_id, Facts(vram_gib=24.0, vram_source="user"))
    if rule_id == "input_incomplete":
        assert found.params == {"missing": ["config", "log_until_stop"]}  # nothing says a run failed
    else:
        assert found is None


RULE_TESTS = Path(__file__).resolve().parent / "rules"


def test_every_rule_has_its_test_file_and_every_test_file_names_a_rule() -> None:
    # The suite mirrors the rules: tests/rules/test_<rule_id>.py for each module of diagnosis/rules/.
    named = {p.stem.removeprefix("test_") for p in RULE_TESTS.glob("test_*.py")}
    assert sorted(set(RULE_IDS) - named) == [], "rules without tests/rules/test_<rule_id>.py"
    assert sorted(named - set(RULE_IDS)) == [], "test files in tests/rules/ named after no rule"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_rules_test_file_checks_that_rule(rule_id: str) -> None:
    path = RULE_TESTS / f"test_{rule_id}.py"
    assert path.is_file(), path
    text = path.read_text(encoding="utf-8")
    assert f'"{rule_id}"' in text and "\ndef test_" in text, path
