"""Config texts in the styles users paste (written for these tests after config-reference §3 and §6).

Shared by the parser, editor and intake tests, with `parse` for the first two; this module holds no
tests itself.
"""

from __future__ import annotations

from diagnosis.config.parse import parse_config
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.models import ConfigDoc, Piece, PieceKind


def parse(text: str, kind: PieceKind = PieceKind.CONFIG_YAML, limits: Limits = DEFAULT_LIMITS) -> ConfigDoc:
    """`text` parsed as a config piece of its own (input 0, no line offset)."""
    return parse_config(Piece(kind=kind, text=text, source="test", input_index=0, line_offset=0), limits)


# The shape of the shipped `train_lora_flux_24gb.yaml`: legacy `is_flux`, comments everywhere, a
# commented-out low_vram, a flow list of buckets, exponent learning rate.
FLUX_24GB = """\
---
job: extension
config:
  # this name will be the folder and filename name
  name: "my_first_flux_lora_v1"
  process:
    - type: 'sd_trainer'
      # root folder to save training sessions/samples/weights
      training_folder: "output"
      # uncomment to see performance stats in the terminal every N steps
#      performance_log_every: 1000
      device: cuda:0
      # trigger_word: "p3r5on"
      network:
        type: "lora"
        linear: 16
        linear_alpha: 16
      save:
        dtype: float16 # precision to save
        save_every: 250 # save every this many steps
        max_step_saves_to_keep: 4 # how many intermittent saves to keep
        push_to_hub: false #change this to True to push your trained model to Hugging Face.
      datasets:
        - folder_path: "/path/to/images/folder"
          caption_ext: "txt"
          caption_dropout_rate: 0.05  # will drop out the caption 5% of time
          shuffle_tokens: false  # shuffle caption order, split by commas
          cache_latents_to_disk: true  # leave this true unless you know what you're doing
          resolution: [ 512, 768, 1024 ]  # flux enjoys multiple resolutions
      train:
        batch_size: 1
        steps: 2000  # total number of steps to train 500 - 4000 is a good range
        gradient_accumulation_steps: 1
        train_unet: true
        train_text_encoder: false  # probably won't work with flux
        gradient_checkpointing: true  # need the on unless you have a ton of vram
        noise_scheduler: "flowmatch" # for training only
        optimizer: "adamw8bit"
        lr: 1e-4
        # uncomment this to skip the pre training sample
#        skip_first_sample: true
        # ema will smooth out learning, but could slow it down.
        ema_config:
          use_ema: true
          ema_decay: 0.99
        # will probably need this if gpu supports it for flux, other dtypes may not work correctly
        dtype: bf16
      model:
        # huggingface model name or path
        name_or_path: "black-forest-labs/FLUX.1-dev"
        is_flux: true
        quantize: true  # run 8bit mixed precision
#        low_vram: true  # uncomment this if the GPU is connected to your monitors.
      sample:
        sampler: "flowmatch" # must match train.noise_scheduler
        sample_every: 250 # sample every this many steps
        width: 1024
        height: 1024
        prompts:
          - "woman with red hair, playing chess at the park, bomb going off in the background"
          - "a woman holding a coffee cup, in a beanie, sitting at a cafe"
        neg: ""  # not used on flux
        seed: 42
        walk_seed: true
        guidance_scale: 4
        sample_steps: 20
# you can add any additional meta info here. [name] is replaced with config name at top
meta:
  name: "[name]"
  version: '1.0'
"""

# Qwen-Image at 24 GB: the ARA qtype string holds a `|`, low_vram and cached text embeddings are on.
QWEN_IMAGE_24GB = """\
---
job: extension
config:
  name: "my_first_qwen_image_lora_v1"
  process:
    - type: 'sd_trainer'
      training_folder: "output"
      device: cuda:0
      network:
        type: "lora"
        linear: 16
        linear_alpha: 16
      save:
        dtype: float16
        save_every: 250
        max_step_saves_to_keep: 4
      datasets:
        - folder_path: "/path/to/images/folder"
          caption_ext: "txt"
          caption_dropout_rate: 0.05
          cache_latents_to_disk: true
          resolution: [ 512, 768, 1024 ]  # if you OOM, 1024 may be too much
      train:
        batch_size: 1
        # caching text embeddings is required for 24GB
        cache_text_embeddings: true
        steps: 3000
        gradient_accumulation: 1
        timestep_type: "weighted"
        train_unet: true
        train_text_encoder: false
        gradient_checkpointing: true
        noise_scheduler: "flowmatch"
        optimizer: "adamw8bit"
        lr: 1e-4
        dtype: bf16
      model:
        name_or_path: "Qwen/Qwen-Image"
        arch: "qwen_image"
        quantize: true
        # 3 bit is required for 24GB
        qtype: "uint3|ostris/accuracy_recovery_adapters/qwen_image_torchao_uint3.safetensors"
        quantize_te: true
        qtype_te: "qfloat8"
        low_vram: true
      sample:
        sampler: "flowmatch"
        sample_every: 250
        width: 1024
        height: 1024
        samples:
          - prompt: "a cat sitting on a windowsill, evening light"
          - prompt: "a lighthouse on a cliff during a storm"
        neg: ""
        seed: 42
        walk_seed: true
        guidance_scale: 3
        sample_steps: 25
meta:
  name: "[name]"
  version: '1.0'
"""

