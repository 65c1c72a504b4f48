"""The rule `no_quantize_big_model` (diagnosis/rules/no_quantize_big_model.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.models import Phase
from tests.rules.helpers import (
    ALL_BUT_QUANTIZE,
    LANGS,
    QWEN,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    config,
    facts,
    oom,
    shipped,
    texts,
)


def test_no_quantize_big_model_on_24gb() -> None:
    found = check("no_quantize_big_model", facts(quantize=False, quantize_te=False))
    assert [(e.path, e.value) for e in found.edits] == [(("model", "quantize"), True)]


def test_quantize_sets_the_low_bit_type_a_family_needs_on_this_card() -> None:
    # `quantize: true` alone loads qfloat8: AI Toolkit's Qwen-Image 24 GB example says "3bit is
    # required for 24GB", so the step that promises uint3 must also set it, with the model's adapter.
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image", quantize=False)
    found = check("no_quantize_big_model", f)
    assert [(e.path, e.value) for e in found.edits] == [
        (("model", "quantize"), True),
        (("model", "qtype"), QWEN_ARA),
    ]
    # Named as the UI names the option that sets it (the same words in both languages).
    assert found.params["low_bit"] == "set" and found.params["qtype"] == "3 bit with ARA"
    # 8 bits fits on 48 GB: the step names what `quantize: true` gives.
    roomy = check(
        "no_quantize_big_model",
        facts(arch="qwen_image", name="Qwen/Qwen-Image", quantize=False, vram_gib=48.0),
    )
    assert [e.path for e in roomy.edits] == [("model", "quantize")] and roomy.params["qtype"] == "qfloat8"


def test_quantize_keeps_a_low_bit_type_the_config_already_names() -> None:
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image", quantize=False, qtype="uint3|my/adapter.safetensors")
    found = check("no_quantize_big_model", f)
    assert [e.path for e in found.edits] == [("model", "quantize")] and found.params["qtype"] == "uint3"


def test_quantize_asks_to_pick_when_the_models_adapter_is_not_known() -> None:
    # Each model version has its own adapter; a wrong one degrades the run without an error.
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image-2512", quantize=False)
    found = check("no_quantize_big_model", f)
    assert [e.path for e in found.edits] == [("model", "quantize")] and found.params["low_bit"] == "pick"


def test_no_quantize_small_model_is_fine() -> None:
    assert check("no_quantize_big_model", facts(arch="sdxl", name="sdxl", quantize=False)) is None


@pytest.mark.parametrize("lang", LANGS)
def test_quantize_step_next_line_skips_what_is_on(lang: str) -> None:
    f = oom(
        config(*QWEN, **ALL_BUT_QUANTIZE),
        Phase.MODEL_LOAD,
    )
    shown = texts("no_quantize_big_model", f, lang)
    assert "Low VRAM" not in shown["next"] and "Cache" not in shown["next"], shown


QWEN_ARA = "uint3|ostris/accuracy_recovery_adapters/qwen_image_torchao_uint3.safetensors"


def test_no_quantize_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("no_quantize_big_model", facts(quantize=False, quantize_te=False))


def test_no_quantize_fix_quantizes() -> None:
    text = shipped("train_lora_flux_24gb", ("quantize: true", "quantize: false"))
    assert_fix_clears("no_quantize_big_model", text)
