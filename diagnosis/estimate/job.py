"""The settings an estimate rests on, read from a case's Facts (or written out by a calibration row)."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.record import Record

# AI Toolkit's code default for `network.linear` is 4 and the UI's 32; a config that leaves it out was
# most often written from an example, which sets 16 or 32.
DEFAULT_RANK = 16


class Job(Record):
    """One training job, as much as the memory model needs of it."""

    family: str
    label: str
    params_b: float
    is_video: bool = False
    dtype: str = "bf16"
    quantize: bool = False
    qtype: str = "qfloat8"
    quantize_te: bool = False
    low_vram: bool = False
    layer_offloading: bool = False
    offload_share: float = 1.0  # of the transformer's layers, with layer offloading
    te_offload_share: float = 0.0  # of the text encoder's layers, with layer offloading
    qtype_te: str = "qfloat8"
    unload_te: bool = False
    cache_te: bool = False
    train_te: bool = False
    optimizer: str = "adamw8bit"
    rank: int = DEFAULT_RANK
    network_type: str = "lora"
    full_finetune: bool = False
    batch: int = 1
    bucket: int = 1024
    frames: int = 1
    control_images: int = 0
    gc: bool = True
    latents_cached: bool = True
    sampling: bool = True
    sample_width: int = 1024
    sample_height: int = 1024
    sample_frames: int = 1


def job_from_facts(facts: Facts) -> Job | None:
    """The job a case describes, or None when the family or its size is not known."""
    if not facts.family or facts.params_b is None:
        return None
    return Job(
        family=facts.family,
        label=facts.family_label or facts.family,
        params_b=facts.params_b,
        is_video=facts.is_video,
        dtype=facts.dtype,
        quantize=facts.quantize,
        qtype=facts.qtype or "qfloat8",
        quantize_te=facts.quantize_te,
        low_vram=facts.low_vram,
        layer_offloading=facts.layer_offloading,
        offload_share=facts.offload_share if facts.layer_offloading else 1.0,
        te_offload_share=facts.te_offload_share if facts.layer_offloading else 0.0,
        qtype_te=facts.qtype_te or "qfloat8",
        unload_te=facts.unload_text_encoder,
        cache_te=facts.cache_text_embeddings,
        train_te=facts.train_text_encoder,
        optimizer=facts.optimizer,
        rank=max(1, facts.network_rank or DEFAULT_RANK),
        network_type=facts.network_type or "lora",
        full_finetune=facts.full_finetune,
        batch=max(1, facts.batch_size),
        # A config's numbers are whatever was typed: nothing below 1 reaches the arithmetic.
        bucket=max(1, facts.max_bucket or 1024),
        frames=max(1, facts.num_frames),
        control_images=max(0, facts.control_images),
        gc=facts.gradient_checkpointing,
        latents_cached=facts.latents_cached,
        sampling=not facts.disable_sampling,
        sample_width=max(1, facts.sample_width or 1024),
        sample_height=max(1, facts.sample_height or 1024),
        sample_frames=max(1, facts.sample_frames),
    )
