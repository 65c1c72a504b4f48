"""The rule `text_encoder_not_unloaded_or_cached` (diagnosis/rules/text_encoder_not_unloaded_or_cached.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Evidence
from tests.rules.helpers import (
    FLUX,
    LANGS,
    QEDIT,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    config,
    facts,
    shipped,
    texts,
)


def test_text_encoder_cache_needs_caption_dropout_zero() -> None:
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image")
    f.datasets[0].caption_dropout = 0.05
    found = check("text_encoder_not_unloaded_or_cached", f)
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "cache_text_embeddings"): True, ("datasets", 0, "caption_dropout_rate"): 0.0}
    assert found.params["te_name"].startswith("Qwen2.5-VL")
    assert found.applicability == Applicability.CHANGES_RESULTS  # captions are never dropped now


def test_text_encoder_cache_without_dropout_is_memory_only() -> None:
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image")
    f.datasets[0].caption_dropout = 0.0
    found = check("text_encoder_not_unloaded_or_cached", f)
    assert [e.path for e in found.edits] == [("train", "cache_text_embeddings")]
    assert found.applicability == Applicability.MEMORY_ONLY


def test_text_encoder_already_cached() -> None:
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image", cache_text_embeddings=True)
    assert check("text_encoder_not_unloaded_or_cached", f) is None


@pytest.mark.parametrize(("share", "fires"), [(1.0, False), (0.9, False), (0.3, True)])
def test_text_encoder_offloaded_by_layer_offloading(share: float, fires: bool) -> None:
    # Its layers in host RAM, streamed in: caching the embeddings would free little VRAM.
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image", layer_offloading=True, te_offload_share=share)
    assert (check("text_encoder_not_unloaded_or_cached", f) is not None) is fires


def test_text_encoder_user_says_it_stays() -> None:
    quote = "the text encoder is not being unloaded"
    f = Facts(said={"text_encoder_not_unloaded_or_cached.te_not_released": quote})
    found = check("text_encoder_not_unloaded_or_cached", f)
    assert found.edits == []
    assert Evidence("user", None, quote) in found.evidence


@pytest.mark.parametrize("lang", LANGS)
def test_a_quantized_text_encoder_is_not_told_to_quantize(lang: str) -> None:
    f = config(*QEDIT, quantize=True, quantize_te=True, low_vram=True)
    shown = texts("text_encoder_not_unloaded_or_cached", f, lang)
    assert "quantize_te" not in shown["fix"] and "Quantize Text Encoder" not in shown["next"], shown
    assert "cache_text_embeddings: true" in shown["fix"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_unload_te_is_named_only_where_the_model_has_it(lang: str) -> None:
    # Qwen-Image-Edit-2509 has no Unload TE: "not available" must not be followed by "(or Unload TE)".
    shown = texts("text_encoder_not_unloaded_or_cached", config(*QEDIT, quantize=True, low_vram=True), lang)
    assert "Unload TE" not in shown["ui_path"], shown
    flux = config(*FLUX, quantize=True, vram_gib=12.0)
    assert "Unload TE" in texts("text_encoder_not_unloaded_or_cached", flux, lang)["ui_path"]


def test_text_encoder_is_said_in_both_languages() -> None:
    f = facts(arch="qwen_image", name="Qwen/Qwen-Image")
    assert_said_in_both_languages("text_encoder_not_unloaded_or_cached", f)


def test_text_encoder_fix_caches_the_embeddings() -> None:
    off = ("cache_text_embeddings: true", "cache_text_embeddings: false")
    text = shipped("train_lora_qwen_image_24gb", off)
    found = assert_fix_clears("text_encoder_not_unloaded_or_cached", text)
    assert found.params["drops_dropout"] is True  # the example's caption dropout 0.05 goes with it


@pytest.mark.parametrize("lang", LANGS)
def test_other_steps_name_a_hidden_low_vram_the_way_its_own_step_does(lang: str) -> None:
    # The Model panel shows no Low VRAM for FLUX.1: the "still off" list names the key behind it.
    te = texts("text_encoder_not_unloaded_or_cached", config(*FLUX, quantize=True, vram_gib=12.0), lang)
    assert "Show Advanced → low_vram" in te["next"], te
