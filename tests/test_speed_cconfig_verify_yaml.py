"""A corrected YAML config is checked by walking its events beside the re-checked data (`yaml_holding`),
without building the data; the parser is the oracle.

Whenever `yaml_holding` says a text holds some data, `parse_config(..., mapped=False)` reads that text as
data equal to it (`same_data`), with no error and the same training process. The texts are dumped data
(block and flow style), the same data changed a little (a leaf of another type, a key more or less, an
item more), and texts made of YAML's awkward pieces (duplicate keys, anchors and aliases, merge keys,
tags, quoted numbers, NaN, several documents). A claim must be made for the parser's own reading of a
plain text (the check is not vacuous), and a whole diagnosis is the same with the check switched off.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import diagnosis.ladder as ladder
from diagnosis import diagnose
from diagnosis.config.parse import parse_config, same_data, shape_of, yaml_holding
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.models import Piece, PieceKind
from tests.speed_oracles import bundled_inputs, data_trees, input_id

INPUTS = bundled_inputs("*")


def _piece(text: str) -> Piece:
    return Piece(kind=PieceKind.CONFIG_YAML, text=text, source="test", input_index=0, line_offset=0)


def _agrees(text: str, data: Any, limits: Limits = DEFAULT_LIMITS, scan_tabs: bool = True) -> bool:
    """`yaml_holding` claims only what the parser confirms; True when it claimed anything."""
    doc = yaml_holding(_piece(text), data, limits, scan_tabs=scan_tabs)
    if doc is None:
        return False
    plain = parse_config(_piece(text), limits, scan_tabs=scan_tabs, mapped=False)
    assert plain.error is None and plain.data is not None, text
    assert same_data(plain.data, data), (text, plain.data, data)
    assert plain.process_path == doc.process_path == shape_of(data)[1]
    assert (plain.shape, plain.ok, plain.limits_hit) == (doc.shape, doc.ok, doc.limits_hit)
    assert doc.data is data and doc.source_map == {} and doc.format == "yaml"
    return True


KEYS = ["config", "process", "train", "type", "batch_size", "a", "b", "é", "1", "on"]
keys = st.sampled_from(KEYS)
trees = data_trees(
    KEYS, extra_scalars=["1", "1.0", "true", "null", "~", "0x1f", "1e-4", ".nan", "yes", ""], int_bound=10**20
)
objects = st.dictionaries(keys, trees, max_size=5)


def _changed(data: Any, choice: int) -> Any:
    """The same data with one thing changed (or, for some choices, unchanged)."""
    if isinstance(data, dict) and data:
        first = next(iter(data))
        if choice % 4 == 0:
            return {k: v for k, v in data.items() if k != first}
        if choice % 4 == 1:
            return {**data, "extra": 1}
        return {**data, first: _changed(data[first], choice // 4)}
    if isinstance(data, list):
        if choice % 3 == 0 or not data:
            return [*data, 1]
        if choice % 3 == 1:
            return data[:-1]
        return [_changed(data[0], choice // 3), *data[1:]]
    if data is None:
        return "" if choice % 2 else 0
    if isinstance(data, bool):
        return int(data) if choice % 2 else not data  # 1 for True: equal, but not the same data
    if isinstance(data, int) and data in (0, 1) and choice % 2:
        return bool(data)
    if isinstance(data, int) and not isinstance(data, bool):
        return float(data) if choice % 2 else data + 1
    if isinstance(data, float):
        return 0.0 if math.isnan(data) else math.nan
    if isinstance(data, str):
        return data + "x"
    return "changed"


@settings(max_examples=400)
@given(objects, st.integers(0, 63), st.booleans(), st.integers(1, 6), st.integers(1, 30))
def test_yaml_holding_claims_only_what_the_parser_reads(
    data: dict[str, Any], choice: int, flow: bool, depth: int, nodes: int
) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=choice % 2 == 0, sort_keys=False)
    plain = parse_config(_piece(text), mapped=False)
    assert _agrees(text, plain.data)  # the parser's own reading is shown
    changed = _changed(plain.data, choice)
    assert _agrees(text, changed) == same_data(changed, plain.data)
    _agrees(text, plain.data, Limits(max_yaml_depth=depth, max_yaml_nodes=nodes))
    _agrees(text + "\n---\nb: 1\n", plain.data)  # a second document
    _agrees(text.replace("\n", "\t\n", 1), plain.data)  # a tab
    _agrees(text.replace("\n", "\t\n", 1), plain.data, scan_tabs=False)


PARTS = [
    "a: 1\n",
    "a: 2\n",
    "b: &x {c: 1}\n",
    "d: *x\n",
    "e:\n  <<: *x\n  f: 2\n",
    "g: !!str 1\n",
    "h: !!float 1\n",
    "i: !!int '3'\n",
    "j: '1.0'\n",
    "k: .nan\n",
    "l: [1, [2, {m: 3}]]\n",
    "n:\n  - 1\n  - o: 2\n    p: [3]\n",
    "? [q]\n: 1\n",
    "r: !custom 4\n",
    "s: 1e-4\n",
    "t: \n",
    "u: {a: 1, a: 2}\n",
    "- 1\n",
    "---\n",
    "v: 0b101\n",
    "w: 1_000\n",
    "x: -.inf\n",
    "[1, 2]\n",
]


@settings(max_examples=600)
@given(st.lists(st.sampled_from(PARTS), min_size=1, max_size=6), st.integers(0, 63))
def test_awkward_texts(parts: list[str], choice: int) -> None:
    text = "".join(parts)
    plain = parse_config(_piece(text), mapped=False)
    if plain.cut_off:
        # A text that ends inside a value is read up to its last complete line: that is what it holds.
        text = plain.piece.text
        last = parts[-1].rstrip("\n").rsplit("\n", 1)  # the line dropped is the last part's last line
        parts = [*parts[:-1], *([last[0] + "\n"] if len(last) > 1 else [])]
        assert "".join(parts) == text
    if plain.data is None:
        assert yaml_holding(_piece(text), {"a": 1}) is None
        return
    claimed = _agrees(text, plain.data)
    _agrees(text, _changed(plain.data, choice))
    # Shown for every text the simple reader takes without a duplicate key, an alias or a merge key.
    awkward = any(p in text for p in ("*x", "a: 1\na: 2", "a: 2\na: 1", "{a: 1, a: 2}", "---", "? [q]"))
    duplicated = len(parts) != len(set(parts)) or ("a: 1\n" in parts and "a: 2\n" in parts)
    if not awkward and not duplicated and isinstance(plain.data, dict):
        assert claimed, text


def test_what_is_not_shown_is_left_to_the_parser() -> None:
    text = "train:\n  batch_size: 1\n  lr: .nan\n  steps: [1, 2]\n"
    data = {"train": {"batch_size": 1, "lr": math.nan, "steps": [1, 2]}}
    assert _agrees(text, data)
    for other in [
        {"train": {"batch_size": 1, "lr": 1.0, "steps": [1, 2]}},
        {"train": {"batch_size": True, "lr": math.nan, "steps": [1, 2]}},
        {"train": {"batch_size": 1.0, "lr": math.nan, "steps": [1, 2]}},
        {"train": {"batch_size": 1, "lr": math.nan, "steps": [1, 2, 3]}},
        {"train": {"batch_size": 1, "lr": math.nan, "steps": [1]}},
        {"train": {"batch_size": 1, "lr": math.nan, "steps": [1, 2], "x": None}},
        {"train": {"batch_size": 1, "lr": math.nan}},
        {"train": {"batch_size": 1, "lr": math.nan, "steps": {"0": 1}}},
        {"train": [1]},
    ]:
        assert yaml_holding(_piece(text), other) is None, other
    assert yaml_holding(_piece(text + "]"), data) is None
    assert yaml_holding(_piece(text), data, Limits(max_yaml_nodes=10)) is None  # keys count too
    assert yaml_holding(_piece(text), data, Limits(max_yaml_nodes=11)) is not None
    assert yaml_holding(_piece(text), data, Limits(max_yaml_depth=2)) is None
    assert yaml_holding(_piece(text), data, Limits(max_yaml_depth=3)) is not None
    assert yaml_holding(_piece(text), data, Limits(max_config_bytes=len(text) - 1)) is None
    assert yaml_holding(_piece(text)._replace(kind=PieceKind.CONFIG_JSON), data) is None
    assert (
        yaml_holding(_piece("train:\n  batch_size: 1\n  batch_size: 1\n"), {"train": {"batch_size": 1}})
        is None
    )


@pytest.mark.parametrize("path", INPUTS, ids=input_id)
def test_a_diagnosis_is_the_same_without_the_check(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    fast = [repr(diagnose([data], steps=steps)) for steps in (1, 2, None)]
    monkeypatch.setattr(ladder, "yaml_holding", lambda *args, **kwargs: None)
    assert [repr(diagnose([data], steps=steps)) for steps in (1, 2, None)] == fast
