"""Restraint: the memory settings of AI Toolkit's shipped examples, on the card each is written for,
raise nothing (config-reference §3). A rule that flags them would flag every user who followed them."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from tests.rules.helpers import EXAMPLES, job


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_shipped_example_on_its_card_raises_nothing(name: str) -> None:
    report = diagnose([job(EXAMPLES[name])], gpu_vram_gib=EXAMPLES[name][0])
    assert report.config is not None and report.config.ok
    assert [f.rule_id for f in report.findings] == []


def test_the_same_example_on_a_smaller_card_is_flagged() -> None:
    report = diagnose([job(EXAMPLES["train_lora_qwen_image_edit_2509_32gb"])], gpu_vram_gib=24)
    assert "bucket_too_large" in [f.rule_id for f in report.findings]
