"""The memory model's components scale as the physics says: activations with pixels, batch and
frames, gradient checkpointing's saving, weights by qtype and offloading, the optimizer's state."""

from __future__ import annotations

import pytest

from diagnosis.estimate import (
    Fit,
    Job,
    estimate,
    fit,
    largest_that_fits,
    largest_that_fits_on_card,
    observed_floor,
    usable_gib,
)
from diagnosis.estimate.arch import arch_for
from diagnosis.estimate.job import job_from_facts
from diagnosis.estimate.model import Estimate, Span
from diagnosis.facts_model import Facts
from diagnosis.record import replace

FLUX = Job(family="flux", label="FLUX.1-dev", params_b=12, quantize=True, quantize_te=True)
WAN = Job(
    family="wan21",
    label="Wan 2.1 14B",
    params_b=14,
    is_video=True,
    quantize=True,
    quantize_te=True,
    low_vram=True,
    cache_te=True,
    bucket=512,
)


def _est(job: Job) -> Estimate:
    est = estimate(job)
    assert est is not None
    return est


def _train(job: Job, name: str) -> Span:
    phase = _est(job).phase("training_step")
    assert phase is not None
    return phase.get(name)


def test_activations_grow_with_the_square_of_the_bucket() -> None:
    small, big = _train(replace(FLUX, bucket=512), "activations"), _train(FLUX, "activations")
    # 4× the image tokens (1024 → 4096 at 16 px a token); the 512 text tokens stay as they are.
    assert big.low / small.low == pytest.approx((4096 + 512) / (1024 + 512))


def test_activations_are_linear_in_the_batch() -> None:
    one, four = _train(FLUX, "activations"), _train(replace(FLUX, batch=4), "activations")
    assert four.low == pytest.approx(4 * one.low)
    assert four.high == pytest.approx(4 * one.high)


def test_video_activations_grow_with_latent_frames() -> None:
    one = _train(replace(WAN, frames=1), "activations")
    # 81 frames are 21 latent frames (4× temporal compression, the first frame alone).
    many = _train(replace(WAN, frames=81), "activations")
    assert many.low / one.low == pytest.approx(21, rel=0.02)


def test_gradient_checkpointing_off_costs_several_times_more() -> None:
    on, off = _train(FLUX, "activations"), _train(replace(FLUX, gc=False), "activations")
    assert off.low > 5 * on.low
    assert _est(replace(FLUX, gc=False)).peak.phase == "training_step"


@pytest.mark.parametrize(
    ("qtype", "ratio"),
    [("qfloat8", 0.5), ("uint4", 0.25), ("uint3", 0.1875)],
)
def test_weights_by_qtype(qtype: str, ratio: float) -> None:
    bf16 = _train(replace(FLUX, quantize=False), "weights")
    quantized = _train(replace(FLUX, qtype=qtype), "weights")
    # The share of layers kept in bf16 puts a quantized model a little above the bare ratio.
    assert ratio * bf16.low <= quantized.low <= (ratio + 0.05) * bf16.low


def test_fp32_doubles_the_unquantized_weights() -> None:
    bf16, fp32 = (
        _train(replace(FLUX, quantize=False), "weights"),
        _train(replace(FLUX, quantize=False, dtype="fp32"), "weights"),
    )
    assert fp32.low == pytest.approx(2 * bf16.low)


def test_an_accuracy_recovery_adapter_costs_its_uint8_layers_and_itself() -> None:
    plain = _train(replace(FLUX, qtype="uint3"), "weights")
    ara = _train(replace(FLUX, qtype="uint3|ostris/accuracy_recovery_adapters/x.safetensors"), "weights")
    assert ara.low > plain.low


def test_layer_offloading_keeps_a_few_blocks_on_the_gpu() -> None:
    job = Job(family="qwen_image", label="Qwen-Image", params_b=20, quantize=True)
    on_gpu, offloaded = _train(job, "weights"), _train(replace(job, layer_offloading=True), "weights")
    assert offloaded.high < on_gpu.low / 10


def test_layer_offloading_keeps_the_share_it_does_not_offload() -> None:
    job = Job(family="qwen_image", label="Qwen-Image", params_b=20, quantize=True, layer_offloading=True)
    on_gpu = _train(replace(job, layer_offloading=False), "weights")
    half = _train(replace(job, offload_share=0.5), "weights")
    # Half the layers stay (half the weights), plus a few blocks of the other half in flight.
    assert on_gpu.low / 2 < half.low < on_gpu.low / 2 * 1.1
    assert _train(replace(job, offload_share=0.0), "weights") == on_gpu


