"""`other_trainer_config`: The pasted config belongs to another trainer (sd-scripts, musubi-tuner,
diffusion-pipe), not AI Toolkit."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.rules.base import Placement, Role, RuleSpec, Verdict

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`. Only what a config or a command
# line of that trainer holds, never its name alone: "kohya fitted in 24 GB" is a comparison, not a
# config.
WORDS: dict[str, tuple[str, ...]] = {
    # kohya's sd-scripts: its TOML keys and command-line options, and its training scripts.
    "sd_scripts": (
        r"^\s*-{0,2}(?:train_batch_size|network_module|pretrained_model_name_or_path|train_data_dir|network_train_unet_only|cache_text_encoder_outputs|max_train_epochs|save_every_n_epochs|optimizer_type)\s*[=\s]",
        r"\b(?:sdxl_|flux_|sd3_|lumina_)?train_network\.py\b",
    ),
    # musubi-tuner: its per-model training scripts and its block swapping option.
    "musubi": (
        r"\b(?:wan|hv|fpack|qwen_image|flux_kontext|flux_2)_train_network\.py\b",
        r"(?:^|\s)--(?:dit|blocks_to_swap|vae_cache_cpu)\b",
    ),
    # diffusion-pipe: its TOML keys.
    "diffusion_pipe": (r"^\s*(?:micro_batch_size_per_gpu|pipeline_stages|activation_checkpointing)\s*=",),
}

# The more specific trainer first: musubi-tuner's scripts end like sd-scripts' own.
_TRAINERS = ("musubi", "diffusion_pipe", "sd_scripts")


def check_other_trainer(f: Facts) -> Finding | None:
    if f.config_parsed:
        return None  # an AI Toolkit config is there too: it is the one to check
    for trainer in _TRAINERS:
        heard = SPEC.heard(f, trainer)
        if heard is not None:
            return SPEC.finding(evidence=[heard], params={"trainer": trainer, "line": heard.text})
    return None


def heard_another_trainer(f: Facts) -> bool:
    """Whether the input is another trainer's config: asking for AI Toolkit's would not help."""
    return check_other_trainer(f) is not None


SPEC = RuleSpec(
    id="other_trainer_config",
    order=225,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("said", "config_parsed"),
    rank=0,
    check=check_other_trainer,
    params=frozenset({"trainer", "line"}),
    oom_checklist=False,
    role=Role.VERDICT,
    placement=Placement(first=5),
    verdict=Verdict(quote="line", quote_lang="", after=("explanation",), evidence=False, ends_checklist=True),
    words=WORDS,
)
