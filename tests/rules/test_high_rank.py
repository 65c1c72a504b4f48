"""The rule `high_rank` (diagnosis/rules/high_rank.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from tests.rules.helpers import assert_fix_clears, assert_said_in_both_languages, check, facts, shipped


def test_high_rank_keeps_alpha_ratio() -> None:
    f = facts(network_rank=128, network_alpha=128.0)
    f.paths["network_rank"] = ("network", "linear")
    f.paths["network_alpha"] = ("network", "linear_alpha")
    edits = {e.path: e.value for e in check("high_rank", f).edits}
    assert edits == {("network", "linear"): 64, ("network", "linear_alpha"): 64}


def test_high_rank_fine_on_48gb() -> None:
    assert check("high_rank", facts(network_rank=128, vram_gib=48.0)) is None


def test_high_rank_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("high_rank", facts(network_rank=128, network_alpha=128.0))


def test_high_rank_fix_lowers_the_rank() -> None:
    rank = (("linear: 16", "linear: 128"), ("linear_alpha: 16", "linear_alpha: 128"))
    text = shipped("train_lora_flux_24gb", *rank)
    assert_fix_clears("high_rank", text)