def test_the_text_encoder_offloaded_and_its_own_qtype() -> None:
    job = Job(family="flux2_klein", label="FLUX.2 klein 9B", params_b=9, quantize=True, quantize_te=True)
    resident = _train(job, "text_encoder")
    offloaded = _train(replace(job, layer_offloading=True, te_offload_share=1.0), "text_encoder")
    assert offloaded.high <= resident.high * 0.11
    # qtype_te is read: a 4-bit text encoder holds about half what a float8 one does.
    four_bit = _train(replace(job, qtype_te="uint4"), "text_encoder")
    assert four_bit.high < resident.high * 0.7


def test_the_offload_percents_and_qtype_te_come_from_the_config() -> None:
    from diagnosis import diagnose

    config = (
        "job: extension\nconfig:\n  process:\n    - type: sd_trainer\n      model:\n"
        "        name_or_path: black-forest-labs/FLUX.2-klein-base-9B\n        arch: flux2_klein_9b\n"
        "        quantize: true\n        qtype_te: uint4\n        layer_offloading: true\n"
        "        layer_offloading_transformer_percent: 0.6\n"
        "        layer_offloading_text_encoder_percent: 1\n"
    )
    facts = diagnose([config]).facts
    assert (facts.offload_share, facts.te_offload_share, facts.qtype_te) == (0.6, 1.0, "uint4")
    job = job_from_facts(facts)
    assert job is not None and (job.offload_share, job.te_offload_share) == (0.6, 1.0)


def _quantize(job: Job, name: str) -> Span:
    phase = _est(job).phase("quantize")
    assert phase is not None
    return phase.get(name)


def test_the_text_encoder_arrives_at_its_load_precision_low_vram_or_not() -> None:
    # AI Toolkit moves the encoder to the GPU and quantizes it there; low_vram parks the transformer
    # on the CPU meanwhile, it does not quantize the encoder before it arrives.
    job = Job(family="qwen_image", label="Qwen-Image", params_b=20, quantize=True, quantize_te=True)
    low = replace(job, low_vram=True)
    assert _quantize(low, "text_encoder") == _quantize(job, "text_encoder")
    assert _quantize(job, "text_encoder").low > _train(job, "text_encoder").high * 1.5  # bf16 vs qfloat8
    assert _quantize(job, "weights").low > 0 and _quantize(low, "weights") == Span(0.0, 0.0)


def test_hidream_has_one_text_encoder_at_load_precision_at_a_time() -> None:
    # Llama is quantized before the transformer arrives, T5 after: the shipped 48 GB example fits.
    job = Job(
        family="hidream", label="HiDream", params_b=17, quantize=True, quantize_te=True, latents_cached=False
    )
    arriving = _quantize(job, "text_encoder")
    all_bf16 = 14.2e9 * 2 / 2**30
    assert arriving.high < all_bf16 * 0.75
    assert fit(_est(job).peak.total, usable_gib(48)) is Fit.MARGIN


def test_wan22_holds_both_experts_without_low_vram() -> None:
    job = Job(
        family="wan22_14b", label="Wan 2.2 14B", params_b=14, is_video=True, quantize=True, low_vram=True
    )
    swapped, both = _train(job, "weights"), _train(replace(job, low_vram=False), "weights")
    assert both.low == pytest.approx(2 * swapped.low)


def test_quantizing_without_low_vram_loads_the_whole_model_first() -> None:
    load = _est(FLUX).phase("model_load")
    low_vram = _est(replace(FLUX, low_vram=True)).phase("model_load")
    assert load is not None and low_vram is not None
    assert load.get("weights").low > 22  # 12 B parameters in bf16 before they are quantized
    assert low_vram.get("weights").high < 13


@pytest.mark.parametrize(
    ("unload", "cache", "resident"), [(False, False, True), (True, False, False), (False, True, False)]
)
def test_text_encoder_resident_unless_unloaded_or_cached(unload: bool, cache: bool, resident: bool) -> None:
    te = _train(replace(FLUX, unload_te=unload, cache_te=cache), "text_encoder")
    assert (te.low > 4) is resident


def test_quantizing_the_text_encoder_halves_it() -> None:
    q, full = _train(FLUX, "text_encoder"), _train(replace(FLUX, quantize_te=False), "text_encoder")
    assert q.high < 0.55 * full.low


@pytest.mark.parametrize(
    ("optimizer", "state_bytes"),
    [("adamw", 8), ("adamw8bit", 2), ("adafactor", 0.5), ("prodigy", 16)],
)
def test_adapter_holds_weights_grads_and_the_optimizer_state(optimizer: str, state_bytes: float) -> None:
    adapter = _train(replace(FLUX, optimizer=optimizer, rank=16), "adapter")
    params = 16 * 5.4e6  # FLUX.1: 5.4 M LoRA parameters per unit of rank
    assert adapter.low == pytest.approx(params * (8 + state_bytes) / 2**30)


def test_adapter_grows_with_rank_and_lokr_is_smaller() -> None:
    r16, r128 = _train(FLUX, "adapter"), _train(replace(FLUX, rank=128), "adapter")
    assert r128.low == pytest.approx(8 * r16.low)
    assert _train(replace(FLUX, network_type="lokr"), "adapter").high < r16.low


