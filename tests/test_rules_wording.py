"""The texts a rule's params select in the catalogues (`when_<param>_<value>`, `variant.<param>.<value>`):
what the user reads must match what the step changes, in both languages."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.families import family_for
from diagnosis.models import Evidence, LogLine, OomEvent, OomKind, OtherProcess, Phase
from diagnosis.render.templating import TARGETS, Wording
from diagnosis.render.view import usable_params
from diagnosis.rules import spec_of
from tests.test_rules import GIB, gpu_event

LANGS = ("en", "ja")


def found(rule_id: str, f: Facts) -> Any:
    spec = spec_of(rule_id)
    assert spec is not None
    result = spec.check(f)
    assert result is not None
    return result


def texts(rule_id: str, f: Facts, lang: str) -> dict[str, str]:
    """The action, the fix bullets, the place in the UI and the extra sentences the reply shows."""
    finding = found(rule_id, f)
    params = usable_params(rule_id, dict(finding.params))
    w = Wording(lang, TARGETS["text"])
    return {
        "action": str(w.action(rule_id, params)),
        "fix": "\n".join(w.rt_list(rule_id, "fix", params)),
        "ui_path": str(w.rt(rule_id, "ui_path", params) or ""),
        "variants": "\n".join(w.variants(rule_id, params)),
        "next": str(w.rt(rule_id, "next", params) or ""),
    }


def config(arch: str, name: str, **kw: Any) -> Facts:
    f = Facts(has_config=True, config_parsed=True, config_shape="full_job", vram_gib=24.0, vram_source="user")
    fam = family_for(arch, name)
    f.family_info, f.family, f.family_label, f.params_b = fam, fam.key, fam.label, fam.params_b
    f.is_video, f.arch, f.name_or_path = fam.is_video, arch, name
    for key, value in kw.items():
        setattr(f, key, value)
    return f


WAN = ("wan22_14b", "ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16")


@pytest.mark.parametrize("lang", LANGS)
def test_a_video_preview_step_names_the_frames_it_changes(lang: str) -> None:
    # 832×480 at 25 steps is the shipped Wan example's preview; only the 81 frames are too many.
    f = config(*WAN, sample_width=832, sample_height=480, sample_steps=25, sample_frames=81, sample_every=250)
    finding = found("preview_heavy", f)
    assert [e.path for e in finding.edits] == [("sample", "num_frames")]
    shown = texts("preview_heavy", f, lang)
    assert "81" in shown["action"] and str(finding.params["new_frames"]) in shown["action"], shown
    assert "num_frames" in shown["fix"] and "Num Frames" in shown["ui_path"], shown
    assert "Width / Height" not in shown["fix"], shown
    # Too large as well: the step lowers the frames and the size, and says both.
    f.sample_width = f.sample_height = 1536
    finding = found("preview_heavy", f)
    assert {e.path for e in finding.edits} > {("sample", "num_frames")}
    shown = texts("preview_heavy", f, lang)
    assert "num_frames" in shown["fix"] and "Width / Height" in shown["fix"], shown


QWEN = ("qwen_image", "Qwen/Qwen-Image")
QEDIT = ("qwen_image_edit_plus", "Qwen/Qwen-Image-Edit-2509")
ALL_ON = {"quantize": True, "quantize_te": True, "low_vram": True, "cache_text_embeddings": True}
ALL_BUT_QUANTIZE = {**ALL_ON, "quantize": False}


def oom(f: Facts, phase: Phase, **event: Any) -> Facts:
    f.has_log = f.has_oom = f.gpu_oom = True
    f.fatal = gpu_event(**event)
    f.phase = phase
    return f


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_line_does_not_ask_for_options_already_on(lang: str) -> None:
    # Case 103: quantized (uint4 ARA), Low VRAM and cached embeddings, and an OOM at the first preview.
    f = oom(
        config(*QWEN, **ALL_ON, sample_width=1536, sample_height=1536, sample_steps=40),
        Phase.FIRST_SAMPLE,
    )
    shown = texts("preview_heavy", f, lang)
    assert "Low VRAM" not in shown["next"] and "Cache Text Embeddings" not in shown["next"], shown
    assert "skip_first_sample" in shown["next"], shown
    # Only what is still off is named.
    f.low_vram = False
    assert "Low VRAM" in texts("preview_heavy", f, lang)["next"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_quantized_text_encoder_is_not_told_to_quantize(lang: str) -> None:
    f = config(*QEDIT, quantize=True, quantize_te=True, low_vram=True)
    shown = texts("text_encoder_not_unloaded_or_cached", f, lang)
    assert "quantize_te" not in shown["fix"] and "Quantize Text Encoder" not in shown["next"], shown
    assert "cache_text_embeddings: true" in shown["fix"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_quantize_step_next_line_skips_what_is_on(lang: str) -> None:
    f = oom(
        config(*QWEN, **ALL_BUT_QUANTIZE),
        Phase.MODEL_LOAD,
    )
    shown = texts("no_quantize_big_model", f, lang)
    assert "Low VRAM" not in shown["next"] and "Cache" not in shown["next"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_host_ram_fixes_suit_the_phase_and_the_config(lang: str) -> None:
    f = config(*QWEN, **ALL_ON)
    f.datasets = [DatasetFacts(index=0, latents_cached=True, latents_on_disk=True)]
    f.has_log = f.has_oom = True
    f.host_oom = OomEvent(OomKind.HOST_KILLED, LogLine(1, "Killed"))
    # Latents already go to disk: that is not a lever left.
    f.phase = Phase.TRAINING_STEP
    assert "cache_latents_to_disk" not in texts("system_ram_oom", f, lang)["fix"]
    # While the model loads, no dataset has been read: neither latents nor workers matter yet.
    f.phase = Phase.QUANTIZE
    shown = texts("system_ram_oom", f, lang)
    assert "cache_latents_to_disk" not in shown["fix"] and "num_workers" not in shown["fix"], shown
    # Latents cached in RAM only, after loading: moving them to disk is the lever, with the workers.
    f.datasets = [DatasetFacts(index=0, latents_cached=True)]
    f.phase = Phase.TRAINING_STEP
    shown = texts("system_ram_oom", f, lang)
    assert "cache_latents_to_disk" in shown["fix"] and "num_workers" in shown["fix"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_other_programs_next_line_follows_the_phase(lang: str) -> None:
    others = {"other_processes": [OtherProcess(pid=7, bytes=20 * GIB)], "process_bytes": GIB // 2}
    load = oom(
        config(*QWEN, **ALL_BUT_QUANTIZE),
        Phase.MODEL_LOAD,
        **others,
    )
    shown = texts("other_process_on_gpu", load, lang)
    assert "Batch Size" not in shown["next"] and "Quantize" in shown["next"], shown
    caching = oom(config(*QWEN, **ALL_ON), Phase.LATENT_CACHING, **others)
    shown = texts("other_process_on_gpu", caching, lang)
    assert "Batch Size" not in shown["next"] and "Datasets → Resolutions" in shown["next"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_after_a_training_step_the_bucket_next_line_leaves_the_preview_out(lang: str) -> None:
    # Case 105: the baseline preview finished, then a step failed at the 1536 bucket.
    f = oom(config(*QWEN, **ALL_ON, buckets=[512, 1024, 1536], max_bucket=1536), Phase.TRAINING_STEP)
    f.datasets = [DatasetFacts(index=0, resolutions=[512, 1024, 1536])]
    shown = texts("bucket_too_large", f, lang)
    assert "Sample" not in shown["next"] and "Low VRAM" not in shown["next"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_a_periodic_preview_oom_is_not_told_to_skip_the_first_preview(lang: str) -> None:
    # The first preview went through; skipping it changes nothing for the one that failed.
    f = oom(config(*QWEN, **ALL_ON, sample_width=1536, sample_height=1536, sample_steps=40), Phase.SAMPLING)
    shown = texts("preview_heavy", f, lang)
    assert "skip_first_sample" not in shown["next"] and "Disable Sampling" in shown["next"], shown


FLUX = ("flux", "black-forest-labs/FLUX.1-dev")


@pytest.mark.parametrize("lang", LANGS)
def test_unload_te_is_named_only_where_the_model_has_it(lang: str) -> None:
    # Qwen-Image-Edit-2509 has no Unload TE: "not available" must not be followed by "(or Unload TE)".
    shown = texts("text_encoder_not_unloaded_or_cached", config(*QEDIT, quantize=True, low_vram=True), lang)
    assert "Unload TE" not in shown["ui_path"], shown
    flux = config(*FLUX, quantize=True, vram_gib=12.0)
    assert "Unload TE" in texts("text_encoder_not_unloaded_or_cached", flux, lang)["ui_path"]


@pytest.mark.parametrize("lang", LANGS)
def test_low_vram_is_reached_through_show_advanced_where_the_ui_hides_it(lang: str) -> None:
    # The Model panel shows no Low VRAM for FLUX.1 / Kontext / Flex / Chroma (config-reference §4.3).
    shown = texts("no_low_vram", config(*FLUX, quantize=True, vram_gib=16.0), lang)
    assert "Show Advanced" in shown["ui_path"] and "low_vram: true" in shown["ui_path"], shown
    assert "Show Advanced" not in texts("no_low_vram", config(*QWEN, quantize=True), lang)["ui_path"]
    # Other steps' "still off" lists name it the same way.
    te = texts("text_encoder_not_unloaded_or_cached", config(*FLUX, quantize=True, vram_gib=12.0), lang)
    assert "Show Advanced → low_vram" in te["next"], te


@pytest.mark.parametrize("lang", LANGS)
def test_layer_offloading_is_offered_only_to_families_that_have_it(lang: str) -> None:
    # A fragment: the options still off are not known, so the plain "next" line is shown.
    flux = config(*FLUX, vram_gib=16.0, config_shape="fragment")
    assert "Layer Offloading" not in texts("no_low_vram", flux, lang)["next"]
    qwen = config(*QWEN, quantize=True, config_shape="fragment")
    assert "Layer Offloading" in texts("no_low_vram", qwen, lang)["next"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_line_does_not_lower_a_batch_size_of_one(lang: str) -> None:
    batch = "Batch Size"
    gc = config(*FLUX, quantize=True, gc_explicit=True, gradient_checkpointing=False, batch_size=1)
    assert batch not in texts("gc_off", gc, lang)["next"]
    gc.batch_size = 4
    assert batch in texts("gc_off", gc, lang)["next"]
    # The user's word that another program runs, in a training step, with batch 1: buckets and preview.
    said = {"other_process_on_gpu.other_programs": "ComfyUI is open too"}
    others = oom(config(*FLUX, quantize=True, batch_size=1, said=said), Phase.TRAINING_STEP)
    shown = texts("other_process_on_gpu", others, lang)
    assert batch not in shown["next"] and ("bucket" in shown["next"] or "バケット" in shown["next"]), shown
    # No config: the batch size is not known, so lowering it stays on the list.
    others.has_config = others.config_parsed = False
    assert batch in texts("other_process_on_gpu", others, lang)["next"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_missing_key_is_said_missing_not_quoted_as_its_section_header(lang: str) -> None:
    for rule_id, key in (("dtype_fp32", "dtype"), ("optimizer_full_precision_states", "optimizer")):
        g = config(*FLUX, quantize=True, dtype="fp32", dtype_explicit=False, optimizer="adamw")
        g.full_finetune = True
        g.paths["section_train"] = ("train",)
        g.evidence["section_train"] = Evidence("stdin", 12, "train:")
        finding = found(rule_id, g)
        assert all(e.text != "train:" for e in finding.evidence), finding.evidence
        params = usable_params(rule_id, dict(finding.params))
        detail = str(Wording(lang, TARGETS["text"]).first(rule_id, ("detail", "detail_short"), params))
        assert f"`{key}`" in detail and "`train:`" in detail, detail


@pytest.mark.parametrize("lang", LANGS)
def test_one_preview_prompt_is_not_counted_as_prompts(lang: str) -> None:
    preview = {"sample_width": 1536, "sample_height": 1536, "sample_steps": 40, "sample_every": 250}
    f = config(*FLUX, **preview, sample_prompts=1)
    w = Wording(lang, TARGETS["text"])

    def detail(g: Facts) -> str:
        params = usable_params("preview_heavy", dict(found("preview_heavy", g).params))
        return str(w.first("preview_heavy", ("detail",), params))

    one = detail(f)
    assert "(s)" not in one and ("1 prompt at" in one or "1 件" in one), one
    f.sample_prompts = 4
    assert "4 prompts" in detail(f) or "4 件" in detail(f)


@pytest.mark.parametrize("lang", LANGS)
def test_yaml_invalid_texts_read_right_in_explain(lang: str) -> None:
    # `oomcheck explain yaml_invalid` shows no line "above", and its `next` sits under "if it is
    # still out of memory": it must be about what to do once the YAML parses.
    w = Wording(lang, TARGETS["text"])
    fix = "\n".join(w.rt_list("yaml_invalid", "fix"))
    assert "above" not in fix and "上に" not in fix, fix
    nxt = str(w.rt("yaml_invalid", "next"))
    assert ("parses" in nxt or "読み込めるようになったら" in nxt) and ("log" in nxt or "ログ" in nxt), nxt


@pytest.mark.parametrize("lang", LANGS)
def test_the_bucket_cause_matches_the_step_when_the_bucket_fits_the_card(lang: str) -> None:
    # A step OOM at 1024 on a 40 GB card: the step says "it needs the most memory of your buckets";
    # the headline's cause must not say "too big for this card".
    f = oom(
        config(*FLUX, quantize=True, vram_gib=40.0, buckets=[512, 768, 1024], max_bucket=1024),
        Phase.TRAINING_STEP,
    )
    f.datasets = [DatasetFacts(index=0, resolutions=[512, 768, 1024])]
    w = Wording(lang, TARGETS["text"])
    finding = found("bucket_too_large", f)
    cause = str(w.cause("bucket_too_large", usable_params("bucket_too_large", dict(finding.params))))
    assert "too big" not in cause and "大きすぎる" not in cause, cause
    f.vram_gib = 16.0  # over the 16 GB class's 768: now it is too big
    finding = found("bucket_too_large", f)
    cause = str(w.cause("bucket_too_large", usable_params("bucket_too_large", dict(finding.params))))
    assert "too big" in cause or "大きすぎる" in cause, cause


@pytest.mark.parametrize("lang", LANGS)
def test_layer_offloading_is_reached_through_show_advanced_where_the_ui_hides_it(lang: str) -> None:
    # Wan 2.1's code supports layer_offloading, but its Model panel does not show it (§4.3).
    wan21 = config("wan21", "Wan-AI/Wan2.1-T2V-14B-Diffusers", quantize=True, config_shape="fragment")
    shown = texts("no_low_vram", wan21, lang)["next"]
    assert "layer_offloading: true" in shown and "Show Advanced" in shown, shown
    wan21.config_shape = "full_job"
    assert "Show Advanced → layer_offloading" in texts("no_low_vram", wan21, lang)["next"]
