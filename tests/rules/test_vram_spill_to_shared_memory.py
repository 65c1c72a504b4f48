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
