"""parse_config: plain data, shape, training process, source map, errors, hostile YAML and JSON."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.config.parse import resolve_plain
from diagnosis.limits import Limits
from diagnosis.models import ConfigDoc, ConfigShape, PieceKind
from tests.conftest import CORPUS
from tests.test_config_samples import (
    ECHOED_PROCESS_JSON,
    FLUX_24GB,
    QWEN_IMAGE_24GB,
    TRAIN_FRAGMENT,
    UI_JOB_JSON,
    WAN22_14B_24GB,
    parse,
)


def value_text(doc: ConfigDoc, *path: str | int) -> str:
    span = doc.source_map[path].value
    return doc.piece.text[span.start_index : span.end_index]


def key_text(doc: ConfigDoc, *path: str | int) -> str:
    span = doc.source_map[path].key
    assert span is not None
    return doc.piece.text[span.start_index : span.end_index]


def corpus_lines(case: str, first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive) of a corpus input, as intake would hand them over."""
    lines = (CORPUS / case / "input.txt").read_text(encoding="utf-8").split("\n")
    return "\n".join(lines[first - 1 : last]) + "\n"


# --------------------------------------------------------------------------------------------------
# Shipped-example styles


def test_flux_24gb_is_a_full_job_with_its_values_and_comments_ignored() -> None:
    doc = parse(FLUX_24GB)
    assert doc.ok and doc.format == "yaml"
    assert doc.shape == ConfigShape.FULL_JOB
    assert doc.process_path == ("config", "process", 0)
    process = doc.data["config"]["process"][0]
    assert process["model"] == {
        "name_or_path": "black-forest-labs/FLUX.1-dev",
        "is_flux": True,
        "quantize": True,
    }
    assert process["train"]["lr"] == pytest.approx(1e-4)
    assert isinstance(process["train"]["lr"], float)
    assert process["datasets"][0]["resolution"] == [512, 768, 1024]
    assert process["train"]["gradient_checkpointing"] is True
    assert "low_vram" not in process["model"]  # commented out
    assert doc.data["meta"] == {"name": "[name]", "version": "1.0"}


def test_the_source_map_points_at_keys_and_values() -> None:
    doc = parse(FLUX_24GB)
    gc = ("config", "process", 0, "train", "gradient_checkpointing")
    entry = doc.source_map[gc]
    assert entry.node == "scalar" and not entry.flow
    assert key_text(doc, *gc) == "gradient_checkpointing"
    assert value_text(doc, *gc) == "true"
    line = FLUX_24GB.split("\n")[entry.value.start_line]
    assert line == "        gradient_checkpointing: true  # need the on unless you have a ton of vram"
    assert entry.key is not None and entry.key.start_col == 8
    resolution = doc.source_map[("config", "process", 0, "datasets", 0, "resolution")]
    assert resolution.node == "sequence" and resolution.flow
    assert value_text(doc, "config", "process", 0, "datasets", 0, "resolution") == "[ 512, 768, 1024 ]"
    assert value_text(doc, "config", "process", 0, "datasets", 0, "resolution", 2) == "1024"
    item = doc.source_map[("config", "process", 0, "datasets", 0)]
    assert item.key is None and item.node == "mapping"
    assert doc.source_map[()].key is None


def test_qwen_image_ara_qtype_keeps_its_pipe() -> None:
    doc = parse(QWEN_IMAGE_24GB)
    model = doc.data["config"]["process"][0]["model"]
    assert model["qtype"] == "uint3|ostris/accuracy_recovery_adapters/qwen_image_torchao_uint3.safetensors"
    assert model["low_vram"] is True
    assert doc.data["config"]["process"][0]["train"]["cache_text_embeddings"] is True


def test_wan22_without_a_document_marker() -> None:
    doc = parse(WAN22_14B_24GB)
    assert doc.shape == ConfigShape.FULL_JOB
    process = doc.data["config"]["process"][0]
    assert process["model"]["model_kwargs"] == {"train_high_noise": True, "train_low_noise": True}
    assert process["train"]["switch_boundary_every"] == 10


