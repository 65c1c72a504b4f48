"""The rule `optimizer_full_precision_states` (diagnosis/rules/optimizer_full_precision_states.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from tests.rules.helpers import (
    LANGS,
    assert_fix_clears,
    assert_missing_key_is_said_missing,
    assert_said_in_both_languages,
    check,
    facts,
    shipped,
)


def test_optimizer_full_precision_on_full_finetune() -> None:
    found = check("optimizer_full_precision_states", facts(optimizer="adamw", full_finetune=True))
    assert found.edits[0].value == "adamw8bit"


def test_optimizer_adamw_on_small_lora_is_fine() -> None:
    assert check("optimizer_full_precision_states", facts(optimizer="adamw", network_rank=16)) is None


def test_optimizer_is_said_in_both_languages() -> None:
    f = facts(optimizer="adamw", full_finetune=True)
    assert_said_in_both_languages("optimizer_full_precision_states", f)


def test_optimizer_fix_keeps_its_states_in_8_bit() -> None:
    # A LoRA of rank 128 on a 12B model: its Adam states are big enough to matter.
    text = shipped(
        "train_lora_flux_24gb",
        ("optimizer: adamw8bit", "optimizer: adamw"),
        ("linear: 16", "linear: 128"),
        ("linear_alpha: 16", "linear_alpha: 128"),
    )
    assert_fix_clears("optimizer_full_precision_states", text, vram_gib=48)


@pytest.mark.parametrize("lang", LANGS)
def test_a_missing_optimizer_is_said_missing_not_quoted_as_its_section_header(lang: str) -> None:
    assert_missing_key_is_said_missing("optimizer_full_precision_states", "optimizer", lang)
