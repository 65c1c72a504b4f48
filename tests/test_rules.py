"""Every rule on hand-made Facts: one case where it must fire, one close case where it must not."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis import record
from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.families import family_for
from diagnosis.models import (
    Applicability,
    ConfigError,
    Evidence,
    LogLine,
    OomEvent,
    OomKind,
    OtherProcess,
    Phase,
    Severity,
)
from diagnosis.rules import RULE_IDS, catalogue, run_rules, spec_of

GIB = 1024**3


def facts(arch: str | None = "flux", name: str = "black-forest-labs/FLUX.1-dev", **kw: Any) -> Facts:
    """A parsed, complete config for `arch` on a 24 GB card, with the trainer's safe defaults."""
    f = Facts(has_config=True, config_parsed=True, config_shape="full_job", vram_gib=24.0, vram_source="user")
    if arch is not None:
        fam = family_for(arch, name)
        f.family_info, f.family, f.family_label, f.params_b = fam, fam.key, fam.label, fam.params_b
        f.is_video, f.arch, f.name_or_path = fam.is_video, arch, name
    f.dtype, f.dtype_explicit, f.optimizer = "bf16", True, "adamw8bit"
    f.quantize = f.quantize_te = True
    f.datasets = [DatasetFacts(index=0, resolutions=[512, 768, 1024], latents_cached=True)]
    f.paths["datasets[0].resolution"] = ("datasets", 0, "resolution")
    f.buckets, f.max_bucket, f.latents_cached = [512, 768, 1024], 1024, True
    for key, value in kw.items():
        setattr(f, key, value)
    if "buckets" in kw:
        f.datasets[0].resolutions = list(kw["buckets"])
        f.max_bucket = max(kw["buckets"])
    return f


def gpu_event(**kw: Any) -> OomEvent:
    base: dict[str, Any] = {
        "kind": OomKind.CUDA_ALLOC,
        "where": LogLine(1, "CUDA out of memory"),
        "tried_bytes": GIB // 2,
        "total_bytes": int(23.55 * GIB),
        "free_bytes": GIB // 4,
        "process_bytes": 23 * GIB,
        "allocated_bytes": 22 * GIB,
        "reserved_unallocated_bytes": GIB // 4,
    }
    base.update(kw)
    return OomEvent(**base)


def in_step(f: Facts, event: OomEvent | None = None) -> Facts:
    f.has_log = f.has_oom = f.gpu_oom = True
    f.fatal = event or gpu_event()
    f.phase = Phase.TRAINING_STEP
    return f


def check(rule_id: str, f: Facts) -> Any:
    spec = spec_of(rule_id)
    assert spec is not None
    return spec.check(f)


def test_the_rule_modules_are_the_ones_pkgutil_lists() -> None:
    # The registry lists the package folder itself (pkgutil would import inspect at every start-up).
    import pkgutil

    import diagnosis.rules as package
    from diagnosis.rules import module_names

    listed = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    assert module_names(package) == listed
    assert {"base", "gc_off", "preview_heavy"} <= set(listed)


def test_catalogue_has_every_rule_once() -> None:
    assert len(set(RULE_IDS)) == len(RULE_IDS)
    fields = {field.name for field in record.fields(Facts)}
    for spec in catalogue():
        # `reads` is published in the catalogue: every name must be a field the rule can read.
        assert spec.reads and set(spec.reads) <= fields, (spec.id, set(spec.reads) - fields)


# --- gradient checkpointing -------------------------------------------------------------------------


def test_gc_off_fires_on_explicit_false() -> None:
    f = in_step(facts(gradient_checkpointing=False, gc_explicit=True))
    found = check("gc_off", f)
    assert found.severity == Severity.ERROR
    assert [(e.path, e.value) for e in found.edits] == [(("train", "gradient_checkpointing"), True)]


def test_gc_off_missing_means_on() -> None:
    assert check("gc_off", in_step(facts(gradient_checkpointing=True, gc_explicit=False))) is None


def test_gc_off_is_only_a_warning_when_loading() -> None:
    f = facts(gradient_checkpointing=False, gc_explicit=True, gpu_oom=True, phase=Phase.MODEL_LOAD)
    assert check("gc_off", f).severity == Severity.WARNING


def test_risky_family_fires_on_the_articles_combination() -> None:
    f = facts(arch="zimage", name="Tongyi-MAI/Z-Image-Turbo", gradient_checkpointing=False, gc_explicit=True)
    f.batch_size = 4
    f.buckets, f.max_bucket = [1024, 1536], 1536
    found = check("risky_family_gc_off", f)
    assert found.params == {"family": "zimage", "family_label": "Z-Image Turbo"}


