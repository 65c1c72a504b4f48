"""The rule `regression_after_update` (diagnosis/rules/regression_after_update.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.engine import diagnose
from diagnosis.facts_model import Facts
from diagnosis.models import Evidence
from tests.rules.helpers import assert_said_in_both_languages, check


def test_regression_after_update() -> None:
    f = Facts(said={"regression_after_update.regression": "since updating it OOMs"})
    found = check("regression_after_update", f)
    assert found.params == {"quote": "since updating it OOMs"}
    assert found.evidence == [Evidence("user", None, "since updating it OOMs")]
    worked = {"regression_after_update.worked_before": "It worked before"}
    assert check("regression_after_update", Facts(said=worked)) is None
    same = worked | {"regression_after_update.same_settings": "same settings"}
    assert check("regression_after_update", Facts(said=same)).params == {"quote": "It worked before"}
    assert check("regression_after_update", Facts()) is None


def test_regression_is_said_in_both_languages() -> None:
    f = Facts(said={"regression_after_update.regression": "since updating it OOMs"})
    assert_said_in_both_languages("regression_after_update", f)


OOM = (
    "CUDA out of memory. Tried to allocate 2.03 GiB. GPU 0 has a total capacity of 31.84 GiB of which 0 bytes"
    " is free. Of the allocated memory 29.69 GiB is allocated by PyTorch, and 138.42 MiB is reserved by"
    " PyTorch but unallocated.\n"
)


@pytest.mark.parametrize(
    ("words", "heard"),
    [
        ("following an update, it is no longer possible to train Qwen image.", True),
        ("Following the latest update my Wan LoRA OOMs", True),
        ("Since I updated, Qwen Image runs out of memory", True),
        ("after we upgraded torch it crashes", True),
        ("Since an update a few months ago I can no longer train Qwen Image.", True),
        ("following the guide, I can't train Qwen Image on 32 GB", False),
        ("I updated my dataset captions and now it runs out of memory", False),
    ],
)
def test_the_words_of_an_update(words: str, heard: bool) -> None:
    report = diagnose([words + "\n" + OOM], sources=["message"])
    assert ("regression_after_update" in {f.rule_id for f in report.findings}) is heard
