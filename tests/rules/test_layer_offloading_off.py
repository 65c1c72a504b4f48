"""The rule `layer_offloading_off` (diagnosis/rules/layer_offloading_off.py): when loading or quantizing
the model cannot fit the card with Quantize and Low VRAM already on, the ladder's last lever is Layer
Offloading, where the model has it; never before those two, never for a training step that a cut
fixes, never after the host ran out."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.models import Severity
from diagnosis.render import render_cli
from tests.rules.helpers import (
    EXAMPLES,
    LANGS,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    facts,
    shipped,
    texts,
)


def ids(text: str, vram: float) -> list[str]:
    return [f.rule_id for f in diagnose([text], gpu_vram_gib=vram).findings]


QWEN = shipped("train_lora_qwen_image_24gb")


def test_a_model_that_cannot_load_on_the_card_gets_layer_offloading() -> None:
    # The shipped Qwen-Image example on 16 GB: its text encoder arrives at bf16 (about 15.5 GiB) to be
    # quantized; no bucket or preview step lowers that, and Quantize and Low VRAM are already on.
    found = assert_fix_clears("layer_offloading_off", QWEN, vram_gib=16)
    assert [(e.path, e.value) for e in found.edits] == [(("model", "layer_offloading"), True)]
    report = diagnose([QWEN], gpu_vram_gib=16)
    assert report.ladder[-1].rule_ids == ["layer_offloading_off"]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_no_shipped_example_gets_it_on_its_own_card(name: str) -> None:
    assert "layer_offloading_off" not in ids(shipped(name), EXAMPLES[name][0])


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (QWEN.replace("low_vram: true", "low_vram: false"), "Low VRAM comes first"),
        (QWEN.replace("quantize: true", "quantize: false", 1), "Quantize comes first"),
        (QWEN.replace("low_vram: true", "low_vram: true\n        layer_offloading: true"), "already on"),
        (shipped("train_lora_sd35_large_24gb"), "a model without Layer Offloading"),
    ],
)
def test_it_does_not_fire(text: str, why: str) -> None:
    assert "layer_offloading_off" not in ids(text, 16), why


@pytest.mark.parametrize("lang", LANGS)
def test_it_is_said_with_its_cost_in_both_languages(lang: str) -> None:
    text = render_cli(diagnose([QWEN], gpu_vram_gib=16, locale=lang), lang=lang, step=3)
    assert "Layer Offloading" in text
    assert ("system RAM" if lang == "en" else "メインメモリ") in text


LOAD_OOM = (
    "Loading transformer\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of"
    " 15.59 GiB of which 101.00 MiB is free. Of the allocated memory 14.90 GiB is allocated by PyTorch.\n"
)


def test_a_run_that_died_loading_the_model_gets_it_as_an_error() -> None:
    # On its own 24 GB the example fits; the log shows the run died loading the model on a 16 GB card.
    report = diagnose([QWEN, LOAD_OOM], sources=["config.yaml", "log.txt"], gpu_vram_gib=24)
    found = [(f.rule_id, f.severity) for f in report.findings if f.rule_id == "layer_offloading_off"]
    assert found == [("layer_offloading_off", Severity.ERROR)]


def test_it_is_said_in_both_languages_where_the_panel_does_not_show_it() -> None:
    # Wan 2.1's Model panel has no Layer Offloading: the key itself is the way in.
    f = facts(arch="wan21", name="Wan-AI/Wan2.1-T2V-14B-Diffusers", low_vram=True, vram_gib=12.0)
    found = check("layer_offloading_off", f)
    assert found is not None and found.params.get("advanced") is True
    assert_said_in_both_languages("layer_offloading_off", f)
    assert "Show Advanced" in texts("layer_offloading_off", f, "en")["ui_path"]
