"""The rule `latents_not_cached` (diagnosis/rules/latents_not_cached.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from tests.rules.helpers import assert_fix_clears, assert_said_in_both_languages, check, facts, shipped


def test_latents_not_cached() -> None:
    f = facts(latents_cached=False)
    f.datasets[0].latents_cached = False
    found = check("latents_not_cached", f)
    assert [(e.path, e.value) for e in found.edits] == [(("datasets", 0, "cache_latents_to_disk"), True)]


def test_latents_cached() -> None:
    assert check("latents_not_cached", facts()) is None


def test_latents_are_said_in_both_languages() -> None:
    f = facts(latents_cached=False)
    f.datasets[0].latents_cached = False
    assert_said_in_both_languages("latents_not_cached", f)


def test_latents_fix_caches_them() -> None:
    text = shipped("train_lora_flux_24gb", ("cache_latents_to_disk: true", "cache_latents_to_disk: false"))
    assert_fix_clears("latents_not_cached", text)
