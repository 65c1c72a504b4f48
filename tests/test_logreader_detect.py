"""is_log_text: console output vs prose (English, Japanese) vs configs (YAML, JSON)."""

from __future__ import annotations

import pytest

from diagnosis.logreader.detect import is_log_text

LOGS = [
    'Traceback (most recent call last):\n  File "run.py", line 120, in <module>\n    main()\n',
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 MiB. GPU 0 has a total capacity "
    "of 39.38 GiB of which 3.81 MiB is free.",
    "Error running job: CUDA error: out of memory\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n",
    "Loading Flux2 model\nLoading transformer\nKeeping transformer on CPU for quantization\n",
    "Caching latents for /home/sam/train/pixelart\n - Saving latents to disk\n",
    "Bucket sizes for /data/x:\n1024x1024: 60 files\n1 buckets made\n",
    "my_lora:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01]",
    "Generating baseline samples before training\n",
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4     |\n",
    "Killed\n",
    "./train.sh: line 4: 20931 Killed                  python run.py config/x.yaml\n",
    "[Tue Apr 14 16:07:00 2026] Out of memory: Killed process 1067104 (python)\n",
    "ModuleNotFoundError: No module named 'optimum'\n",
    "OSError: The paging file is too small for this operation to complete. (os error 1455)\n",
    "Job process exited unexpectedly. Last log line: Loading transformer\n",
    "MemoryError\n",
    "\x1b[32mLoading transformer\x1b[0m\n",
]

PROSE = [
    "I keep on receiving Out of Memory errors when trying to train Qwen Image on my 4090.",
    "it gets stuck at loading transformer and then the UI says the job stopped. any idea?",
    "Since updating Ai-Toolkit today, I can no longer create Wan2.2 14B LoRA—always OOM.\n"
    "RTX 5090 - 32GB VRAM",
    "Z-Image Turbo のキャラLoRAなんですが、学習が始まった瞬間にOOMで止まります😭\n4090 (24GB) です。",
    "すみません、モデル読み込みの時点で CUDA out of memory になります。RAMは96GBです。",
    "Error: I don't know what went wrong, the whole thing just died.",
    "",
]

CONFIGS = [
    "---\njob: extension\nconfig:\n  name: \"mira_flux_v3\"\n  process:\n    - type: 'sd_trainer'\n"
    "      device: cuda:0\n      train:\n        batch_size: 4\n        gradient_checkpointing: false\n"
    '      sample:\n        prompts:\n          - "a photo of m1ra, loading a truck"\n',
    '{\n  "job": "extension",\n  "config": {\n    "name": "kanon_zit_v1",\n    "process": [\n'
    '      {"type": "diffusion_trainer", "device": "cuda", "train": {"batch_size": 4}}\n    ]\n  }\n}\n',
    '# Wan2.2 14B 画像LoRA用\njob: extension\nconfig:\n  name: "tsubaki"\n  process:\n'
    '    - datasets:\n        - folder_path: "/data/img"\n          resolution: [512, 768, 1024]\n',
]


@pytest.mark.parametrize("text", LOGS)
def test_logs_are_logs(text: str) -> None:
    assert is_log_text(text)


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_not_a_log(text: str) -> None:
    assert not is_log_text(text)


@pytest.mark.parametrize("text", CONFIGS)
def test_configs_are_not_logs(text: str) -> None:
    assert not is_log_text(text)


def test_log_after_prose_is_found() -> None:
    text = "my run died, log below\n\n" + LOGS[1]
    assert is_log_text(text)


def test_error_at_the_end_of_a_huge_text_is_found() -> None:
    text = "just some words\n" * 300_000 + LOGS[0]
    assert is_log_text(text)


def test_long_digit_runs_are_read_in_one_pass() -> None:
    # An unanchored `\d+ Killed` rescans a digit run from every start; this input would never return.
    assert is_log_text("CUDA out of memory. Tried to allocate 1" + "0" * 300_000 + " GiB\n")
    assert not is_log_text("1" * 300_000 + " Kill")
