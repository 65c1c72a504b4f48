"""The ladder re-checks the config without evidence; no rule may decide on evidence.

For every bundled config, the rules that fire on the config alone are the same with and without the
evidence lines, and the facts differ only in evidence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnosis.config.parse import parse_config
from diagnosis.facts import build_facts
from diagnosis.intake import read_case
from diagnosis.models import PieceKind
from diagnosis.record import replace
from diagnosis.rules import run_rules
from tests.speed_oracles import bundled_inputs, input_id

TESTS = Path(__file__).parent
INPUTS = bundled_inputs("*.yaml", "*.yaml")


@pytest.mark.parametrize("path", INPUTS, ids=input_id)
def test_rules_fire_the_same_without_evidence(path: Path) -> None:
    intake = read_case([path.read_bytes()])
    kinds = (PieceKind.CONFIG_YAML, PieceKind.CONFIG_JSON)
    docs = [parse_config(p) for p in intake.pieces if p.kind in kinds]
    for vram in (8.0, 24.0):
        full = build_facts(intake, docs, [], vram, situational=False)
        bare = build_facts(intake, docs, [], vram, situational=False, with_evidence=False)
        assert replace(bare, evidence=full.evidence) == full
        assert sorted(f.rule_id for f in run_rules(bare)[0]) == sorted(f.rule_id for f in run_rules(full)[0])


def test_evidence_is_left_out_only_when_asked() -> None:
    path = TESTS.parent / "examples" / "flux_lora_24gb_gc_off.yaml"
    intake = read_case([path.read_bytes()])
    docs = [parse_config(p) for p in intake.pieces if p.kind == PieceKind.CONFIG_YAML]
    assert build_facts(intake, docs, [], 24.0, situational=False).evidence
    assert not build_facts(intake, docs, [], 24.0, situational=False, with_evidence=False).evidence
