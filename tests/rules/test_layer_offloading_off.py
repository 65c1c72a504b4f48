"""The rule `layer_offloading_off` (diagnosis/rules/layer_offloading_off.py): when loading or quantizing
the model cannot fit the card with Quantize and Low VRAM already on, the ladder's last lever is Layer
Offloading, where the model has it; never before those two, never for a training step that a cut
fixes, never after the host ran out."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.render import render_cli
from tests.rules.helpers import EXAMPLES, LANGS, assert_fix_clears, shipped


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
