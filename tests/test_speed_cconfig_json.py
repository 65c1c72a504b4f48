"""The one-loop JSON reader (`_simple_json`) gives exactly what `_JsonParser` gives.

Oracle: on every text the simple reader takes, its data (types, order, NaN), source map (entries and
their order), limit hits, stale flag and error equal `_JsonParser`'s; what it declines (errors,
limits, duplicate keys, a scalar root) is left to `_JsonParser`. The bundled JSON configs must be
taken, so the fast path is the one the engine runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.config.parse import _JsonParser, _Parsed, _simple_json
from diagnosis.intake import read_case
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.logreader import read_log
from diagnosis.models import PieceKind
from tests.speed_oracles import bundled_inputs, data_trees, input_id, shortcut_agrees

INPUTS = bundled_inputs("*", "*.json")


def _general_json(text: str, limits: Limits, mapped: bool) -> _Parsed:
    return _JsonParser(text, limits, mapped).parse()


def _check(text: str, limits: Limits = DEFAULT_LIMITS) -> bool:
    """True when the simple reader took the text (and agreed with `_JsonParser`)."""
    return shortcut_agrees(_simple_json, _general_json, text, limits)


def _json_texts(path: Path) -> list[str]:
    intake = read_case([path.read_bytes()])
    texts = [p.text for p in intake.pieces if p.kind == PieceKind.CONFIG_JSON]
    for piece in intake.pieces:
        if piece.kind == PieceKind.LOG:
            echoed = read_log(piece).echoed_config
            if echoed is not None:
                texts.append(echoed.text)
    return texts


@pytest.mark.parametrize("path", INPUTS, ids=input_id)
def test_bundled_json_reads_the_same(path: Path) -> None:
    for text in _json_texts(path):
        _check(text)


def test_the_bundled_json_configs_take_the_simple_reader() -> None:
    taken = sum(_check(text) for path in INPUTS for text in _json_texts(path))
    assert taken >= 3


trees = data_trees(["config", "process", "train", "a", "b", "", "é", "\u2028", 'q"uote'])


@settings(max_examples=300)
@given(trees, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.integers(1, 6), st.integers(1, 30))
def test_dumped_json_reads_the_same(
    tree: object, indent: int | str | None, ascii: bool, depth: int, nodes: int
) -> None:
    text = json.dumps(tree, indent=indent, ensure_ascii=ascii)
    _check(text)
    _check(text, Limits(max_yaml_depth=depth, max_yaml_nodes=nodes))
    _check(" \r\n" + text + "\n trailing")


# Tokens of hand-written JSON: whitespace, duplicate keys, bad numbers, constants, unclosed things.
TOKENS = st.sampled_from(
    ['{', '}', '[', ']', ',', ':', '"a"', '"b"', '"a"', '1', '-0', '01', '1.5e3', '1e', '-', 'true', 'nul',
     'null', 'NaN', '-Infinity', 'Infinity', ' ', '\n', '\r\n', '\t', '"\\u2028 \\ud83d"', '"x\ty"', 'x']
)  # fmt: skip


@settings(max_examples=500)
@given(st.lists(TOKENS, max_size=14))
def test_hand_written_json_reads_the_same(tokens: list[str]) -> None:
    text = "".join(tokens)
    _check(text)
    _check("{" + text)
    _check('{"k": [' + text)


def test_declined_texts_go_to_the_plain_reader() -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": 1,}', "[1, 2", "5", "", "  ", '{"a" 1}', '["\\x"]'):
        assert _simple_json(text, DEFAULT_LIMITS, True) is None, text
    assert _simple_json('{"a": {"b": {}}}', Limits(max_yaml_depth=2), True) is None
    assert _simple_json('{"a": [1, 2]}', Limits(max_yaml_nodes=3), True) is None
    assert _check('{"a": [1, 2]}', Limits(max_yaml_nodes=4))
    assert _check('{"a": 1} and then some text')
