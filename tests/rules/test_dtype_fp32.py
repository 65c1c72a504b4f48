"""The rule `dtype_fp32` (diagnosis/rules/dtype_fp32.py):
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