def test_full_finetune_trains_the_base_weights() -> None:
    full = _train(replace(FLUX, quantize=False, full_finetune=True, optimizer="adafactor"), "adapter")
    assert full.low > 20  # bf16 gradients of 12 B parameters alone are 22 GiB


def test_preview_cost_grows_with_its_size_and_frames() -> None:
    def preview(job: Job) -> Span:
        phase = _est(job).phase("sampling")
        assert phase is not None
        return phase.get("activations")

    assert preview(replace(FLUX, sample_width=2048, sample_height=2048)).low > 3.5 * preview(FLUX).low
    assert preview(replace(WAN, sample_frames=81)).low > 10 * preview(replace(WAN, sample_frames=1)).low
    assert _est(replace(FLUX, sampling=False)).phase("sampling") is None


def test_control_images_join_the_sequence_where_the_model_does_so() -> None:
    kontext = Job(family="flux_kontext", label="FLUX.1 Kontext", params_b=12, quantize=True)
    assert (
        _train(replace(kontext, control_images=1), "activations").low
        > 1.8 * _train(kontext, "activations").low
    )


def test_a_range_always() -> None:
    for phase in _est(FLUX).phases:
        assert phase.total.low < phase.total.high


def test_unknown_family_has_no_estimate() -> None:
    assert estimate(Job(family="pixart", label="PixArt", params_b=0.6)) is None
    assert arch_for("flux", "Flex.1") is not None and arch_for("flux", "Flex.1").blocks == 46  # type: ignore[union-attr]


def test_fit_verdicts() -> None:
    usable = usable_gib(24)
    assert usable == pytest.approx(23.52)
    assert fit(Span(10, 12), usable) is Fit.MARGIN
    assert fit(Span(20, 23), usable) is Fit.TIGHT
    assert fit(Span(20, 26), usable) is Fit.BORDERLINE
    assert fit(Span(25, 30), usable) is Fit.OVER


def test_the_oom_message_wins_over_the_model() -> None:
    est = _est(FLUX)
    raised = observed_floor(est, "training_step", 40.0)
    step = raised.phase("training_step")
    before = est.phase("training_step")
    assert step is not None and before is not None
    assert step.total.low == pytest.approx(40.0)
    # Still a range: as wide as the model's.
    assert step.total.high - step.total.low == pytest.approx(before.total.high - before.total.low)
    # Other phases stay as they were; a floor below the estimate changes nothing.
    assert raised.phase("sampling") == est.phase("sampling")
    assert observed_floor(est, "training_step", 1.0) == est


def test_largest_that_fits_chooses_how_far_to_cut() -> None:
    video = replace(WAN, frames=121)
    frames = largest_that_fits(video, "frames", [121, 81, 49, 33, 17, 1], usable_gib(32))
    assert frames is not None and frames < 121
    assert fit(_est(replace(video, frames=frames)).peak.total, usable_gib(32)) is Fit.MARGIN
    bigger = largest_that_fits(video, "frames", [121, 81, 49, 33, 17, 1], usable_gib(48))
    assert bigger is not None and bigger > frames
    batch = largest_that_fits(replace(FLUX, gc=False, low_vram=True), "batch", [4, 2, 1], usable_gib(24))
    assert batch is None  # GC off at 1024: not even batch 1 fits a 24 GB card


def test_a_rule_asks_with_its_facts() -> None:
    facts = Facts(
        family="wan21",
        family_label="Wan 2.1 14B",
        params_b=14,
        is_video=True,
        quantize=True,
        quantize_te=True,
        low_vram=True,
        cache_text_embeddings=True,
        max_bucket=512,
        num_frames=121,
        vram_gib=32,
        dtype="bf16",
    )
    frames = largest_that_fits_on_card(facts, "frames", [121, 81, 49, 33, 17])
    assert frames == largest_that_fits(WAN, "frames", [121, 81, 49, 33, 17], usable_gib(32))
    assert frames is not None and frames < 121
    assert largest_that_fits_on_card(Facts(family="wan21", params_b=14), "frames", [81]) is None  # no card
    assert largest_that_fits_on_card(Facts(vram_gib=24), "frames", [81]) is None  # no family


def test_numbers_as_typed_never_break_the_arithmetic() -> None:
    facts = Facts(
        family="flux",
        family_label="FLUX.1-dev",
        params_b=12,
        vram_gib=24,
        network_rank=-8,
        max_bucket=-512,
        sample_width=-1024,
        sample_height=768,
        control_images=-2,
        batch_size=0,
        num_frames=-5,
    )
    job = job_from_facts(facts)
    assert job is not None
    est = _est(job)
    for phase in est.phases:
        assert 0 < phase.total.low <= phase.total.high