def test_ui_job_json_is_a_full_job_and_matches_the_stdlib() -> None:
    doc = parse(UI_JOB_JSON, PieceKind.CONFIG_JSON)
    assert doc.ok and doc.format == "json"
    assert doc.shape == ConfigShape.FULL_JOB
    assert doc.process_path == ("config", "process", 0)
    assert doc.data == json.loads(UI_JOB_JSON)
    gc = ("config", "process", 0, "train", "gradient_checkpointing")
    assert key_text(doc, *gc) == '"gradient_checkpointing"'
    assert value_text(doc, *gc) == "false"
    assert doc.source_map[gc].flow
    assert value_text(doc, "config", "process", 0, "model", "arch") == '"zimage:turbo"'
    resolution = doc.source_map[("config", "process", 0, "datasets", 0, "resolution")]
    assert resolution.value.start_line != resolution.value.end_line


def test_echoed_process_json_is_a_process() -> None:
    doc = parse(ECHOED_PROCESS_JSON, PieceKind.CONFIG_JSON)
    assert doc.shape == ConfigShape.PROCESS
    assert doc.process_path == ()
    assert doc.data == json.loads(ECHOED_PROCESS_JSON)
    assert doc.data["training_folder"] == "C:\\ai-toolkit\\output"


def test_train_fragment() -> None:
    doc = parse(TRAIN_FRAGMENT)
    assert doc.ok
    assert doc.shape == ConfigShape.FRAGMENT
    assert doc.process_path == ()
    assert doc.data["train"]["batch_size"] == 4
    assert value_text(doc, "train", "batch_size") == "4"


def test_a_bare_process_mapping_is_a_process() -> None:
    doc = parse("type: sd_trainer\ntrain:\n  batch_size: 1\nmodel:\n  name_or_path: x\n")
    assert doc.shape == ConfigShape.PROCESS


def test_the_training_process_is_chosen_among_several() -> None:
    text = (
        "job: extension\nconfig:\n  name: x\n  process:\n"
        "    - type: captioner\n      folder: a\n"
        "    - type: diffusion_trainer\n      train:\n        batch_size: 2\n"
    )
    doc = parse(text)
    assert doc.process_path == ("config", "process", 1)
    first_with_train = parse(text.replace("diffusion_trainer", "my_custom_thing"))
    assert first_with_train.process_path == ("config", "process", 1)


# --------------------------------------------------------------------------------------------------
# Corpus


def test_corpus_101_fenced_config_is_a_full_job() -> None:
    doc = parse(corpus_lines("synthetic/101-flux-dev-gc-off-batch4-multibucket-oom-step2", 4, 72))
    assert doc.ok and doc.shape == ConfigShape.FULL_JOB
    assert doc.process_path == ("config", "process", 0)
    gc = ("config", "process", 0, "train", "gradient_checkpointing")
    assert doc.data["config"]["process"][0]["train"]["gradient_checkpointing"] is False
    # line 39 of input.txt = line 35 of the piece (0-based 35 - ... ): the piece starts at input line 4
    assert doc.source_map[gc].value.start_line + 4 == 39


def test_corpus_102_ui_json() -> None:
    doc = parse(
        corpus_lines("synthetic/102-zimage-turbo-gc-off-1024-1536-batch4-ui-json", 6, 146),
        PieceKind.CONFIG_JSON,
    )
    assert doc.ok and doc.shape == ConfigShape.FULL_JOB
    assert doc.data["config"]["process"][0]["train"]["gradient_checkpointing"] is False


def test_corpus_111_tab_indentation_error() -> None:
    doc = parse(corpus_lines("synthetic/111-qwen-edit-2511-tab-indent-yaml-invalid", 4, 77))
    assert doc.data is None and not doc.ok
    assert doc.error is not None
    assert (doc.error.line, doc.error.column) == (52, 1)
    assert doc.error.tab_indent
    assert doc.error.line_text == "\t\tlow_vram: true"
    assert "cannot start any token" in doc.error.problem


