"""diagnose(): the whole pipeline, its notes, its language, and that it never raises on user input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import diagnosis.engine as engine
import diagnosis.rules as rules
from diagnosis import diagnose
from diagnosis.jsonout import report_to_json
from diagnosis.limits import Limits
from tests.conftest import EXAMPLES

CONFIG = """\
job: extension
config:
  name: demo
  process:
    - type: sd_trainer
      network: {type: lora, linear: 16}
      datasets:
        - folder_path: /data
          resolution: [512, 768, 1024]
          cache_latents_to_disk: true
      train:
        batch_size: 1
        gradient_checkpointing: false  # speed
        dtype: bf16
        optimizer: adamw8bit
      model:
        name_or_path: black-forest-labs/FLUX.1-dev
        is_flux: true
        quantize: true
"""

OOM = (
    "Error running job: CUDA out of memory. Tried to allocate 576.00 MiB. GPU 0 has a total capacity of "
    "23.55 GiB of which 312.44 MiB is free. Including non-PyTorch memory, this process has 23.22 GiB memory "
    "in use. Of the allocated memory 22.41 GiB is allocated by PyTorch, and 386.27 MiB is reserved by "
    "PyTorch but unallocated."
)


def test_config_and_log_give_a_verified_first_step() -> None:
    report = diagnose([CONFIG, OOM], sources=["config.yaml", "log.txt"])
    assert report.findings[0].rule_id == "gc_off"
    step = report.ladder[0]
    assert step.verified and report.corrected_config is not None
    assert "gradient_checkpointing: true  # speed" in report.corrected_config
    assert report.diff is not None and report.diff.startswith("--- a/config.yaml")
    assert report.facts.vram_gib == 24 and report.facts.vram_source == "oom_message"
    assert report.language == "en" and not report.not_oom


def test_the_bundled_example_runs() -> None:
    texts = [
        (EXAMPLES / n).read_text(encoding="utf-8")
        for n in ("flux_lora_24gb_gc_off.yaml", "flux_lora_24gb_oom.log")
    ]
    report = diagnose(texts)
    assert "gc_off" in [f.rule_id for f in report.findings]


def test_config_from_the_log_echo() -> None:
    log = (
        "Running 1 job\n"
        "{\n"
        '    "type": "sd_trainer",\n'
        '    "train": {\n'
        '        "batch_size": 1,\n'
        '        "gradient_checkpointing": false\n'
        "    },\n"
        '    "model": {"name_or_path": "black-forest-labs/FLUX.1-dev", "is_flux": true, "quantize": true}\n'
        "}\n"
        f"{OOM}\n"
    )
    report = diagnose([log])
    assert "config_from_log" in [n.id for n in report.notes]
    assert report.config is not None and report.config.piece.from_log
    assert "gc_off" in [f.rule_id for f in report.findings]


def test_vram_assumed_note_and_option() -> None:
    assumed = diagnose([CONFIG])
    assert {"id": "vram_assumed", "params": {"gib": 24}} in [
        {"id": n.id, "params": n.params} for n in assumed.notes
    ]
    given_vram = diagnose([CONFIG], gpu_vram_gib=48)
    assert given_vram.facts.vram_gib == 48 and "vram_assumed" not in [n.id for n in given_vram.notes]


def test_language_from_locale_then_the_text() -> None:
    assert diagnose([CONFIG], locale="ja").language == "ja"
    assert diagnose(["学習を始めるとすぐ OOM で止まります。\n" + OOM]).language == "ja"


def test_secret_is_reported_and_never_echoed() -> None:
    token = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"
    text = CONFIG.replace("    - type: sd_trainer\n", f"    - type: sd_trainer\n      hf_token: {token}\n")
    report = diagnose([text, OOM])
    assert report.secrets_found == 1
    assert "secret_in_input" in [f.rule_id for f in report.findings]
    assert token not in json.dumps(report_to_json(report).model_dump())


def test_not_oom_suppresses_the_checklist() -> None:
    log = (
        "Error running job: No module named 'bitsandbytes'\n"
        "ModuleNotFoundError: No module named 'bitsandbytes'\n"
    )
    report = diagnose([CONFIG, log])
    assert report.not_oom
    assert [f.rule_id for f in report.findings] == ["not_oom"]


def test_a_failing_rule_is_a_note_and_the_others_still_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_: object) -> None:
        raise RuntimeError("bug")

    broken = tuple(s._replace(check=boom) if s.id == "batch_too_large" else s for s in rules._SPECS)
    monkeypatch.setattr(rules, "_SPECS", broken)
    report = diagnose([CONFIG, OOM])
    assert {"rule_id": "batch_too_large"} in [n.params for n in report.notes if n.id == "rule_failed"]
    assert "gc_off" in [f.rule_id for f in report.findings]


def test_last_resort_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*_: object, **__: object) -> None:
        raise RuntimeError("intake bug")

    monkeypatch.setattr(engine, "read_case", crash)
    report = diagnose([CONFIG])
    assert [f.rule_id for f in report.findings] == ["input_incomplete"]
    assert [n.id for n in report.notes] == ["rule_failed"]


def test_truncated_input_is_noted() -> None:
    limits = Limits(max_input_bytes=4096)
    report = diagnose([CONFIG + "\n" + "x" * 10_000 + "\n" + OOM], limits=limits)
    assert "input_truncated" in [n.id for n in report.notes]


def test_invalid_yaml_is_a_finding_not_a_crash() -> None:
    report = diagnose([CONFIG.replace("        dtype: bf16", "\t\tdtype: bf16")])
    assert report.findings[0].rule_id == "yaml_invalid"
    assert report.corrected_config is None


@given(st.lists(st.one_of(st.text(max_size=300), st.binary(max_size=300)), min_size=0, max_size=3))
def test_never_raises(inputs: list[str | bytes]) -> None:
    report = diagnose(inputs)
    assert report.language in ("en", "ja")
    report_to_json(report)


@pytest.mark.parametrize("vram", [float("nan"), float("inf"), -float("inf"), -1.0, 0.0])
def test_a_stated_vram_that_is_no_size_is_ignored(vram: float) -> None:
    report = diagnose([CONFIG], gpu_vram_gib=vram)
    assert report.facts.vram_source == "assumed" and report.facts.vram_gib == 24.0
    json.dumps(report_to_json(report).model_dump(), allow_nan=False)


def test_the_step_that_failed_is_the_one_after_the_bar_count() -> None:
    from tests.conftest import EXAMPLES

    log = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
    assert "| 1/2000 [" in log
    report = diagnose([log])
    assert report.facts.step == 2


def test_a_crlf_config_is_corrected_with_crlf_line_breaks() -> None:
    from tests.conftest import EXAMPLES

    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8").replace("\n", "\r\n")
    corrected = diagnose([text.encode("utf-8")]).corrected_config
    assert corrected is not None
    assert "gradient_checkpointing: true" in corrected
    assert "\n" not in corrected.replace("\r\n", "")


def test_an_assumed_card_size_is_mentioned_only_when_a_finding_weighed_it() -> None:
    from tests.conftest import CORPUS, EXAMPLES

    config_only = diagnose([(EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")])
    assert config_only.facts.vram_source == "assumed"
    assert "vram_assumed" in [n.id for n in config_only.notes]

    broken = next((CORPUS / "synthetic").glob("111-*")) / "input.txt"
    report = diagnose([broken.read_text(encoding="utf-8")])
    assert "yaml_invalid" in [f.rule_id for f in report.findings]
    assert "vram_assumed" not in [n.id for n in report.notes]
