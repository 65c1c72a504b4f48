"""The rule `gpu_not_visible` (diagnosis/rules/gpu_not_visible.py): PyTorch does not see the GPU — a
CPU-only build, no driver, WSL without the card — said from the error line or the user's words."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.render import render_cli
from tests.rules.helpers import check, facts

NO_CUDA_LOG = (
    "Running 1 job\nLoading Flux model\nTraceback (most recent call last):\n"
    '  File "/ai-toolkit/run.py", line 90, in <module>\n    main()\n'
    "AssertionError: Torch not compiled with CUDA enabled\n"
)


def ids(text: str) -> set[str]:
    return {f.rule_id for f in diagnose([text]).findings}


def test_the_error_line_of_a_cpu_only_pytorch() -> None:
    found = ids(NO_CUDA_LOG)
    assert {"gpu_not_visible", "not_oom"} <= found


@pytest.mark.parametrize(
    "words",
    [
        "training runs on the CPU, 300 s/it, my 4090 is not being used",
        "WSL doesn't see my GPU, cuda is not available",
        "学習が遅いです。GPU が使われていないようです",
    ],
)
def test_the_users_words(words: str) -> None:
    assert "gpu_not_visible" in ids(words)


@pytest.mark.parametrize(
    "words",
    [
        "I use the GPU for training and it is slow",
        "RuntimeError: CUDA error: unknown error",
        "GPU usage 99 %",
    ],
)
def test_no_finding_when_the_gpu_is_in_use(words: str) -> None:
    assert "gpu_not_visible" not in ids(words)
    assert check("gpu_not_visible", facts()) is None


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_reply_says_how_to_check_torch_in_both_languages(lang: str) -> None:
    text = render_cli(diagnose([NO_CUDA_LOG]), lang=lang)
    assert "torch.cuda.is_available()" in text
    assert ("reinstall PyTorch" in text) if lang == "en" else ("入れ直します" in text)