# --------------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("train:\n  batch_size: 4\n   steps: 3\n", 3, 9),  # mapping values are not allowed here
        ('model:\n  name_or_path: "black-forest-labs/FLUX.1-dev\n  quantize: true\n', 4, 1),
        # A list opened on an earlier line and never closed: the parser stops at the next key.
        ("train:\n  lr: [1e-4\n  steps: 3\n  batch_size: 1\n", 3, 8),
    ],
)
def test_broken_yaml_reports_line_and_column(text: str, line: int, column: int) -> None:
    doc = parse(text)
    assert doc.data is None and doc.error is not None
    assert (doc.error.line, doc.error.column) == (line, column)
    assert doc.error.problem
    assert not doc.error.tab_indent


def test_the_error_problem_is_the_parsers_own_words() -> None:
    text = "train:\n  batch_size: 4\n   steps: 3\n"
    with pytest.raises(yaml.MarkedYAMLError) as raised:
        yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    doc = parse(text)
    assert doc.error is not None and doc.error.problem == raised.value.problem


def test_tabs_are_judged_like_ai_toolkits_own_loader() -> None:
    indent = parse("train:\n  batch_size: 4\n\tsteps: 3\n")
    assert indent.error is not None and indent.error.tab_indent
    assert indent.error.problem == "found character '\\t' that cannot start any token"
    # libyaml would accept a trailing tab; PyYAML's Python scanner (what the trainer uses) does not
    trailing = parse("train:\n  batch_size: 4\t\n")
    assert trailing.error is not None and (trailing.error.line, trailing.error.column) == (2, 16)
    assert not trailing.error.tab_indent
    quoted = parse('train:\n  note: "a\tb"\n')
    assert quoted.ok and quoted.data["train"]["note"] == "a\tb"


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [('{"a": 1,}', 1, 9), ('{\n  "a": 1\n  "b": 2\n}', 3, 3), ('{"a": "x', 1, 7), ('{"a": [1 2]}', 1, 10)],
)
def test_broken_json_reports_line_and_column(text: str, line: int, column: int) -> None:
    doc = parse(text, PieceKind.CONFIG_JSON)
    assert doc.data is None and doc.error is not None
    assert (doc.error.line, doc.error.column) == (line, column)


def test_empty_and_non_mapping_roots_are_not_configs() -> None:
    for text in ("", "# only a comment\n", "- a\n- b\n", "just words\n"):
        doc = parse(text)
        assert not doc.ok and doc.error is None and doc.shape == ConfigShape.FRAGMENT
    assert parse("- a\n- b\n").data == ["a", "b"]


def test_multiple_documents_take_the_first_config() -> None:
    doc = parse("name: notes\n---\njob: extension\nconfig:\n  name: x\n  process:\n    - type: sd_trainer\n")
    assert doc.ok and doc.shape == ConfigShape.FULL_JOB
    assert doc.data["job"] == "extension"
    assert doc.source_map[("job",)].value.start_line == 2


def test_oversized_config_is_not_parsed() -> None:
    doc = parse("a: 1\n" * 100, limits=Limits(max_config_bytes=64))
    assert doc.data is None and doc.limits_hit == ["max_config_bytes"]


# --------------------------------------------------------------------------------------------------
# Scalars and hostile YAML


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e-4", 1e-4),
        ("1E5", 1e5),
        ("2.5e-05", 2.5e-05),
        ("0.0001", 0.0001),
        ("1_000", 1000),
        ("012", 10),
        ("0x1F", 31),
        ("-3", -3),
        ("true", True),
        ("yes", True),
        ("Off", False),
        ("~", None),
        ("null", None),
        ("fp32", "fp32"),
        ("cuda:0", "cuda:0"),
        ("1e", "1e"),
        ("._", "._"),
        ("2026-01-02", "2026-01-02"),
    ],
)
def test_plain_scalars_resolve_like_ai_toolkit(text: str, value: object) -> None:
    resolved = resolve_plain(text)
    assert type(resolved) is type(value)
    assert resolved == value