def test_risky_family_needs_the_combination() -> None:
    f = facts(arch="zimage", name="Tongyi-MAI/Z-Image-Turbo", gradient_checkpointing=False, gc_explicit=True)
    f.batch_size = 1  # 1024-1536 buckets but batch 1: not the article's danger
    assert check("risky_family_gc_off", f) is None
    assert check("gc_off", f) is not None


def test_risky_family_qwen_edit_with_several_control_images() -> None:
    f = facts(arch="qwen_image_edit_plus", name="Qwen/Qwen-Image-Edit-2509")
    f.gradient_checkpointing, f.gc_explicit, f.control_images = False, True, 2
    assert check("risky_family_gc_off", f) is not None
    f.control_images = 1
    assert check("risky_family_gc_off", f) is None


# --- batch ------------------------------------------------------------------------------------------


def test_batch_keeps_effective_batch_with_accumulation() -> None:
    f = in_step(facts(batch_size=8))
    found = check("batch_too_large", f)
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "batch_size"): 1, ("train", "gradient_accumulation"): 8}
    assert found.params["effective_batch"] == 8


def test_batch_over_safe_start_without_an_oom_uses_a_divisor() -> None:
    found = check("batch_too_large", facts(batch_size=6))  # FLUX on 24 GB starts at 4
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "batch_size"): 3, ("train", "gradient_accumulation"): 2}
    assert found.severity == Severity.WARNING


def test_batch_moves_the_legacy_accumulation_and_keeps_the_updates() -> None:
    # Batch 4, legacy accumulation 2, 2000 steps: 8000 images, 1000 updates. Raising the legacy key to
    # 8 with batch 1 would give 2000 images and 250 updates; the new key takes 8 batches per step, so
    # 1000 steps give the same 1000 updates on 8000 images.
    f = in_step(facts(batch_size=4, gradient_accumulation_steps=2, train_steps=2000))
    f.paths["gradient_accumulation_steps"] = ("train", "gradient_accumulation_steps")
    f.paths["train_steps"] = ("train", "steps")
    found = check("batch_too_large", f)
    edits = {e.path: e.value for e in found.edits}
    # Never both accumulation keys above 1.
    assert edits == {
        ("train", "batch_size"): 1,
        ("train", "gradient_accumulation_steps"): 1,
        ("train", "gradient_accumulation"): 8,
        ("train", "steps"): 1000,
    }
    assert found.params["effective_batch"] == 8
    assert found.params["legacy"] == "with_steps" and found.params["new_steps"] == 1000


def test_the_legacy_accumulation_fix_keeps_saves_and_previews_at_the_same_points() -> None:
    # `save_every` and `sample_every` count the same steps as `steps`: divided alike, where the config
    # sets them (a default is left alone, and so is a value the division does not change).
    f = in_step(facts(batch_size=4, gradient_accumulation_steps=2, train_steps=2000, save_every=250))
    f.sample_every = 100
    for fact, key in (
        ("gradient_accumulation_steps", ("train", "gradient_accumulation_steps")),
        ("train_steps", ("train", "steps")),
        ("save_every", ("save", "save_every")),
        ("sample_every", ("sample", "sample_every")),
    ):
        f.paths[fact] = key
    found = check("batch_too_large", f)
    edits = {e.path: e.value for e in found.edits}
    assert edits[("train", "steps")] == 1000
    assert edits[("save", "save_every")] == 125 and edits[("sample", "sample_every")] == 50
    assert found.params["legacy"] == "with_steps_every"
    # Not set in the config: not edited, and the reply says only what the fix does.
    del f.paths["sample_every"], f.paths["save_every"]
    found = check("batch_too_large", f)
    assert not {("save", "save_every"), ("sample", "sample_every")} & {e.path for e in found.edits}
    assert found.params["legacy"] == "with_steps"


def test_save_every_is_read_from_the_save_section() -> None:
    from diagnosis.config.parse import parse_config
    from diagnosis.facts import build_facts
    from diagnosis.intake import read_case

    text = "train:\n  batch_size: 4\n  steps: 2000\nsave:\n  save_every: 250\n"
    intake = read_case([text])
    docs = [parse_config(p) for p in intake.pieces]
    f = build_facts(intake, docs, [], 24.0)
    assert f.save_every == 250 and f.paths["save_every"] == ("save", "save_every")


