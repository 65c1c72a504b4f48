"""The one-loop YAML reader (`_simple_yaml`) gives exactly what the general event builder gives.

Oracle: on every text the simple reader accepts, its data (types, order, NaN), source map (entries
and their order), limit hits, stale flag and error equal the general builder's; texts it declines
(anchors, merge keys, several documents, limits, errors) go to the general builder. The corpus
configs must be accepted, so the fast path is the one the engine runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.config.parse import _general_yaml, _simple_yaml, parse_config
from diagnosis.intake import read_case
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.models import PieceKind
from tests.speed_oracles import bundled_inputs, data_trees, input_id, shortcut_agrees

TESTS = Path(__file__).parent
INPUTS = bundled_inputs("*.yaml", "*.yaml")


def _check(text: str, limits: Limits = DEFAULT_LIMITS) -> bool:
    """True when the simple reader took the text (and agreed with the general builder)."""
    return shortcut_agrees(_simple_yaml, _general_yaml, text, limits)


@pytest.mark.parametrize("path", INPUTS, ids=input_id)
def test_bundled_configs_read_the_same(path: Path) -> None:
    intake = read_case([path.read_bytes()])
    for piece in intake.pieces:
        if piece.kind == PieceKind.CONFIG_YAML:
            _check(piece.text)


def test_the_corpus_configs_take_the_simple_reader() -> None:
    taken = 0
    for path in sorted(TESTS.glob("corpus/*/*/input.txt")):
        for piece in read_case([path.read_bytes()]).pieces:
            if piece.kind == PieceKind.CONFIG_YAML and parse_config(piece).ok:
                taken += _check(piece.text)
    assert taken >= 10


trees = data_trees(
    ["train", "batch_size", "a", "b", "1", "on", "yes", "null", "~", "", "1e-4", "0x1F"],
    extra_scalars=["x", "1e-4", "yes", "Off", "0o7", "0b101", "1_000", ".5", "-.inf", ".NaN", "2024-1-1"],
    int_bound=10**20,
    text_size=6,
    max_leaves=16,
)


@settings(max_examples=300)
@given(trees, st.sampled_from([False, True, None]), st.integers(1, 4))
def test_dumped_trees_read_the_same(tree: object, flow: bool | None, indent: int) -> None:
    _check(yaml.safe_dump(tree, default_flow_style=flow, indent=max(indent, 2), allow_unicode=True))
    _check(json.dumps(tree))


# Pieces of hand-written YAML: plain, quoted and tagged scalars and keys, duplicate keys, comments,
# flow inside block, block scalars, anchors, merge keys, complex keys, explicit documents.
LINES = st.sampled_from(
    [
        "a: 1",
        "a: {x: 1}",
        "a: [1, 2, {y: n}]",
        "'b': \"two\"",
        "!!str 3: x",
        "c: !!int '7'",
        "c: !!float 2",
        "c: !custom 5",
        "c: ! 5",
        "? [k]\n: v",
        "d: &anchor {z: 1}",
        "e: *anchor",
        "<<: {m: 1}",
        "f: |\n  text\n  more",
        "g: >-\n  folded",
        "h:",
        "i: ~",
        "j:\n  - 1\n  - - 2\n    - 3\n  - k: v",
        "k:\n  l:\n    m: [a, b]",
        "# comment",
        "on: off",
        "---",
        "...",
        "a: [1, 2",
        "\ta: 1",
        "list:\n- x\n- {y: [1, {z: 2}]}",
    ]
)


@settings(max_examples=400)
@given(st.lists(LINES, min_size=1, max_size=8), st.integers(1, 6), st.integers(1, 40))
def test_hand_written_yaml_reads_the_same(lines: list[str], depth: int, nodes: int) -> None:
    text = "\n".join(lines) + "\n"
    _check(text)
    _check(text, Limits(max_yaml_depth=depth, max_yaml_nodes=nodes))
    _check("- " + text.replace("\n", "\n  "))


def test_declined_texts_go_to_the_general_builder() -> None:
    for text in ("a: &x 1\nb: *x\n", "<<: {a: 1}\n", "a: 1\n---\nb: 2\n", "[1, 2", "just text\n", ""):
        assert _simple_yaml(text, DEFAULT_LIMITS, True) is None, text
    assert _simple_yaml("a: {b: {c: 1}}\n", Limits(max_yaml_depth=2), True) is None
    assert _simple_yaml("a: [1, 2, 3]\n", Limits(max_yaml_nodes=5), True) is None
    assert _simple_yaml("a: [1, 2, 3]\n", Limits(max_yaml_nodes=6), True) is not None
    # An anchor that no alias uses is read here (and must read as the general builder reads it).
    assert _check("a: &x {b: &y 1}\nc: &z [2]\n")
