"""plan_edits / apply_text_edits: minimal, style-keeping, idempotent fixes for YAML and JSON configs."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.config.edit import apply_text_edits, plan_edits, plan_edits_detailed
from diagnosis.config.parse import get_path
from diagnosis.models import ConfigEdit, KeyPath, PieceKind, TextEdit
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


def fix(text: str, edits: list[ConfigEdit], kind: PieceKind = PieceKind.CONFIG_YAML) -> str:
    """Plan and apply `edits`; check that the result parses, holds the values and is a fixed point."""
    doc = parse(text, kind)
    planned = plan_edits(doc, edits)
    out = apply_text_edits(text, planned)
    again = parse(out, kind)
    assert again.ok, (again.error, out)
    assert again.process_path == doc.process_path
    for edit in edits:
        assert get_path(again.data, (*again.process_path, *edit.path)) == edit.value
    assert plan_edits(again, edits) == []
    return out


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The removed and added lines of a line diff (everything else is byte-identical)."""
    removed: list[str] = []
    added: list[str] = []
    for line in difflib.ndiff(before.splitlines(keepends=True), after.splitlines(keepends=True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


E = ConfigEdit


# --------------------------------------------------------------------------------------------------
# Replacing scalars


def test_set_an_existing_boolean_keeps_the_comment() -> None:
    text = FLUX_24GB.replace("gradient_checkpointing: true", "gradient_checkpointing: false")
    out = fix(text, [E(("train", "gradient_checkpointing"), True)])
    assert changed_lines(text, out) == (
        ["        gradient_checkpointing: false  # need the on unless you have a ton of vram\n"],
        ["        gradient_checkpointing: true  # need the on unless you have a ton of vram\n"],
    )


@pytest.mark.parametrize(
    ("path", "value", "old", "new"),
    [
        (
            ("train", "noise_scheduler"),
            "ddpm",
            '"flowmatch" # for training only',
            '"ddpm" # for training only',
        ),
        (("type",), "diffusion_trainer", "type: 'sd_trainer'", "type: 'diffusion_trainer'"),
        (("save", "dtype"), "bf16", "dtype: float16 # precision", "dtype: bf16 # precision"),
        (("sample", "sample_steps"), 10, "sample_steps: 20", "sample_steps: 10"),
        (("train", "lr"), 5e-5, "lr: 1e-4", "lr: 5e-05"),
        (("save", "dtype"), "a: b", "dtype: float16 #", 'dtype: "a: b" #'),
        (("save", "dtype"), "no", "dtype: float16 #", 'dtype: "no" #'),
        (("type",), "it's", "type: 'sd_trainer'", "type: 'it''s'"),
    ],
)
def test_scalars_keep_the_users_quoting(path: KeyPath, value: Any, old: str, new: str) -> None:
    out = fix(FLUX_24GB, [E(path, value)])
    removed, added = changed_lines(FLUX_24GB, out)
    assert len(removed) == len(added) == 1
    assert old in removed[0] and new in added[0]


def test_an_empty_value_gets_a_space() -> None:
    out = fix(
        "train:\n  gradient_checkpointing:  # was on\n  batch_size: 1\n",
        [E(("train", "gradient_checkpointing"), True)],
    )
    assert out == "train:\n  gradient_checkpointing: true  # was on\n  batch_size: 1\n"


# --------------------------------------------------------------------------------------------------
# Inserting keys and sections


def test_insert_a_key_next_to_its_related_sibling() -> None:
    text = FLUX_24GB.replace("        gradient_accumulation_steps: 1\n", "")
    out = fix(text, [E(("train", "batch_size"), 2), E(("train", "gradient_accumulation"), 2)])
    lines = out.split("\n")
    at = lines.index("        batch_size: 2")
    assert lines[at + 1] == "        gradient_accumulation: 2"
    removed, added = changed_lines(text, out)
    assert removed == ["        batch_size: 1\n"]
    assert added == ["        batch_size: 2\n", "        gradient_accumulation: 2\n"]


def test_insert_low_vram_under_model_before_the_commented_line() -> None:
    out = fix(FLUX_24GB, [E(("model", "low_vram"), True)])
    assert (
        "        quantize: true  # run 8bit mixed precision\n        low_vram: true\n#        low_vram" in out
    )
    assert changed_lines(FLUX_24GB, out) == ([], ["        low_vram: true\n"])


def test_insert_a_missing_section_at_the_process_indentation() -> None:
    out = fix(FLUX_24GB, [E(("logging", "log_every"), 1), E(("logging", "use_wandb"), False)])
    assert changed_lines(FLUX_24GB, out) == (
        [],
        ["      logging:\n", "        log_every: 1\n", "        use_wandb: false\n"],
    )
    assert out.index("      logging:") > out.index("sample_steps: 20")
    assert out.index("      logging:") < out.index("# you can add any additional meta info here")


def test_insert_after_a_nested_block_goes_below_its_last_line() -> None:
    text = FLUX_24GB.replace("        dtype: bf16\n", "")
    out = fix(text, [E(("train", "disable_sampling"), True)])  # no related sibling: after the last key
    assert "          ema_decay: 0.99\n        disable_sampling: true\n" in out
    assert fix(text, [E(("train", "dtype"), "bf16")]).count("        lr: 1e-4\n        dtype: bf16\n") == 1


def test_fragment_gets_a_new_top_level_section() -> None:
    out = fix(TRAIN_FRAGMENT, [E(("model", "quantize"), True), E(("train", "gradient_checkpointing"), True)])
    assert out.endswith("  lr: 1e-4\nmodel:\n  quantize: true\n")
    assert "  gradient_checkpointing: true\n" in out


def test_insert_at_the_end_of_a_text_without_final_newline() -> None:
    out = fix("train:\n  batch_size: 4", [E(("train", "gradient_checkpointing"), True)])
    assert out == "train:\n  batch_size: 4\n  gradient_checkpointing: true\n"


def test_four_space_indentation_is_followed() -> None:
    text = "train:\n    batch_size: 4\nmodel:\n    name_or_path: x\n"
    out = fix(text, [E(("sample", "width"), 1024), E(("model", "low_vram"), True)])
    expected = "train:\n    batch_size: 4\nmodel:\n    name_or_path: x\n    low_vram: true\n"
    assert out == expected + "sample:\n    width: 1024\n"


def test_flow_mapping_insert_and_replace() -> None:
    out = fix(
        "train: {batch_size: 4, lr: 1e-4}\n",
        [E(("train", "batch_size"), 1), E(("train", "gradient_checkpointing"), True)],
    )
    assert out == "train: {batch_size: 1, lr: 1e-4, gradient_checkpointing: true}\n"


def test_a_merged_key_is_overridden_explicitly() -> None:
    text = "defaults: &d\n  batch_size: 4\ntrain:\n  <<: *d\n  steps: 10\n"
    out = fix(text, [E(("train", "batch_size"), 1)])
    assert out == "defaults: &d\n  batch_size: 4\ntrain:\n  <<: *d\n  steps: 10\n  batch_size: 1\n"


# --------------------------------------------------------------------------------------------------
# Lists


def test_flow_list_keeps_its_spacing() -> None:
    out = fix(FLUX_24GB, [E(("datasets", 0, "resolution"), [512, 768])])
    assert changed_lines(FLUX_24GB, out)[1] == [
        "          resolution: [ 512, 768 ]  # flux enjoys multiple resolutions\n"
    ]
    tight = fix("datasets:\n  - resolution: [512,768,1024]\n", [E(("datasets", 0, "resolution"), [512])])
    assert tight == "datasets:\n  - resolution: [512]\n"


def test_block_list_items_are_replaced_removed_and_appended() -> None:
    text = 'sample:\n  prompts:\n    - "a cat"\n    - "a dog"  # good one\n    - "a bird"\n  width: 1024\n'
    shorter = fix(text, [E(("sample", "prompts"), ["a cat", "a fox"])])
    assert shorter == 'sample:\n  prompts:\n    - "a cat"\n    - "a fox"  # good one\n  width: 1024\n'
    longer = fix(text, [E(("sample", "prompts"), ["a cat", "a dog", "a bird", "a cow"])])
    assert longer == text.replace('    - "a bird"\n', '    - "a bird"\n    - "a cow"\n')


def test_scalar_resolution_becomes_a_list() -> None:
    out = fix("datasets:\n  - resolution: 1024\n", [E(("datasets", 0, "resolution"), [512, 768])])
    assert out == "datasets:\n  - resolution: [512, 768]\n"


# --------------------------------------------------------------------------------------------------
# JSON


def test_ui_json_edits_stay_json_and_keep_the_layout() -> None:
    edits = [
        E(("train", "gradient_checkpointing"), True),
        E(("train", "batch_size"), 1),
        E(("train", "gradient_accumulation"), 4),
        E(("datasets", 0, "resolution"), [512, 768]),
        E(("train", "cache_text_embeddings"), True),
        E(("logging", "log_every"), 1),
    ]
    out = fix(UI_JOB_JSON, edits, PieceKind.CONFIG_JSON)
    expected = json.loads(UI_JOB_JSON)
    process = expected["config"]["process"][0]
    process["train"].update(
        gradient_checkpointing=True, batch_size=1, gradient_accumulation=4, cache_text_embeddings=True
    )
    process["datasets"][0]["resolution"] = [512, 768]
    process["logging"] = {"log_every": 1}
    assert json.loads(out) == expected
    assert '          "train_text_encoder": false,\n          "cache_text_embeddings": true,\n' in out
    assert '            "resolution": [\n              512,\n              768\n            ]\n' in out
    assert '        },\n        "logging": {\n          "log_every": 1\n        }\n      }\n' in out
    removed, _ = changed_lines(UI_JOB_JSON, out)
    assert len(removed) == 5  # gc, batch, accumulation, and the list's "768," and "1024" lines


def test_one_line_json_object() -> None:
    text = '{"train": {"batch_size": 4}, "model": {}}'
    out = fix(
        text,
        [E(("train", "gradient_checkpointing"), True), E(("model", "low_vram"), True)],
        PieceKind.CONFIG_JSON,
    )
    assert out == '{"train": {"batch_size": 4, "gradient_checkpointing": true}, "model": {"low_vram": true}}'


def test_echoed_process_json_paths_are_relative_to_the_process() -> None:
    out = fix(
        ECHOED_PROCESS_JSON,
        [E(("train", "batch_size"), 1), E(("model", "low_vram"), True)],
        PieceKind.CONFIG_JSON,
    )
    assert '        "quantize": true,\n        "low_vram": true\n    }\n' in out


# --------------------------------------------------------------------------------------------------
# What is not edited


def test_a_value_already_set_needs_no_edit() -> None:
    doc = parse(QWEN_IMAGE_24GB)
    assert (
        plan_edits(doc, [E(("model", "low_vram"), True), E(("datasets", 0, "resolution"), [512, 768, 1024])])
        == []
    )
    assert plan_edits(doc, [E(("train", "lr"), 0.0001)]) == []
    assert plan_edits(doc, [E(("train", "batch_size"), True)]) != []  # True is not 1


def test_unsafe_edits_are_skipped_with_a_reason() -> None:
    text = "base: &b\n  batch_size: 4\ntrain: *b\nmodel: 5\ndatasets:\n  - folder_path: x\n"
    doc = parse(text)
    plan = plan_edits_detailed(
        doc,
        [
            E(("train", "batch_size"), 1),
            E(("base", "batch_size"), 1),
            E(("model", "low_vram"), True),
            E(("datasets", 3, "resolution"), [512]),
            E(("sample",), {"width": 1}),
            E(("datasets",), 1),
        ],
    )
    assert plan.edits == []
    assert [s.reason for s in plan.skipped] == [
        "alias",
        "alias",
        "not_a_mapping",
        "list_item",
        "value_type",
        "section",
    ]


def test_a_broken_config_is_not_edited() -> None:
    lines = (
        (CORPUS / "synthetic/111-qwen-edit-2511-tab-indent-yaml-invalid/input.txt").read_text().split("\n")
    )
    doc = parse("\n".join(lines[3:77]) + "\n")
    plan = plan_edits_detailed(doc, [E(("model", "low_vram"), True)])
    assert plan.edits == [] and plan.skipped[0].reason == "not_parsed"


def test_apply_rejects_overlaps_and_keeps_insert_order() -> None:
    with pytest.raises(ValueError):
        apply_text_edits("abcdef", [TextEdit(1, 4, "x"), TextEdit(3, 5, "y")])
    with pytest.raises(ValueError):
        apply_text_edits("abc", [TextEdit(2, 9, "x")])
    assert apply_text_edits("abc", [TextEdit(1, 1, "1"), TextEdit(1, 1, "2"), TextEdit(1, 2, "")]) == "a12c"


# --------------------------------------------------------------------------------------------------
# The corpus: each scenario's expected step-1 edits, planned on the pasted config


def _corpus_path(text: str, full_job: bool) -> KeyPath:
    parts: list[str | int] = []
    for name, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", text):
        parts.append(int(index) if index else name)
    prefix = ["config", "process", 0] if full_job else []
    assert parts[: len(prefix)] == prefix
    return tuple(parts[len(prefix) :])


def _scenarios() -> list[Path]:
    out = []
    for case in sorted((CORPUS / "synthetic").iterdir()):
        expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
        if expected.get("expected_edits"):
            out.append(case)
    return out


@pytest.mark.parametrize("case", _scenarios(), ids=lambda p: p.name[:3])
def test_corpus_expected_edits_change_only_their_lines(case: Path) -> None:
    meta = yaml.safe_load((case / "meta.yaml").read_text(encoding="utf-8"))
    expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    first, last = (int(n) for n in str(meta["config_lines"]).split("-"))
    lines = (case / "input.txt").read_text(encoding="utf-8").split("\n")
    text = "\n".join(lines[first - 1 : last]) + "\n"
    kind = PieceKind.CONFIG_JSON if text.lstrip().startswith("{") else PieceKind.CONFIG_YAML
    full_job = str(meta["config_shape"]).startswith("full_job")
    edits = [E(_corpus_path(e["path"], full_job), e["value"]) for e in expected["expected_edits"]]
    out = fix(text, edits, kind)
    removed, added = changed_lines(text, out)
    touched = {e.path[-1] for e in edits}
    for line in removed + added:
        assert (
            any(str(key) in line for key in touched)
            or line.strip().startswith(("-", "]", "["))
            or line.strip()[:1].isdigit()
        ), line
    assert len(removed) <= len(edits) + 2


# --------------------------------------------------------------------------------------------------
# Property: random edits on real configs


# Less common YAML: 4-space indent, a block scalar, anchors and a merge, a flow mapping, no final newline.
ODD_YAML = """\
job: extension
config:
    name: odd  # comment
    process:
        -   type: sd_trainer
            train: &train_defaults {batch_size: 2, lr: 1e-4}
            model:
                <<: {quantize: true}
                name_or_path: x
            sample:
                neg: |
                    blurry
                    ugly

                width: 512
            datasets:
              - folder_path: a
                resolution:
                - 512
                - 768
              - *train_defaults
meta: {name: "[name]"}"""

_SAMPLES = [
    (ODD_YAML, PieceKind.CONFIG_YAML),
    (FLUX_24GB, PieceKind.CONFIG_YAML),
    (QWEN_IMAGE_24GB, PieceKind.CONFIG_YAML),
    (WAN22_14B_24GB, PieceKind.CONFIG_YAML),
    (TRAIN_FRAGMENT, PieceKind.CONFIG_YAML),
    (UI_JOB_JSON, PieceKind.CONFIG_JSON),
    (ECHOED_PROCESS_JSON, PieceKind.CONFIG_JSON),
]
_KEYS = st.sampled_from(
    [
        "train",
        "model",
        "sample",
        "datasets",
        "network",
        "batch_size",
        "low_vram",
        "gradient_checkpointing",
        "lr",
        "resolution",
        "new_key",
        "width",
        "qtype",
    ]
)
_SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(alphabet=st.sampled_from(list("ab :#'\"-|[]{}&*!%@`,?\\é\t")), max_size=12),
)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, min_size=1, max_size=4))


