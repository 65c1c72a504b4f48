"""vram_of_gpu_name: GPU names in any text → (canonical name, GB)."""

from __future__ import annotations

import pytest

from diagnosis.logreader.gpus import GPU_TABLE, GpuModel, vram_of_gpu_name

NAMED = [
    ("4090", "RTX 4090", 24.0),
    ("RTX 3060", "RTX 3060", 12.0),
    ("GeForce 3060 12GB VRAM - 64GB RAM", "RTX 3060", 12.0),
    ("3090", "RTX 3090", 24.0),
    ("RTX 5090 - 32GB VRAM", "RTX 5090", 32.0),
    ("5080 16gb/32gb", "RTX 5080", 16.0),
    ("(5070ti, 16GB)", "RTX 5070 Ti", 16.0),
    ("NVIDIA GeForce RTX 4070 Ti SUPER", "RTX 4070 Ti Super", 16.0),
    ("4070 Ti", "RTX 4070 Ti", 12.0),
    ("4080", "RTX 4080", 16.0),
    ("4060Ti 16GB", "RTX 4060 Ti", 16.0),
    ("on an A6000", "RTX A6000", 48.0),
    ("NVIDIA RTX A6000", "RTX A6000", 48.0),
    ("NVIDIA A100-SXM4-40GB", "A100", 40.0),
    ("A100 80GB PCIe", "A100", 80.0),
    ("NVIDIA H100 80GB HBM3", "H100", 80.0),
    ("L40S", "L40S", 48.0),
    ("card is a 6000 RTX PRO 96GB RAM", "RTX PRO 6000", 96.0),
    ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", 48.0),
    ("NVIDIA Quadro RTX 6000", "Quadro RTX 6000", 24.0),  # brand words that are part of a row's name
    ("Quadro RTX 6000 24GB", "Quadro RTX 6000", 24.0),
    ("|   0  NVIDIA TITAN RTX     Off |", "Titan RTX", 24.0),
    ("RTX 6000", "RTX 6000 Ada", 48.0),
    ("rtx4090", "RTX 4090", 24.0),
    ("a RTX 2000E with only 16 GB VRAM", "RTX 2000 Ada", 16.0),
    ("Tesla T4", "T4", 16.0),
    ("RX 7900 XTX", "RX 7900 XTX", 24.0),
    ("4090 (24GB) です。", "RTX 4090", 24.0),
    ("|   0  NVIDIA GeForce RTX 3090 Ti     Off |", "RTX 3090 Ti", 24.0),
]

NOT_NAMED = [
    "width: 1080",
    "my_lora:  60%|██████    | 3090/5000 [1:10:42<...]",
    "1920x1080",
    "Process 654925 has 5.68 GiB memory in use.",
    "lr 4090.5",
    "no gpu mentioned here at all",
    "",
    "I trained 3000 steps and at step 2080 it crashed",
    "INFO:root:step 3090 done in 1.2s",
    "see issue #4090 for details",
    "[2026-11-30 01:02:03] epoch 3060 loss 0.123",
    "Saving at step 4080",
    "it saved 5090 steps",
    "[10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01]",
    "resolution: 4090",
]


@pytest.mark.parametrize(("text", "name", "gb"), NAMED)
def test_names(text: str, name: str, gb: float) -> None:
    assert vram_of_gpu_name(text) == (name, gb)


@pytest.mark.parametrize("text", NOT_NAMED)
def test_not_a_card(text: str) -> None:
    assert vram_of_gpu_name(text) is None


def test_a_count_before_the_card_does_not_hide_it() -> None:
    assert vram_of_gpu_name("after 2080 steps my 4090 ran out") == ("RTX 4090", 24.0)


def test_first_named_card_wins() -> None:
    assert vram_of_gpu_name("moved from a 3060 to a 4090") == ("RTX 3060", 12.0)


def test_stated_size_outside_the_card_sizes_is_ignored() -> None:
    assert vram_of_gpu_name("4090 128GB RAM") == ("RTX 4090", 24.0)


@pytest.mark.parametrize("row", GPU_TABLE, ids=lambda row: row.name)
def test_every_row_is_found_by_its_own_name(row: GpuModel) -> None:
    """No row is shadowed by another or missed by the scan (which starts from model numbers and words)."""
    for text in (row.name, f"NVIDIA {row.name}", f"my {row.name.upper()} card"):
        assert vram_of_gpu_name(text) == (row.name, float(row.gb)), text
