"""No rule id is written in product code outside diagnosis/rules/ and locales/: the ladder, the view,
the templates, the engine and the bot work from the specs' roles, placements and groups, so adding or
renaming a rule never touches them."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from diagnosis import jsonout
from diagnosis.models import OomKind
from diagnosis.rules import RULE_IDS
from tests.conftest import ROOT

_PRODUCT = ("diagnosis", "bot", "oomcheck")
_GENERATED = ("_snapshots", "_compiled")
# The log reader matches the trainer's and PyTorch's own words ("…to avoid fragmentation"), some of which
# a rule is named after; it runs before any rule and never sees a finding.
_TRAINER_WORDS = ("diagnosis", "logreader")
_TEMPLATES = ROOT / "locales" / "_shared" / "templates"
# The JSON output's field names and the kinds of out-of-memory it reports are a published contract
# (README "JSON output"): `not_oom` there is the report's flag and `oom_kind: windows_pagefile` what the
# log showed, not look-ups of the rules of those names.
_SCHEMA = {kind.value for kind in OomKind} | {
    name
    for model in vars(jsonout).values()
    if isinstance(model, type)
    for name in getattr(model, "model_fields", {})
}


def _python_files() -> Iterator[Path]:
    for package in _PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if parts[:2] in (("diagnosis", "rules"), _TRAINER_WORDS) or any(p in _GENERATED for p in parts):
                continue
            yield path


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def rule_ids_in_python(source: str) -> list[tuple[int, str]]:
    """(line, id) of every string constant, docstrings aside, that is a rule id or holds one as a part
    of a dotted key (`rules.<id>.title`)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    word = re.compile(r"(?:^|\.)(" + "|".join(RULE_IDS) + r")(?:\.|$)")
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if node.value in _SCHEMA:
                continue
            found += [(node.lineno, m.group(1)) for m in word.finditer(node.value)]
    return found


def rule_ids_in_template(source: str) -> list[tuple[int, str]]:
    code = re.sub(r"\{#.*?#\}", lambda m: "\n" * m.group(0).count("\n"), source, flags=re.S)
    word = re.compile(r"\b(" + "|".join(RULE_IDS) + r")\b")
    return [(code.count("\n", 0, m.start()) + 1, m.group(1)) for m in word.finditer(code)]


def test_no_rule_id_in_product_code_outside_the_rules() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{line}: {rid}"
        for path in _python_files()
        for line, rid in rule_ids_in_python(path.read_text(encoding="utf-8"))
    ]
    assert hits == []


def test_no_rule_id_in_the_templates() -> None:
    hits = [
        f"{path.name}:{line}: {rid}"
        for path in sorted(_TEMPLATES.glob("*.j2"))
        for line, rid in rule_ids_in_template(path.read_text(encoding="utf-8"))
    ]
    assert hits == []


@pytest.mark.parametrize(
    "source",
    [
        'if f.rule_id == "gc_off":\n    pass\n',
        'SKIP = {"secret_in_input", "x"}\n',
        'key = f"rules.not_oom.{field}"\n',
    ],
)
def test_the_scan_finds_an_id_written_in_code(source: str) -> None:
    assert rule_ids_in_python(source)


def test_the_scan_leaves_docstrings_comments_and_schema_names() -> None:
    source = '"""About gc_off."""\n# gc_off\nout = {"not_oom": True, "not_oom_kind": None}\n'
    assert rule_ids_in_python(source) == []


def test_the_template_scan_finds_an_id_and_leaves_comments() -> None:
    assert rule_ids_in_template('{% if s.rule_id == "gc_off" %}x{% endif %}') == [(1, "gc_off")]
    assert rule_ids_in_template("{# gc_off #}\n{{ rt(s.rule_id) }}") == []
