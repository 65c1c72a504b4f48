"""The rule `dtype_fp32` (diagnosis/rules/dtype_fp32.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.ladder import drop_ruled_out, rank_findings
from diagnosis.models import Phase
from diagnosis.rules import run_rules
from tests.rules.helpers import (
    LANGS,
    assert_fix_clears,
    assert_missing_key_is_said_missing,
    assert_said_in_both_languages,
    check,
    facts,
    oom,
    shipped,
)


def test_dtype_missing_means_fp32() -> None:
    found = check("dtype_fp32", facts(dtype="fp32", dtype_explicit=False))
    assert found.params == {
        "dtype": None,
        "dtype_missing": True,
        "then": "paths",
        # FLUX.1: the Model panel does not show Low VRAM.
        "paths_off": ["Show Advanced → low_vram", "Cache Text Embeddings"],
    }
    assert [(e.path, e.value) for e in found.edits] == [(("train", "dtype"), "bf16")]


def test_dtype_not_asked_of_a_fragment() -> None:
    assert check("dtype_fp32", facts(dtype="fp32", config_shape="fragment")) is None


def test_dtype_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("dtype_fp32", facts(dtype="fp32", dtype_explicit=True))


def test_dtype_fix_trains_in_bf16() -> None:
    assert_fix_clears("dtype_fp32", shipped("train_lora_flux_24gb", ("dtype: bf16", "dtype: fp32")))


@pytest.mark.parametrize("lang", LANGS)
def test_a_missing_dtype_is_said_missing_not_quoted_as_its_section_header(lang: str) -> None:
    assert_missing_key_is_said_missing("dtype_fp32", "dtype", lang)


@pytest.mark.parametrize("phase", [Phase.MODEL_LOAD, Phase.QUANTIZE, Phase.TRAINING_STEP])
def test_a_missing_dtype_leads_the_generic_low_memory_fixes(phase: Phase) -> None:
    # No `train.dtype` on FLUX: fp32 weights, twice the memory of bf16. That default costs more than
    # Low VRAM being off, so it is step 1, whatever phase the run died in (issue #19).
    f = oom(facts(dtype="fp32", dtype_explicit=False, low_vram=False, vram_gib=16.0), phase)
    ranked = rank_findings(drop_ruled_out(run_rules(f)[0], f), f)
    ids = [x.rule_id for x in ranked]
    assert "no_low_vram" in ids and ids[0] == "dtype_fp32", ids


def test_an_explicit_fp32_keeps_its_place_after_low_vram_while_loading() -> None:
    # Written on purpose, fp32 is the user's choice, not a hidden default: the phase's order stands.
    f = oom(facts(dtype="fp32", dtype_explicit=True, low_vram=False, vram_gib=16.0), Phase.MODEL_LOAD)
    ids = [x.rule_id for x in rank_findings(drop_ruled_out(run_rules(f)[0], f), f)]
    assert ids.index("no_low_vram") < ids.index("dtype_fp32"), ids
