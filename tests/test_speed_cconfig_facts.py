"""One reading of the pasted config serves the diagnosis and the ladder's first re-check.

Oracle: for every bundled input, `build_facts(..., config_read=read_config_facts(doc))` equals the
plain build that reads the config itself, for the diagnosis (with evidence) and for the config-only
re-check (same rules fire; the facts differ only in evidence). A build never changes the reading
it started from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis import record
from diagnosis.config.parse import get_path, parse_config
from diagnosis.facts import _Config, build_facts, choose_config, read_config_facts
from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.facts_prose import ProseHints, read_prose
from diagnosis.intake import read_case
from diagnosis.logreader import read_log
from diagnosis.models import Piece, PieceKind
from diagnosis.record import replace
from diagnosis.rules import run_rules
from tests.speed_oracles import bundled_inputs, input_id
from tests.test_record import _reference

INPUTS = bundled_inputs("*.yaml", "*.yaml")


@pytest.mark.parametrize("path", INPUTS, ids=input_id)
def test_a_shared_reading_builds_the_same_facts(path: Path) -> None:
    intake = read_case([path.read_bytes()])
    configs = [
        parse_config(p) for p in intake.pieces if p.kind in (PieceKind.CONFIG_YAML, PieceKind.CONFIG_JSON)
    ]
    logs = [read_log(p) for p in intake.pieces if p.kind == PieceKind.LOG]
    hints = read_prose(intake.prose)
    doc = choose_config(configs)
    if doc is None:
        return  # nothing to share: the engine builds from nothing
    read = read_config_facts(doc)
    before = repr(read)

    plain = build_facts(intake, configs, logs, None, hints=hints)
    shared = build_facts(intake, configs, logs, None, hints=hints, config_read=read)
    assert shared == plain
    assert repr(read) == before  # the build worked on its own copy

    for vram in (8.0, 24.0, plain.vram_gib):
        alone = build_facts(intake, [doc], [], vram, situational=False, hints=hints, with_evidence=False)
        again = build_facts(intake, [doc], [], vram, situational=False, hints=hints, config_read=read)
        assert replace(again, evidence={}) == replace(alone, evidence={})
        assert [f.rule_id for f in run_rules(again)[0]] == [f.rule_id for f in run_rules(alone)[0]]
    assert repr(read) == before


values = st.recursive(
    st.none() | st.integers(-2, 2) | st.sampled_from(["x", "train"]),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(["train", "a", "0"]), kids, max_size=3)
    ),
    max_leaves=10,
)
path_parts = st.sampled_from(["train", "a", "0", 0, 1, -1, True])


@settings(max_examples=400)
@given(
    st.dictionaries(st.sampled_from(["train", "model", "a"]), values, max_size=3),
    st.lists(path_parts, max_size=4),
)
@example({"train": [5, 6]}, ["train", 0])
@example({"train": {"a": 1}}, ["train", "a"])
@example({"train": 1}, ["train", "a"])
def test_a_config_value_is_what_get_path_finds(process: dict[str, Any], path: list[str | int]) -> None:
    doc = parse_config(Piece(PieceKind.CONFIG_JSON, json.dumps(process), "test", 0, 0))
    assert doc.ok
    cfg = _Config(doc, Facts(), with_evidence=False)
    found, expected = cfg.value(tuple(path)), get_path(doc.data, tuple(path))
    assert found is expected or found == expected


# The oracle of tests/test_record.py (a generated dataclass of the same fields): one definition, in
# which a required field (DatasetFacts.index) stays required.
REFERENCE = _reference(Facts)
PROSE_REFERENCE = _reference(ProseHints)
FIELD_VALUES = {
    "has_oom": st.booleans(),
    "batch_size": st.integers(0, 3),
    "family": st.none() | st.sampled_from(["flux", "x"]),
    "vram_gib": st.none() | st.floats(allow_nan=True),
    "buckets": st.lists(st.integers(0, 3), max_size=2),
    "evidence": st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 2), max_size=2),
    "defaulted": st.sets(st.sampled_from(["a", "b"]), max_size=2),
}
some_fields = st.fixed_dictionaries({}, optional=FIELD_VALUES)


@settings(max_examples=300)
@given(some_fields, some_fields)
def test_facts_behave_as_a_generated_dataclass(first: dict[str, Any], second: dict[str, Any]) -> None:
    a, b = Facts(**first), Facts(**second)
    ra, rb = REFERENCE(**first), REFERENCE(**second)
    assert repr(a) == repr(ra)
    assert (a == b) == (ra == rb)
    assert (a == Facts(**first)) == (ra == REFERENCE(**first))
    assert record.replace(a, **second) == Facts(**{**first, **second})
    for name in ("buckets", "evidence", "defaulted", "issues", "paths"):
        assert getattr(Facts(), name) is not getattr(Facts(), name)  # a fresh one each time
    assert Facts.__hash__ is None and (a == "Facts") is False
    with pytest.raises(TypeError):
        Facts(not_a_fact=1)


@settings(max_examples=100)
@given(some_fields)
def test_a_copy_is_equal_and_owns_its_containers(values: dict[str, Any]) -> None:
    facts = Facts(**values)
    copy = facts.copy()
    assert type(copy) is Facts and copy == facts and repr(copy) == repr(facts)
    for f in record.fields(Facts):
        if f.default_factory is not None:
            assert getattr(copy, f.name) is not getattr(facts, f.name), f.name
    copy.buckets.append(9)
    copy.evidence["c"] = 1  # type: ignore[assignment]
    assert repr(facts) == repr(Facts(**values))


@settings(max_examples=200)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "gc_words": st.none() | st.text(max_size=3),
            "said": st.dictionaries(st.sampled_from(["a.b", "c.d"]), st.text(max_size=3), max_size=2),
            "vram_gib": st.none() | st.floats(allow_nan=True),
            "buckets": st.lists(st.integers(0, 3), max_size=2),
        },
    )
)
def test_prose_hints_behave_as_a_generated_dataclass(given_values: dict[str, Any]) -> None:
    hints, reference = ProseHints(**given_values), PROSE_REFERENCE(**given_values)
    assert repr(hints) == repr(reference)
    assert (hints == ProseHints()) == (reference == PROSE_REFERENCE())
    assert ProseHints().buckets is not ProseHints().buckets
    assert ProseHints().said is not ProseHints().said
    assert ProseHints.__hash__ is None


DATASET_REFERENCE = _reference(DatasetFacts)


@given(st.integers(0, 3), st.lists(st.integers(0, 3), max_size=2), st.booleans())
def test_dataset_facts_behave_as_a_generated_dataclass(
    index: int, resolutions: list[int], cached: bool
) -> None:
    made = DatasetFacts(index=index, resolutions=resolutions, latents_cached=cached)
    reference = DATASET_REFERENCE(index=index, resolutions=resolutions, latents_cached=cached)
    assert repr(made) == repr(reference)
    assert (made == DatasetFacts(index=index)) == (reference == DATASET_REFERENCE(index=index))
    assert DatasetFacts(index=0).resolutions is not DatasetFacts(index=0).resolutions
    with pytest.raises(TypeError):
        DATASET_REFERENCE()
    with pytest.raises(TypeError):
        DatasetFacts()  # type: ignore[call-arg]