# Wan 2.2 14B for images: tagged arch-free style, model_kwargs, switch_boundary_every.
WAN22_14B_24GB = """\
job: extension
config:
  name: "wan22_character"
  process:
    - type: 'sd_trainer'
      training_folder: "output"
      device: cuda:0
      network:
        type: "lora"
        linear: 32
        linear_alpha: 32
      save:
        dtype: float16
        save_every: 250
      datasets:
        - folder_path: "/data/character"
          caption_ext: "txt"
          num_frames: 1
          resolution: [ 512, 768, 1024 ]
      train:
        batch_size: 1
        steps: 2500
        gradient_accumulation: 1
        train_unet: true
        train_text_encoder: false
        gradient_checkpointing: true
        noise_scheduler: "flowmatch"
        optimizer: "adamw8bit"
        lr: 1e-4
        # use either unload or cache, not both
        cache_text_embeddings: true
        switch_boundary_every: 10
        dtype: bf16
      model:
        name_or_path: "ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16"
        arch: 'wan22_14b'
        quantize: true
        qtype: "uint4|ostris/accuracy_recovery_adapters/wan22_14b_t2i_torchao_uint4.safetensors"
        quantize_te: true
        qtype_te: "qfloat8"
        low_vram: true
        model_kwargs:
          train_high_noise: true
          train_low_noise: true
      sample:
        sampler: "flowmatch"
        sample_every: 250
        width: 1024
        height: 1024
        num_frames: 1
        prompts:
          - "a woman in a red coat walking through snow"
        sample_steps: 25
"""

# The UI's `.job_config.json`: the whole job, 2-space indent, lists one item per line.
UI_JOB_JSON = """\
{
  "job": "extension",
  "config": {
    "name": "ui_lora",
    "process": [
      {
        "type": "diffusion_trainer",
        "training_folder": "/home/user/ai-toolkit/output",
        "sqlite_db_path": "./aitk_db.db",
        "device": "cuda",
        "trigger_word": null,
        "performance_log_every": 10,
        "network": {
          "type": "lora",
          "linear": 32,
          "linear_alpha": 32
        },
        "save": {
          "dtype": "bf16",
          "save_every": 250,
          "max_step_saves_to_keep": 4
        },
        "datasets": [
          {
            "folder_path": "/home/user/ai-toolkit/datasets/cat",
            "caption_ext": "txt",
            "cache_latents_to_disk": true,
            "resolution": [
              512,
              768,
              1024
            ]
          }
        ],
        "train": {
          "batch_size": 4,
          "steps": 3000,
          "gradient_accumulation": 1,
          "train_unet": true,
          "train_text_encoder": false,
          "gradient_checkpointing": false,
          "noise_scheduler": "flowmatch",
          "optimizer": "adamw8bit",
          "lr": 0.0001,
          "dtype": "bf16"
        },
        "model": {
          "name_or_path": "Tongyi-MAI/Z-Image-Turbo",
          "arch": "zimage:turbo",
          "quantize": true,
          "qtype": "qfloat8",
          "low_vram": false
        },
        "sample": {
          "sampler": "flowmatch",
          "sample_every": 250,
          "width": 1024,
          "height": 1024,
          "samples": [
            {
              "prompt": "a cat in a hat"
            }
          ],
          "sample_steps": 9
        }
      }
    ]
  },
  "meta": {
    "name": "[name]",
    "version": "1.0"
  }
}
"""

# What the trainer echoes near the top of log.txt: process[0] only, 4-space indent.
ECHOED_PROCESS_JSON = """\
{
    "type": "ui_trainer",
    "training_folder": "C:\\\\ai-toolkit\\\\output",
    "device": "cuda:0",
    "network": {
        "type": "lora",
        "linear": 16,
        "linear_alpha": 16
    },
    "datasets": [
        {
            "folder_path": "C:\\\\data\\\\dogs",
            "resolution": [512, 768, 1024]
        }
    ],
    "train": {
        "batch_size": 2,
        "steps": 2000,
        "gradient_checkpointing": true,
        "optimizer": "adamw8bit",
        "lr": 1e-4
    },
    "model": {
        "name_or_path": "black-forest-labs/FLUX.1-dev",
        "is_flux": true,
        "quantize": true
    }
}
"""

# A bare `train:` section copied out of a larger file.
TRAIN_FRAGMENT = """\
train:
  batch_size: 4   # bumped from 1
  steps: 3000
  gradient_checkpointing: false
  optimizer: "adamw8bit"
  lr: 1e-4
"""