def test_infinities_and_nan_stay_floats() -> None:
    data = parse("a: .inf\nb: -.Inf\nc: .nan\n").data
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"])


def test_quoted_and_tagged_scalars() -> None:
    data = parse("a: '1e-4'\nb: \"true\"\nc: !!str 5\nd: !!float 3\ne: !!int x\n").data
    assert data == {"a": "1e-4", "b": "true", "c": "5", "d": 3.0, "e": "x"}


def test_python_tags_are_never_constructed() -> None:
    text = (
        "a: !!python/object/apply:os.system ['echo hacked']\n"
        "b: !!python/name:os.system x\n"
        "c: !custom {k: 1}\n"
    )
    doc = parse(text)
    assert doc.data == {"a": ["echo hacked"], "b": "x", "c": {"k": 1}}


def test_duplicate_keys_last_wins_and_stale_entries_are_dropped() -> None:
    doc = parse("train:\n  a: 1\n  b: 2\ntrain:\n  b: 3\n")
    assert doc.data == {"train": {"b": 3}}
    assert ("train", "a") not in doc.source_map
    assert doc.source_map[("train", "b")].value.start_line == 4


def test_complex_and_non_string_keys() -> None:
    doc = parse("? [a, b]\n: 1\n1: one\non: yes\nok: 2\n")
    assert doc.data == {"1": "one", "on": True, "ok": 2}


def test_aliases_and_merge_keys() -> None:
    doc = parse("base: &b\n  x: 1\n  y: 2\nuse:\n  <<: *b\n  y: 3\nsame: *b\n")
    assert doc.data["use"] == {"x": 1, "y": 3}
    assert doc.data["same"] == {"x": 1, "y": 2}
    assert ("use", "x") not in doc.source_map  # merged: it lives under `base`
    assert value_text(doc, "same") == "*b"


def test_inline_merges_apply_in_order_and_explicit_keys_win() -> None:
    doc = parse("a:\n  <<: [{x: 1}, {x: 2, y: 3}]\n  y: 0\nb:\n  <<: {q: 1}\n")
    assert doc.data == {"a": {"y": 0, "x": 1}, "b": {"q": 1}}
    assert ("a", "<<") not in doc.source_map and ("a", "x") not in doc.source_map


def test_recursive_alias_becomes_none() -> None:
    doc = parse("a: &a [1, *a]\n")
    assert doc.data == {"a": [1, None]}


def test_alias_bomb_stops_at_the_node_budget() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 12):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    doc = parse("\n".join(lines) + "\n", limits=Limits(max_yaml_nodes=5_000))
    assert doc.limits_hit == ["max_yaml_nodes"]
    assert doc.data is not None

    def count(node: object) -> int:
        if isinstance(node, dict):
            return 1 + sum(count(v) for v in node.values())
        if isinstance(node, list):
            return 1 + sum(count(v) for v in node)
        return 1

    assert count(doc.data) <= 5_000 + 1


def test_deep_nesting_is_cut_at_the_depth_limit() -> None:
    doc = parse("a: " + "[" * 500 + "]" * 500 + "\n", limits=Limits(max_yaml_depth=20))
    assert "max_yaml_depth" in doc.limits_hit
    assert ("a",) in doc.source_map
    deep = "[" * 5_000 + "]" * 5_000
    too_deep_for_libyaml = parse("a: " + deep + "\n")
    assert too_deep_for_libyaml.data is None and too_deep_for_libyaml.error is not None
    json_doc = parse('{"a": ' + deep + "}", PieceKind.CONFIG_JSON, Limits(max_yaml_depth=20))
    assert "max_yaml_depth" in json_doc.limits_hit and json_doc.data is not None
    nested = json_doc.data["a"]
    depth = 1
    while isinstance(nested, list) and nested:
        nested, depth = nested[0], depth + 1
    assert depth <= 20