def test_batch_moves_the_legacy_accumulation_and_says_so_without_steps() -> None:
    f = in_step(facts(batch_size=4, gradient_accumulation_steps=2))
    edits = {e.path: e.value for e in check("batch_too_large", f).edits}
    assert edits[("train", "gradient_accumulation_steps")] == 1 and ("train", "steps") not in edits
    assert check("batch_too_large", f).params["legacy"] == "without_steps"


def test_batch_one_is_never_too_large() -> None:
    assert check("batch_too_large", in_step(facts(batch_size=1))) is None


def test_batch_within_safe_start_without_step_oom() -> None:
    f = facts(batch_size=4, phase=Phase.FIRST_SAMPLE, gpu_oom=True)
    assert check("batch_too_large", f) is None


# --- buckets ----------------------------------------------------------------------------------------


def test_bucket_over_the_class_limit() -> None:
    found = check("bucket_too_large", facts(buckets=[512, 768, 1024, 1536]))
    # Checked on the config alone, the preview may still be what fails: the next line names it first.
    assert found.params == {
        "max_bucket": 1536,
        "limit": 1024,
        "new_buckets": [512, 768, 1024],
        "then": "preview_paths",
        "paths_off": ["Show Advanced → low_vram", "Cache Text Embeddings"],
    }
    assert [(e.path, e.value) for e in found.edits] == [(("datasets", 0, "resolution"), [512, 768, 1024])]


def test_bucket_kontext_limit_is_lower() -> None:
    f = facts(arch="flux_kontext", name="black-forest-labs/FLUX.1-Kontext-dev")
    assert check("bucket_too_large", f).params["new_buckets"] == [512, 768]


def test_bucket_1024_is_fine_on_24gb_without_an_oom() -> None:
    assert check("bucket_too_large", facts()) is None


def test_bucket_from_the_users_words_without_config() -> None:
    f = Facts(prose_buckets=[1280, 1536], vram_gib=32.0)
    found = check("bucket_too_large", f)
    assert found.params["max_bucket"] == 1536 and not found.edits


# --- preview ----------------------------------------------------------------------------------------


def test_preview_over_1024_is_shrunk_keeping_aspect() -> None:
    found = check("preview_heavy", facts(sample_width=1536, sample_height=1024, sample_steps=20))
    assert {e.path: e.value for e in found.edits} == {("sample", "width"): 1024, ("sample", "height"): 640}


def test_preview_oom_while_sampling_is_an_error_without_config() -> None:
    f = Facts(phase=Phase.FIRST_SAMPLE, says_oom=True)
    found = check("preview_heavy", f)
    assert found.severity == Severity.ERROR and not found.edits


def test_preview_of_usual_size_is_fine() -> None:
    assert check("preview_heavy", facts(sample_width=1024, sample_height=1024, sample_steps=25)) is None


def test_preview_disabled_is_never_heavy() -> None:
    f = facts(sample_width=2048, sample_height=2048, disable_sampling=True)
    assert check("preview_heavy", f) is None


# --- model memory paths -----------------------------------------------------------------------------


def test_no_quantize_big_model_on_24gb() -> None:
    found = check("no_quantize_big_model", facts(quantize=False, quantize_te=False))
    assert [(e.path, e.value) for e in found.edits] == [(("model", "quantize"), True)]


QWEN_ARA = "uint3|ostris/accuracy_recovery_adapters/qwen_image_torchao_uint3.safetensors"


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


def test_no_low_vram_for_wan_14b_on_24gb() -> None:
    f = facts(arch="wan22_14b", name="ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16", low_vram=False)
    assert [(e.path, e.value) for e in check("no_low_vram", f).edits] == [(("model", "low_vram"), True)]


def test_no_low_vram_not_for_flux_on_24gb_without_a_load_oom() -> None:
    assert check("no_low_vram", facts(low_vram=False)) is None


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


def test_text_encoder_user_says_it_stays() -> None:
    quote = "the text encoder is not being unloaded"
    f = Facts(said={"text_encoder_not_unloaded_or_cached.te_not_released": quote})
    found = check("text_encoder_not_unloaded_or_cached", f)
    assert found.edits == []
    assert Evidence("user", None, quote) in found.evidence


# --- training settings ------------------------------------------------------------------------------


def test_video_frames_heavy() -> None:
    f = facts(arch="wan22_14b", name="wan2.2", num_frames=81)
    f.datasets[0].num_frames = 81
    found = check("video_frames_heavy", f)
    assert found.params["new_frames"] < 81 and (found.params["new_frames"] - 1) % 4 == 0