def _paths_of(data: Any, prefix: KeyPath = ()) -> list[KeyPath]:
    out: list[KeyPath] = []
    if isinstance(data, dict):
        for key, value in data.items():
            out.append((*prefix, key))
            out.extend(_paths_of(value, (*prefix, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            out.extend(_paths_of(value, (*prefix, index)))
    return out


def _independent(path: KeyPath, others: list[ConfigEdit]) -> bool:
    return all(path[: len(o.path)] != o.path and o.path[: len(path)] != path for o in others)


@given(st.data())
def test_random_edits_on_real_configs_reparse_and_are_idempotent(data: st.DataObject) -> None:
    text, kind = data.draw(st.sampled_from(_SAMPLES))
    doc = parse(text, kind)
    process = get_path(doc.data, doc.process_path)
    existing = [p for p in _paths_of(process) if isinstance(p[-1], str)]
    edits: list[ConfigEdit] = []
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        if data.draw(st.booleans()):
            path = data.draw(st.sampled_from(existing))
        else:
            path = tuple(data.draw(st.lists(_KEYS, min_size=1, max_size=3)))
        if _independent(path, edits):
            edits.append(E(path, data.draw(_VALUES)))
    plan = plan_edits_detailed(doc, edits)
    out = apply_text_edits(text, plan.edits)
    again = parse(out, kind)
    assert again.ok, (again.error, out)
    skipped = [s.edit for s in plan.skipped]
    applied = [e for e in edits if e not in skipped]
    for edit in applied:
        assert get_path(again.data, (*again.process_path, *edit.path)) == edit.value, out
    assert plan_edits(again, applied) == []
    if kind == PieceKind.CONFIG_JSON:
        json.loads(out)


def test_a_block_scalar_replaced_keeps_the_next_line_apart() -> None:
    text = "sample:\n  neg: |\n    blurry\n    ugly\n  width: 1024\n"
    assert fix(text, [E(("sample", "neg"), "")]) == 'sample:\n  neg: ""\n  width: 1024\n'


def test_a_mapping_made_only_of_a_merge_is_not_guessed_at() -> None:
    text = "defaults: &d\n  batch_size: 4\ntrain:\n  <<: *d\nmodel:\n  quantize: true\n"
    plan = plan_edits_detailed(parse(text), [E(("train", "gradient_checkpointing"), True)])
    assert plan.edits == [] and [s.reason for s in plan.skipped] == ["alias"]
