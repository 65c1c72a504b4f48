"""The key names that make a mapping an AI Toolkit job, process or section (config-reference §1).

Intake uses them to tell a pasted config from any other YAML-looking text, and the parser uses them to
pick the job document and the training process. Counting *known* keys, rather than trusting that
something parses as YAML, is what keeps prose such as "Note: it crashed" from becoming a config.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

JOB_KEYS = frozenset({"job", "config", "meta", "process"})
SECTION_KEYS = frozenset({"train", "model", "network", "datasets", "sample", "save", "logging"})
PROCESS_KEYS = SECTION_KEYS | frozenset(
    {
        "type",
        "training_folder",
        "device",
        "trigger_word",
        "performance_log_every",
        "sqlite_db_path",
        "first_sample",
        "adapter",
        "embedding",
        "decorator",
        "guidance",
        "slider",
    }
)
TRAINER_TYPES = frozenset({"sd_trainer", "diffusion_trainer", "ui_trainer", "textual_inversion_trainer"})

# Keys that only occur inside a section; seeing several of them is as good as seeing the section name.
SUB_KEYS = frozenset(
    {
        # train
        "batch_size",
        "gradient_accumulation",
        "gradient_accumulation_steps",
        "gradient_checkpointing",
        "optimizer",
        "optimizer_params",
        "lr",
        "steps",
        "train_unet",
        "train_text_encoder",
        "unload_text_encoder",
        "cache_text_embeddings",
        "disable_sampling",
        "skip_first_sample",
        "noise_scheduler",
        "timestep_type",
        "ema_config",
        "dtype",
        "content_or_style",
        "switch_boundary_every",
        # model
        "name_or_path",
        "arch",
        "quantize",
        "qtype",
        "quantize_te",
        "qtype_te",
        "low_vram",
        "layer_offloading",
        "is_flux",
        "is_xl",
        "is_v3",
        "is_lumina2",
        "assistant_lora_path",
        "model_kwargs",
        # network
        "linear",
        "linear_alpha",
        "rank",
        "conv",
        "conv_alpha",
        "lokr_full_rank",
        "lokr_factor",
        "network_kwargs",
        # datasets
        "folder_path",
        "caption_ext",
        "caption_dropout_rate",
        "resolution",
        "cache_latents",
        "cache_latents_to_disk",
        "num_frames",
        "control_path",
        "shuffle_tokens",
        # sample
        "sampler",
        "sample_every",
        "sample_steps",
        "width",
        "height",
        "prompts",
        "samples",
        "guidance_scale",
        "walk_seed",
        "neg",
        # save
        "save_every",
        "max_step_saves_to_keep",
        "save_format",
        "push_to_hub",
    }
)
ALL_KEYS = JOB_KEYS | PROCESS_KEYS | SUB_KEYS


def key_score(keys: Iterable[str]) -> int:
    """How strongly a set of key names says "AI Toolkit config": sections and job keys count double."""
    score = 0
    for key in set(keys):
        if key in JOB_KEYS or key in SECTION_KEYS:
            score += 2
        elif key in ALL_KEYS:
            score += 1
    return score


# A config needs at least this score: one section with one known sub-key, or three known sub-keys.
MIN_CONFIG_SCORE = 3


def collect_keys(data: Any, limit: int = 2_000) -> list[str]:
    """Mapping keys of `data`, breadth first, at most `limit` of them (iterative, bounded)."""
    out: list[str] = []
    queue: deque[Any] = deque([data])
    visited = 0
    while queue and len(out) < limit and visited < limit:
        node = queue.popleft()
        visited += 1
        if isinstance(node, Mapping):
            for key, value in node.items():
                if isinstance(key, str):
                    out.append(key)
                if isinstance(value, (Mapping, list)):
                    queue.append(value)
        elif isinstance(node, list):
            queue.extend(item for item in node[:limit] if isinstance(item, (Mapping, list)))
    return out[:limit]


def looks_like_config(data: Any) -> bool:
    return isinstance(data, Mapping) and key_score(collect_keys(data)) >= MIN_CONFIG_SCORE