def test_video_single_frame_is_fine() -> None:
    assert check("video_frames_heavy", facts(arch="wan22_14b", name="wan2.2", num_frames=1)) is None


def test_dtype_missing_means_fp32() -> None:
    found = check("dtype_fp32", facts(dtype="fp32", dtype_explicit=False))
    assert found.params == {
        "dtype": None,
        "dtype_missing": True,
        "then": "paths",
        # FLUX.1: the Model panel does not show Low VRAM.
        "paths_off": ["Show Advanced → low_vram", "Cache Text Embeddings"],
    }
    assert [(e.path, e.value) for e in found.edits] == [(("train", "dtype"), "bf16")]


def test_dtype_not_asked_of_a_fragment() -> None:
    assert check("dtype_fp32", facts(dtype="fp32", config_shape="fragment")) is None


def test_latents_not_cached() -> None:
    f = facts(latents_cached=False)
    f.datasets[0].latents_cached = False
    found = check("latents_not_cached", f)
    assert [(e.path, e.value) for e in found.edits] == [(("datasets", 0, "cache_latents_to_disk"), True)]


def test_latents_cached() -> None:
    assert check("latents_not_cached", facts()) is None


def test_train_text_encoder_on_big_model() -> None:
    assert check("train_text_encoder_on", facts(train_text_encoder=True)) is not None
    assert check("train_text_encoder_on", facts(train_text_encoder=False)) is None


def test_optimizer_full_precision_on_full_finetune() -> None:
    found = check("optimizer_full_precision_states", facts(optimizer="adamw", full_finetune=True))
    assert found.edits[0].value == "adamw8bit"


def test_optimizer_adamw_on_small_lora_is_fine() -> None:
    assert check("optimizer_full_precision_states", facts(optimizer="adamw", network_rank=16)) is None


def test_high_rank_keeps_alpha_ratio() -> None:
    f = facts(network_rank=128, network_alpha=128.0)
    f.paths["network_rank"] = ("network", "linear")
    f.paths["network_alpha"] = ("network", "linear_alpha")
    edits = {e.path: e.value for e in check("high_rank", f).edits}
    assert edits == {("network", "linear"): 64, ("network", "linear_alpha"): 64}


def test_high_rank_fine_on_48gb() -> None:
    assert check("high_rank", facts(network_rank=128, vram_gib=48.0)) is None


# --- environment ------------------------------------------------------------------------------------


def test_the_options_still_off_name_quantize_te_only_where_the_ui_has_it() -> None:
    # SD 1.5 / SDXL: AI Toolkit's UI has no quantization section (config-reference §4.3); Lumina 2
    # shows Quantize Text Encoder (its example sets it).
    from diagnosis.rules.base import options_off

    sdxl = facts(arch="sdxl", name="sdxl-base-1.0", quantize=False, quantize_te=False)
    assert options_off(sdxl) == ["Cache Text Embeddings"]
    lumina = facts(arch="lumina2", name="Alpha-VLLM/Lumina-Image-2.0", quantize=False, quantize_te=False)
    assert options_off(lumina) == ["Cache Text Embeddings", "Quantize Text Encoder"]


def test_other_process_listed() -> None:
    event = gpu_event(other_processes=[OtherProcess(654925, int(5.68 * GIB)), OtherProcess(7, 7 * GIB)])
    found = check("other_process_on_gpu", in_step(Facts(), event))
    assert found.params["reason"] == "other_pids" and found.params["pids"] == [654925, 7]


def test_other_process_measured_says_what_the_user_tried_and_quotes_it() -> None:
    # Case 020's words over a measured OOM: the step asks what still holds the card, and the user's
    # sentence that chose this wording is quoted with the measured line.
    event = gpu_event(other_processes=[OtherProcess(654925, int(5.68 * GIB))])
    said = Evidence("user", None, "Even after manually closing these applications, the issue persists")
    f = in_step(Facts(said={"other_process_on_gpu.closed_others": said.text}), event)
    found = check("other_process_on_gpu", f)
    assert found.params["reason"] == "other_pids" and found.params["tried_closing"] is True
    assert said in found.evidence
    plain = check("other_process_on_gpu", in_step(Facts(), event))
    assert "tried_closing" not in plain.params and said not in plain.evidence