def test_json_scalars_and_duplicates_follow_the_stdlib() -> None:
    text = '{"a": -0.5e2, "b": "\\u00e9\\ud83d\\ude00", "c": [true, false, null], "a": 7, "d": NaN}'
    data = parse(text, PieceKind.CONFIG_JSON).data
    expected = json.loads(text)
    assert data["a"] == expected["a"] == 7
    assert data["b"] == expected["b"]
    assert data["c"] == expected["c"]
    assert math.isnan(data["d"])


def test_json_source_map_lines_and_columns() -> None:
    doc = parse(ECHOED_PROCESS_JSON, PieceKind.CONFIG_JSON)
    entry = doc.source_map[("train", "batch_size")]
    assert entry.key is not None
    line = ECHOED_PROCESS_JSON.split("\n").index('        "batch_size": 2,')
    assert (entry.key.start_line, entry.key.start_col) == (line, 8)
    assert value_text(doc, "train", "batch_size") == "2"
    assert value_text(doc, "datasets", 0, "resolution") == "[512, 768, 1024]"


# --------------------------------------------------------------------------------------------------
# Never raises


@given(st.text(max_size=400))
def test_parse_config_never_raises_on_text(text: str) -> None:
    for kind in (PieceKind.CONFIG_YAML, PieceKind.CONFIG_JSON):
        doc = parse(text, kind)
        assert doc.error is None or doc.data is None


_YAMLISH = st.lists(
    st.sampled_from(
        [
            "train:",
            "  batch_size: 4",
            "  - 1",
            "[",
            "]",
            "{",
            "}",
            "&a",
            "*a",
            "!!python/object:x",
            "\t",
            "'",
            '"',
            "? ",
            ": ",
            "---",
            "...",
            "#",
            "|",
            ">",
            "<<: *a",
            "1e-4",
            ",",
            "\n",
            "  ",
            "é",
            "\x00",
            "\ufeff",
        ]
    ),
    max_size=60,
)


@given(_YAMLISH)
def test_parse_config_never_raises_on_yaml_like_noise(parts: list[str]) -> None:
    text = "".join(parts)
    for kind in (PieceKind.CONFIG_YAML, PieceKind.CONFIG_JSON):
        doc = parse(text, kind, Limits(max_yaml_nodes=200, max_yaml_depth=8))
        for path, entry in doc.source_map.items():
            assert 0 <= entry.value.start_index <= entry.value.end_index <= len(text), path


_CONTROL_YAML = (
    "job: extension\n"
    "config:\n"
    '  name: "日本語のLoRA"\n'
    "  process:\n"
    "    - type: sd_trainer\n"
    "      train:\n"
    "        gradient_checkpointing: false\n"
    "        lr: 1e-4 # 学習率\x07 here\n"
)
_CONTROL_JSON = (
    '{\n  "job": "extension",\n  "config": {\n    "name": "日本語\x1b[31m",\n    "process": []\n  }\n}\n'
)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["", "bom"])
@pytest.mark.parametrize(
    ("text", "line", "column"),
    # Columns count characters: the three kanji before the control character are three columns.
    [(_CONTROL_YAML, 8, 23), (_CONTROL_JSON, 4, 17)],
    ids=["yaml", "json"],
)
def test_a_control_character_is_reported_at_its_own_line_and_column(
    text: str, line: int, column: int, newline: str, bom: bytes
) -> None:
    from diagnosis import diagnose

    data = bom + text.replace("\n", newline).encode("utf-8")
    report = diagnose([data], sources=["job.yaml"], steps=0)
    invalid = [f for f in report.findings if f.params.get("line") is not None and "column" in f.params]
    assert len(invalid) == 1
    assert (invalid[0].params["line"], invalid[0].params["column"]) == (line, column)
    assert [e.line for e in invalid[0].evidence] == [line]
