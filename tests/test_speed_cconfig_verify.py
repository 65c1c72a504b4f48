"""A corrected JSON config is checked with the stdlib's reader (`holding`); the parser is the oracle.

Whenever `holding` says a text holds some data, `parse_config(..., mapped=False)` reads that text as
data equal to it (`same_data`), with no error and the same training process; texts that a limit cuts,
that the stdlib refuses or that hold other data are left to the parser. And a whole diagnosis is the
same with the check switched off.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diagnosis.ladder as ladder
from diagnosis import diagnose
from diagnosis.config.parse import holding, parse_config, same_data, shape_of
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.models import Piece, PieceKind
from tests.speed_oracles import bundled_inputs, data_scalars, data_trees, input_id

INPUTS = bundled_inputs("*")


def _piece(text: str) -> Piece:
    return Piece(kind=PieceKind.CONFIG_JSON, text=text, source="test", input_index=0, line_offset=0)


def _agrees(text: str, data: Any, limits: Limits = DEFAULT_LIMITS) -> bool:
    """`holding` claims only what the parser confirms; True when it claimed anything."""
    doc = holding(_piece(text), data, limits)
    if doc is None:
        return False
    plain = parse_config(_piece(text), limits, mapped=False)
    assert plain.ok, text
    assert same_data(plain.data, data), text
    assert plain.process_path == doc.process_path == shape_of(data)[1]
    assert doc.data is data and doc.ok
    return True


KEYS = ["config", "process", "train", "type", "batch_size", "a", "b", "", "é"]
keys = st.sampled_from(KEYS)
scalars = data_scalars()
trees = data_trees(KEYS)
objects = st.dictionaries(keys, trees, max_size=5)


@settings(max_examples=300)
@given(objects, st.integers(1, 6), st.integers(1, 30), st.integers(0, 400), st.booleans())
def test_holding_claims_only_what_the_parser_reads(
    data: dict[str, Any], depth: int, nodes: int, size: int, indent: bool
) -> None:
    text = json.dumps(data, indent=2 if indent else None)
    plain = parse_config(_piece(text), mapped=False)
    assert _agrees(text, plain.data)  # no limit near: the stdlib's reading shows it
    small = Limits(max_yaml_depth=depth, max_yaml_nodes=nodes, max_config_bytes=size)
    _agrees(text, plain.data, small)
    _agrees(text + " x", plain.data)  # text after the document
    _agrees(text, {**plain.data, "extra": 1})


@settings(max_examples=200)
@given(st.lists(st.tuples(keys, scalars), min_size=1, max_size=6), st.sampled_from(["", " ", "\n", "\ufeff"]))
def test_duplicate_keys_and_odd_text(pairs: list[tuple[str, Any]], pad: str) -> None:
    text = pad + "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}" + pad
    plain = parse_config(_piece(text), mapped=False)
    if plain.ok:
        _agrees(text, plain.data)


def test_what_is_not_shown_is_left_to_the_parser() -> None:
    data = {"train": {"batch_size": 1, "lr": math.nan}}
    text = json.dumps(data)
    assert _agrees(text, data)
    assert holding(_piece(text), {"train": {"batch_size": 1, "lr": 1.0}}) is None
    assert holding(_piece(text), {"train": {"batch_size": True, "lr": math.nan}}) is None
    assert holding(_piece(text + "]"), data) is None
    assert holding(_piece(text), data, Limits(max_yaml_nodes=3)) is None  # root, train, two values
    assert holding(_piece(text), data, Limits(max_yaml_nodes=4)) is not None
    assert holding(_piece(text), data, Limits(max_yaml_depth=1)) is None
    assert holding(_piece(text), data, Limits(max_config_bytes=len(text) - 1)) is None
    assert holding(_piece(text)._replace(kind=PieceKind.CONFIG_YAML), data) is None


@pytest.mark.parametrize("path", INPUTS, ids=input_id)
def test_a_diagnosis_is_the_same_without_the_check(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    fast = [repr(diagnose([data], steps=steps)) for steps in (1, None)]
    monkeypatch.setattr(ladder, "holding", lambda *args: None)
    assert [repr(diagnose([data], steps=steps)) for steps in (1, None)] == fast


def same_reference(a: Any, b: Any) -> bool:
    """same_data written plainly: one call per node."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return bool(a.keys() == b.keys()) and all(same_reference(a[k], b[k]) for k in a)
    if kind is list:
        return len(a) == len(b) and all(same_reference(x, y) for x, y in zip(a, b, strict=True))
    if kind is float and a != a:
        return bool(b != b)
    return bool(a == b)


small = st.one_of(st.sampled_from([0, 1, True, False, 1.0, 0.0, math.nan, None, "1", ""]), st.integers(-2, 2))
small_trees = st.recursive(
    small,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=1000)
@given(small_trees, small_trees)
def test_same_data_judges_as_the_plain_definition(a: Any, b: Any) -> None:
    assert same_data(a, b) == same_reference(a, b)
    assert same_data(a, a) == same_reference(a, a)
