"""The rule `other_trainer_config` (diagnosis/rules/other_trainer_config.py): another trainer's config
(sd-scripts, musubi-tuner, diffusion-pipe) is named as such, with that trainer's own memory levers,
never an AI Toolkit checklist or a request for AI Toolkit's YAML; a mere mention of another trainer
is not a config."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.render import render_cli
from tests.rules.helpers import LANGS, assert_said_in_both_languages, shipped

KOHYA = """I ran sdxl_train_network.py on 12GB and it runs out of memory
```
pretrained_model_name_or_path = "stabilityai/stable-diffusion-xl-base-1.0"
resolution = "1024,1024"
train_batch_size = 2
network_module = "networks.lora"
gradient_checkpointing = true
```
"""
# musubi-tuner's command lines carry sd-scripts' options too: the more specific trainer is named.
MUSUBI = (
    "Training Wan 2.1 with it, it runs out of memory. My command:\n"
    "python wan_train_network.py --task t2v-14B --dit wan2.1_t2v_14B_bf16.safetensors --blocks_to_swap 20\n"
    "  --network_module networks.lora_wan --network_dim 32\n"
    "  --optimizer_type adamw8bit --max_train_epochs 16\n"
)
PIPE = "my diffusion-pipe config OOMs\n```\nmicro_batch_size_per_gpu = 4\npipeline_stages = 1\n```\n"


def ids(text: str) -> list[str]:
    return [f.rule_id for f in diagnose([text]).findings]


@pytest.mark.parametrize(
    ("text", "trainer"), [(KOHYA, "sd_scripts"), (MUSUBI, "musubi"), (PIPE, "diffusion_pipe")]
)
def test_another_trainers_config_is_named(text: str, trainer: str) -> None:
    report = diagnose([text])
    (found,) = [f for f in report.findings if f.rule_id == "other_trainer_config"]
    assert found.params["trainer"] == trainer
    # No AI Toolkit checklist, and no request for AI Toolkit's YAML.
    assert "input_incomplete" not in ids(text)
    assert not report.ladder or all("other_trainer_config" in s.rule_ids for s in report.ladder[:1])


@pytest.mark.parametrize(
    "text",
    [
        "kohya fitted this in 24 GB, AI Toolkit runs out of memory. Flux LoRA, batch 1",
        "I moved from sd-scripts to AI Toolkit and get OOM at step 2",
        # An AI Toolkit config is the one to check, even beside a word of another trainer.
        shipped("train_lora_flux_24gb", ("batch_size: 1", "batch_size: 8"))
        + "\nin kohya this worked:\ntrain_batch_size = 2\n",
    ],
)
def test_a_mention_of_another_trainer_is_not_its_config(text: str) -> None:
    assert "other_trainer_config" not in ids(text)


@pytest.mark.parametrize("lang", LANGS)
def test_the_reply_names_the_trainer_and_its_own_levers(lang: str) -> None:
    text = render_cli(diagnose([KOHYA], locale=lang), lang=lang)
    first = text.splitlines()[0]
    assert ("kohya's sd-scripts" if lang == "en" else "kohya の sd-scripts") in first
    assert "network_train_unet_only" in text and "cache_text_encoder_outputs" in text
    assert "Show Advanced" not in text


def test_other_trainer_config_is_said_in_both_languages() -> None:
    from diagnosis.facts_model import Facts

    f = Facts(said={"other_trainer_config.sd_scripts": "train_batch_size = 2"})
    assert_said_in_both_languages("other_trainer_config", f)
