"""The rule `gc_off` (diagnosis/rules/gc_off.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.models import Phase, Severity
from tests.rules.helpers import (
    FLUX,
    LANGS,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    config,
    facts,
    in_step,
    shipped,
    texts,
)


def test_gc_off_fires_on_explicit_false() -> None:
    f = in_step(facts(gradient_checkpointing=False, gc_explicit=True))
    found = check("gc_off", f)
    assert found.severity == Severity.ERROR
    assert [(e.path, e.value) for e in found.edits] == [(("train", "gradient_checkpointing"), True)]


def test_gc_off_missing_means_on() -> None:
    assert check("gc_off", in_step(facts(gradient_checkpointing=True, gc_explicit=False))) is None


def test_gc_off_is_only_a_warning_when_loading() -> None:
    f = facts(gradient_checkpointing=False, gc_explicit=True, gpu_oom=True, phase=Phase.MODEL_LOAD)
    assert check("gc_off", f).severity == Severity.WARNING


def test_gc_off_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("gc_off", in_step(facts(gradient_checkpointing=False, gc_explicit=True)))


def test_gc_off_fix_turns_checkpointing_back_on() -> None:
    text = shipped("train_lora_flux_24gb", ("gradient_checkpointing: true", "gradient_checkpointing: false"))
    assert_fix_clears("gc_off", text)


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_line_does_not_lower_a_batch_size_of_one(lang: str) -> None:
    batch = "Batch Size"
    gc = config(*FLUX, quantize=True, gc_explicit=True, gradient_checkpointing=False, batch_size=1)
    assert batch not in texts("gc_off", gc, lang)["next"]
    gc.batch_size = 4
    assert batch in texts("gc_off", gc, lang)["next"]
