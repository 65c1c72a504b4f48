"""The rule `train_text_encoder_on` (diagnosis/rules/train_text_encoder_on.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from tests.rules.helpers import assert_fix_clears, assert_said_in_both_languages, check, facts, shipped


def test_train_text_encoder_on_big_model() -> None:
    assert check("train_text_encoder_on", facts(train_text_encoder=True)) is not None
    assert check("train_text_encoder_on", facts(train_text_encoder=False)) is None


def test_train_text_encoder_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("train_text_encoder_on", facts(train_text_encoder=True))


def test_train_text_encoder_fix_turns_it_off() -> None:
    on = ("optimizer: adamw8bit", "optimizer: adamw8bit\n        train_text_encoder: true")
    text = shipped("train_lora_flux_24gb", on)
    assert_fix_clears("train_text_encoder_on", text)
