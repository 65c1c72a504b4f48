"""Restraint: the memory settings of AI Toolkit's shipped examples, on the card each is written for,
raise nothing (config-reference §3). A rule that flags them would flag every user who followed them."""

from __future__ import annotations

import pytest

from diagnosis import diagnose

_TEMPLATE = """\
job: extension
config:
  name: example
  process:
    - type: sd_trainer
      network:
        type: lora
        linear: {rank}
        linear_alpha: {rank}
      datasets:
        - folder_path: /data
          caption_dropout_rate: 0.05
          cache_latents_to_disk: true
          resolution: {resolution}
          num_frames: 1
      train:
        batch_size: 1
        gradient_checkpointing: true
        optimizer: adamw8bit
        dtype: bf16
{train}
      model:
{model}
      sample:
        width: 1024
        height: 1024
        sample_every: 250
        sample_steps: 25
        num_frames: 1
        prompts: [a, b, c, d, e, f, g, h, i, j]
"""

Example = tuple[float, int, str, list[str], list[str]]  # VRAM, rank, resolution, train keys, model keys

EXAMPLES: dict[str, Example] = {
    "train_lora_flux_24gb": (
        24, 16, "[512, 768, 1024]", [],
        ["name_or_path: black-forest-labs/FLUX.1-dev", "is_flux: true", "quantize: true"],
    ),
    "train_lora_flex_24gb": (
        24, 16, "[512, 768, 1024]", [],
        ["name_or_path: ostris/Flex.1-alpha", "is_flux: true", "quantize: true"],
    ),
    "train_lora_chroma_24gb": (
        24, 16, "[512, 768, 1024]", [], ["name_or_path: lodestones/Chroma", "arch: chroma", "quantize: true"]
    ),
    "train_lora_flux_kontext_24gb": (
        24, 16, "[512, 768]", [],
        ["name_or_path: black-forest-labs/FLUX.1-Kontext-dev", "arch: flux_kontext", "quantize: true"],
    ),
    "train_lora_qwen_image_24gb": (
        24, 16, "[512, 768, 1024]", ["cache_text_embeddings: true"],
        ["name_or_path: Qwen/Qwen-Image", "arch: qwen_image", "quantize: true", "qtype: uint3",
         "low_vram: true"],
    ),
    "train_lora_qwen_image_edit_2509_32gb": (
        32, 16, "[512, 768, 1024]", ["cache_text_embeddings: true"],
        ["name_or_path: Qwen/Qwen-Image-Edit-2509", "arch: qwen_image_edit_plus", "quantize: true",
         "qtype: uint3", "low_vram: true"],
    ),
    "train_lora_wan22_14b_24gb": (
        24, 32, "[512, 768, 1024]", ["cache_text_embeddings: true"],
        ["name_or_path: ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16", "arch: wan22_14b", "quantize: true",
         "qtype: uint4", "low_vram: true"],
    ),
    "train_lora_wan21_14b_24gb": (
        24, 32, "[632]", ["unload_text_encoder: true"],
        ["name_or_path: Wan-AI/Wan2.1-T2V-14B-Diffusers", "arch: wan21", "quantize: true", "low_vram: true"],
    ),
    "train_lora_sd35_large_24gb": (
        24, 16, "[1024]", [],
        ["name_or_path: stabilityai/stable-diffusion-3.5-large", "is_v3: true", "quantize: true"],
    ),
    "train_lora_hidream_48": (
        48, 32, "[512, 768, 1024]", [],
        ["name_or_path: HiDream-ai/HiDream-I1-Full", "arch: hidream", "quantize: true", "quantize_te: true"],
    ),
}  # fmt: skip


def _job(example: Example) -> str:
    _, rank, resolution, train, model = example
    pad = " " * 8
    return _TEMPLATE.format(
        rank=rank,
        resolution=resolution,
        train="\n".join(pad + line for line in train),
        model="\n".join(pad + line for line in model),
    )


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_shipped_example_on_its_card_raises_nothing(name: str) -> None:
    report = diagnose([_job(EXAMPLES[name])], gpu_vram_gib=EXAMPLES[name][0])
    assert report.config is not None and report.config.ok
    assert [f.rule_id for f in report.findings] == []


def test_the_same_example_on_a_smaller_card_is_flagged() -> None:
    report = diagnose([_job(EXAMPLES["train_lora_qwen_image_edit_2509_32gb"])], gpu_vram_gib=24)
    assert "bucket_too_large" in [f.rule_id for f in report.findings]
