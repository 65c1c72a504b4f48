"""The JSON the CLI prints is exactly what the published pydantic models give for the same report.

`oomcheck check --format json` prints `jsondoc.report_to_dict` without importing pydantic; these tests
validate that dict against `jsonout.ReportOut` on every corpus case, the examples, forced GPU sizes
and mutated pastes, and require the model's dump to be identical to it: same keys in the same order,
same values of the same types (24 and 24.0 print differently).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.jsondoc import report_to_dict
from diagnosis.jsonout import ReportOut, report_to_json
from oomcheck.cli import main
from tests.conftest import CORPUS, EXAMPLES

INPUTS: list[Path] = sorted(CORPUS.glob("*/*/input.txt")) + sorted(
    p for p in EXAMPLES.iterdir() if p.suffix in (".yaml", ".log", ".json", ".txt")
)


def assert_identical(a: Any, b: Any, where: str = "$") -> None:
    """Equal, with the same types all the way down and the same key order."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__} ({a!r} vs {b!r})"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            assert_identical(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_identical(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def check_contract(texts: list[str], **kwargs: Any) -> None:
    report = diagnose(texts, **kwargs)
    plain = report_to_dict(report)
    assert_identical(plain, ReportOut.model_validate(plain).model_dump())
    assert_identical(plain, report_to_json(report).model_dump())


def test_there_are_inputs_to_compare() -> None:
    assert len(INPUTS) >= 40


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.parent.name if p.name == "input.txt" else p.name)
def test_plain_document_matches_the_models(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    check_contract([text])
    check_contract([text], locale="ja")


@pytest.mark.parametrize("vram", [8, 12.0, 16, 23.5, 24, 80])
def test_a_whole_gpu_size_is_a_float_as_the_model_makes_it(vram: float) -> None:
    for path in (EXAMPLES / "flux_lora_24gb_gc_off.yaml", EXAMPLES / "flux_lora_24gb_oom.log"):
        check_contract([path.read_text(encoding="utf-8")], gpu_vram_gib=vram)


SEEDS = [p.read_text(encoding="utf-8") for p in INPUTS]


@given(
    st.lists(st.sampled_from(SEEDS), min_size=1, max_size=3),
    st.integers(0, 2**32 - 1),
    st.sampled_from([None, 6, 24, 48.0]),
)
def test_mixed_and_cut_pastes_keep_the_contract(seeds: list[str], cut: int, vram: float | None) -> None:
    # a paste cut anywhere, next to whole ones: partial configs, logs without their end
    first = seeds[0][: cut % (len(seeds[0]) + 1)]
    check_contract([first, *seeds[1:]], gpu_vram_gib=vram)


def test_the_cli_prints_the_models_dump_byte_for_byte() -> None:
    # the command's output before it stopped importing pydantic: the models' dump, indented
    for path in INPUTS:
        out = io.StringIO()
        main(["check", str(path), "--format", "json"], out=out, err=io.StringIO())
        report = diagnose([path.read_bytes()], sources=[path.name], steps=None)  # as the JSON command asks
        expected = json.dumps(report_to_json(report).model_dump(), ensure_ascii=False, indent=2) + "\n"
        assert out.getvalue() == expected, path


def test_a_missing_key_is_caught() -> None:
    report = diagnose([(EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")])
    plain = report_to_dict(report)
    del plain["facts"]["vram_gib"]
    with pytest.raises(ValueError):
        ReportOut.model_validate(plain)
    plain = report_to_dict(report)
    plain["facts"]["vram_gib"] = 24
    with pytest.raises(AssertionError):
        assert_identical(plain, ReportOut.model_validate(plain).model_dump())
