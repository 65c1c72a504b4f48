"""`vram_spill_to_shared_memory`: on Windows, a run that crawls without an error is the NVIDIA driver's
fallback to system memory; the reply says how to make it fail fast instead, then how to make it fit."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.render import render_cli

SLOW_LOG = "\n".join(
    [
        "Running 1 job",
        "Loading Qwen Image model",
        "my_lora:   1%|          | 10/2000 [00:40<2:10:00,  4.00s/it, lr: 1.0e-04 loss: 1.2e-01]",
        "my_lora:   1%|          | 20/2000 [01:20<2:10:00,  4.10s/it, lr: 1.0e-04 loss: 1.1e-01]",
        "my_lora:   2%|▏         | 30/2000 [02:00<2:10:00,  3.90s/it, lr: 1.0e-04 loss: 1.1e-01]",
        "my_lora:   2%|▏         | 40/2000 [05:00<9:10:00, 19.50s/it, lr: 1.0e-04 loss: 1.0e-01]",
        "my_lora:   3%|▎         | 50/2000 [09:00<14:10:00, 25.10s/it, lr: 1.0e-04 loss: 1.0e-01]",
        "my_lora:   3%|▎         | 60/2000 [13:00<15:10:00, 24.80s/it, lr: 1.0e-04 loss: 1.0e-01]",
    ]
)


def ids(text: str) -> set[str]:
    return {f.rule_id for f in diagnose([text]).findings}


def test_a_measured_slowdown_on_windows_is_a_spill_beside_the_verdict() -> None:
    found = ids("Windows 11, RTX 4070 12GB. Training got really slow after step 30:\n" + SLOW_LOG)
    assert {"vram_spill_to_shared_memory", "not_oom"} <= found


@pytest.mark.parametrize(
    "words",
    [
        "Training speed degrades with GPU power and temperature drop. Windows 11, RTX 3060 12GB",
        "学習がとても遅くなりました。共有GPUメモリが増えています。Windows 11、4060 Ti 16GB です",
    ],
)
def test_a_slowdown_in_words_on_windows_is_a_spill(words: str) -> None:
    assert "vram_spill_to_shared_memory" in ids(words)


@pytest.mark.parametrize(
    "words",
    [
        "Training is slow on my RTX 3060 12GB under Ubuntu",  # Linux: the driver has no such fallback
        "Windows 11, A6000 48GB: training is slow",  # a card this large rarely spills
        "Windows 11, 3060 12GB: CUDA out of memory at step 3, and it was slow before",  # an OOM is an OOM
    ],
)
def test_no_spill_without_windows_on_a_large_card_or_with_an_oom(words: str) -> None:
    assert "vram_spill_to_shared_memory" not in ids(words)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_reply_says_how_to_turn_the_fallback_off_then_how_to_fit(lang: str) -> None:
    report = diagnose(["Windows 11, RTX 3060 12GB: training speed degrades, GPU power drops to 60 W"])
    text = render_cli(report, lang=lang)
    assert "Sysmem" in text or "システム メモリ フォールバック" in text
    assert "1. " in text  # the verdict is no step: the spill is step 1
    assert ("Low VRAM" in text) and ("Quantize" in text)
    first = text.splitlines()[0]
    assert (
        ("not an out-of-memory error" in first)
        if lang == "en"
        else ("メモリ不足のエラーではありません" in first)
    )


STUCK_AT_BASELINE = (
    "When training a FLUX LoRA, the process gets stuck at the baseline samples for hours with no errors, "
    "even though the GPU is being utilized.\nI am using Windows 11.\n"
    "Generating baseline samples before training\n"
    "Generating Images:   0%|          | 0/1 [00:00<?, ?it/s]\n"
)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_stall_with_the_gpu_busy_on_windows_is_a_spill_said_as_a_stall(lang: str) -> None:
    report = diagnose([STUCK_AT_BASELINE], locale=lang)
    (spill,) = [f for f in report.findings if f.rule_id == "vram_spill_to_shared_memory"]
    assert spill.params.get("stalled") is True
    # The first change to try, before the preview is made lighter (the verdict comes before both).
    order = [rid for step in report.ladder for rid in step.rule_ids if rid != "not_oom"]
    assert order[:2] == ["vram_spill_to_shared_memory", "preview_heavy"]
    text = render_cli(report, lang=lang)
    # Its own wording: "the GPU looks idle" would contradict what the user saw.
    assert ("looks stuck" if lang == "en" else "止まっているように見えます") in text
    assert ("the GPU looks idle" if lang == "en" else "ほとんど働いていないように見えます") not in text


@pytest.mark.parametrize(
    "text",
    [
        STUCK_AT_BASELINE.replace("Windows 11", "Ubuntu 22.04"),  # no driver fallback on Linux
        STUCK_AT_BASELINE.replace("even though the GPU is being utilized", "and the GPU sits idle"),
    ],
)
def test_a_stall_is_not_a_spill_without_windows_and_a_busy_gpu(text: str) -> None:
    assert "vram_spill_to_shared_memory" not in ids(text)