def test_other_process_container_self_pid_is_the_trainer() -> None:
    # No "this process has" fragment: the one listed process holds what PyTorch allocated.
    event = gpu_event(process_bytes=None, other_processes=[OtherProcess(1381433, 23 * GIB)])
    assert check("other_process_on_gpu", in_step(Facts(), event)) is None


def test_other_process_unaccounted_memory() -> None:
    event = gpu_event(process_bytes=12 * GIB, allocated_bytes=11 * GIB)
    assert check("other_process_on_gpu", in_step(Facts(), event)).params["reason"] == "unaccounted"


def test_other_process_windows_spill_is_not_evidence() -> None:
    event = gpu_event(total_bytes=16 * GIB, free_bytes=0, process_bytes=None, allocated_bytes=29 * GIB)
    assert check("other_process_on_gpu", in_step(Facts(), event)) is None


def test_other_process_user_says() -> None:
    f = Facts(said={"other_process_on_gpu.other_programs": "comfy is open"}, says_oom=True, has_oom=True)
    assert check("other_process_on_gpu", f).params["reason"] == "user_says"


def test_fragmentation_needs_large_reserved_next_to_the_request() -> None:
    big = gpu_event(reserved_unallocated_bytes=6 * GIB, tried_bytes=5 * GIB)
    found = check("fragmentation", in_step(Facts(), big))
    assert found.params == {"reserved_gib": 6.0, "tried_gib": 5.0}
    assert found.applicability.value == "advice"


def test_fragmentation_is_not_offered_where_expandable_segments_are_ignored() -> None:
    # PyTorch supports expandable segments on Linux only; on Windows it ignores the setting.
    big = gpu_event(reserved_unallocated_bytes=6 * GIB, tried_bytes=2 * GIB)
    assert check("fragmentation", in_step(Facts(os="windows"), big)) is None
    assert check("fragmentation", in_step(Facts(os="linux"), big)) is not None


def test_fragmentation_needs_reserved_memory_that_would_have_covered_the_request() -> None:
    # Case 007: 2.92 GiB reserved-but-unallocated could never have served a 5.06 GiB request.
    short = gpu_event(reserved_unallocated_bytes=int(2.92 * GIB), tried_bytes=int(5.06 * GIB))
    assert check("fragmentation", in_step(Facts(), short)) is None


def test_fragmentation_boilerplate_is_not_evidence() -> None:
    # 352 MiB reserved-but-unallocated: the hint sentence is printed in every modern OOM message.
    small = gpu_event(reserved_unallocated_bytes=352 * 1024**2, tried_bytes=48 * 1024**2)
    assert check("fragmentation", in_step(Facts(), small)) is None


def host(kind: OomKind, text: str = "Killed") -> Facts:
    f = Facts(has_log=True, has_oom=True)
    f.host_oom = OomEvent(kind=kind, where=LogLine(1, text))
    return f


def test_system_ram_oom_signals() -> None:
    assert check("system_ram_oom", host(OomKind.HOST_KILLED)).params["signal"] == "killed"
    ui = host(OomKind.HOST_KILLED, "Job process exited unexpectedly. Last log line: x")
    assert check("system_ram_oom", ui).params["signal"] == "ui_exit"
    assert check("system_ram_oom", host(OomKind.HOST_ALLOC)).params["signal"] == "cpu_alloc"
    assert check("system_ram_oom", Facts(says_host_killed=True)).params["signal"] == "killed"


def test_system_ram_oom_not_for_a_gpu_oom() -> None:
    assert check("system_ram_oom", in_step(Facts())) is None


def test_windows_pagefile() -> None:
    assert check("windows_pagefile", host(OomKind.WINDOWS_PAGEFILE, "os error 1455")) is not None
    assert check("windows_pagefile", host(OomKind.HOST_KILLED)) is None


def test_shm_too_small() -> None:
    assert check("shm_too_small", host(OomKind.SHM, "Bus error")) is not None
    assert check("shm_too_small", host(OomKind.HOST_KILLED)) is None


def test_gpu_too_small_for_model() -> None:
    # AI Toolkit's HiDream example is for 48 GB: about 35.2 GB used, "not possible on 24 GB".
    hidream = ("hidream", "HiDream-ai/HiDream-I1-Full")
    found = check("gpu_too_small_for_model", facts(*hidream, vram_gib=24.0))
    assert found.params["needed_gib"] == 32.0
    assert check("gpu_too_small_for_model", facts(*hidream, vram_gib=32.0)) is None


