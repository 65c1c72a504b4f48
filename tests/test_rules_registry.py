"""The registry finds every rule module's `SPEC` by itself: adding a rule touches its module, the
catalogues and its test file only."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import diagnosis.rules as rules
from diagnosis.rules import RULE_IDS, catalogue, discover

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
