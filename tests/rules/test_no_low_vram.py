"""The rule `no_low_vram` (diagnosis/rules/no_low_vram.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from tests.rules.helpers import (
    FLUX,
    LANGS,
    QWEN,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    config,
    facts,
    shipped,
    texts,
)


def test_no_low_vram_for_wan_14b_on_24gb() -> None:
    f = facts(arch="wan22_14b", name="ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16", low_vram=False)
    assert [(e.path, e.value) for e in check("no_low_vram", f).edits] == [(("model", "low_vram"), True)]


def test_no_low_vram_not_for_flux_on_24gb_without_a_load_oom() -> None:
    assert check("no_low_vram", facts(low_vram=False)) is None


@pytest.mark.parametrize("lang", LANGS)
def test_layer_offloading_is_offered_only_to_families_that_have_it(lang: str) -> None:
    # A fragment: the options still off are not known, so the plain "next" line is shown.
    flux = config(*FLUX, vram_gib=16.0, config_shape="fragment")
    assert "Layer Offloading" not in texts("no_low_vram", flux, lang)["next"]
    qwen = config(*QWEN, quantize=True, config_shape="fragment")
    assert "Layer Offloading" in texts("no_low_vram", qwen, lang)["next"]


@pytest.mark.parametrize("lang", LANGS)
def test_layer_offloading_is_reached_through_show_advanced_where_the_ui_hides_it(lang: str) -> None:
    # Wan 2.1's code supports layer_offloading, but its Model panel does not show it (§4.3).
    wan21 = config("wan21", "Wan-AI/Wan2.1-T2V-14B-Diffusers", quantize=True, config_shape="fragment")
    shown = texts("no_low_vram", wan21, lang)["next"]
    assert "layer_offloading: true" in shown and "Show Advanced" in shown, shown
    wan21.config_shape = "full_job"
    assert "Show Advanced → layer_offloading" in texts("no_low_vram", wan21, lang)["next"]


def test_no_low_vram_is_said_in_both_languages() -> None:
    f = facts(arch="wan22_14b", name="ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16", low_vram=False)
    assert_said_in_both_languages("no_low_vram", f)


def test_no_low_vram_fix_turns_it_on() -> None:
    text = shipped("train_lora_wan22_14b_24gb", ("low_vram: true", "low_vram: false"))
    assert_fix_clears("no_low_vram", text)


@pytest.mark.parametrize("lang", LANGS)
def test_low_vram_is_reached_through_show_advanced_where_the_ui_hides_it(lang: str) -> None:
    # The Model panel shows no Low VRAM for FLUX.1 / Kontext / Flex / Chroma (config-reference §4.3).
    shown = texts("no_low_vram", config(*FLUX, quantize=True, vram_gib=16.0), lang)
    assert "Show Advanced" in shown["ui_path"] and "low_vram: true" in shown["ui_path"], shown
    assert "Show Advanced" not in texts("no_low_vram", config(*QWEN, quantize=True), lang)["ui_path"]