def test_gpu_too_small_not_on_an_assumed_card() -> None:
    f = facts(arch="hidream", name="HiDream-ai/HiDream-I1-Full", vram_gib=16.0, vram_source="assumed")
    assert check("gpu_too_small_for_model", f) is None


# --- the case itself --------------------------------------------------------------------------------


def test_regression_after_update() -> None:
    f = Facts(said={"regression_after_update.regression": "since updating it OOMs"})
    found = check("regression_after_update", f)
    assert found.params == {"quote": "since updating it OOMs"}
    assert found.evidence == [Evidence("user", None, "since updating it OOMs")]
    worked = {"regression_after_update.worked_before": "It worked before"}
    assert check("regression_after_update", Facts(said=worked)) is None
    same = worked | {"regression_after_update.same_settings": "same settings"}
    assert check("regression_after_update", Facts(said=same)).params == {"quote": "It worked before"}
    assert check("regression_after_update", Facts()) is None


def test_not_oom_suppresses_the_checklist() -> None:
    f = facts(gradient_checkpointing=False, gc_explicit=True, not_oom_kind="hf_auth", not_oom_headline="401")
    ids = [x.rule_id for x in run_rules(f)[0]]
    assert "not_oom" in ids and "gc_off" not in ids
    assert check("not_oom", facts()) is None


def test_input_incomplete_asks_for_exactly_what_is_missing() -> None:
    f = Facts(has_log=True, has_oom=True, gpu_oom=True, fatal=gpu_event(), vram_source="oom_message")
    assert check("input_incomplete", f).params == {"missing": ["config"]}
    nothing = Facts(vram_source="assumed")
    assert check("input_incomplete", nothing).params == {"missing": ["config", "log", "gpu"]}


def test_input_incomplete_when_the_job_lacks_its_model_section() -> None:
    # The config was pasted but stops before `model:`: ask for the rest, not for "the config" again.
    f = facts(arch=None, vram_source="gpu_name")
    assert check("input_incomplete", f).params == {"missing": ["config_rest"]}


def test_input_complete() -> None:
    f = facts(has_log=True, fatal=gpu_event())
    assert check("input_incomplete", f) is None


def test_yaml_invalid() -> None:
    f = Facts(has_config=True, config_source="message 1", config_error_line=55)
    f.config_error = ConfigError(52, 1, "found character '\\t'", "\t\tlow_vram: true", tab_indent=True)
    found = check("yaml_invalid", f)
    assert found.params["line"] == 52 and found.params["tab"] is True
    assert found.evidence[0].line == 55
    assert check("yaml_invalid", facts()) is None


def test_secret_in_input() -> None:
    found = check("secret_in_input", Facts(secret_kinds=["hf_token"], secret_count=1))
    assert found.params == {"kinds": "hf_token", "count": 1}
    assert check("secret_in_input", Facts()) is None


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_every_rule_is_quiet_on_an_empty_case(rule_id: str) -> None:
    found = check(rule_id, Facts(vram_gib=24.0, vram_source="user"))
    if rule_id == "input_incomplete":
        assert found.params == {"missing": ["config", "log"]}
    else:
        assert found is None


def test_bucket_fix_is_per_dataset() -> None:
    f = facts()
    f.datasets = [DatasetFacts(index=0, resolutions=[1536]), DatasetFacts(index=1, resolutions=[512, 2048])]
    f.paths["datasets[1].resolution"] = ("datasets", 1, "resolution")
    f.buckets, f.max_bucket = [512, 1536, 2048], 2048
    found = check("bucket_too_large", f)
    # A dataset with only too-large buckets keeps the largest the card holds, not another dataset's 512.
    assert {e.path: e.value for e in found.edits} == {
        ("datasets", 0, "resolution"): 1024,
        ("datasets", 1, "resolution"): [512],
    }
    assert found.params["new_buckets"] == [512, 1024]


def test_preview_oom_within_the_thresholds_is_advice() -> None:
    # The log describes the config before any fix: an edit from it alone would be asked for again.
    f = facts(sample_width=1024, sample_height=1024, sample_steps=25, phase=Phase.FIRST_SAMPLE, gpu_oom=True)
    found = check("preview_heavy", f)
    assert found.severity == Severity.ERROR and found.edits == []


def test_bucket_after_a_step_oom_within_the_limit_is_advice() -> None:
    # No edit, so no exact buckets to keep in the words either (they would promise an edit).
    found = check("bucket_too_large", in_step(facts()))
    assert found.severity == Severity.INFO and found.edits == []
    assert "new_buckets" not in found.params and found.params["max_bucket"] == 1024
