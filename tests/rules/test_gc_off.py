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


# Gradient checkpointing turned off somewhere else and brought in by an alias or a merge key: the
# trainer reads the value, so the rule must too, and the fix must change this place alone. (Each
# states its dtype: a missing one would lead the ladder.)
_OFF_BY_ALIAS = """job: extension
speed_tricks:
  gc: &no_gc false
config:
  name: my_lora
  process:
    - type: sd_trainer
      train:
        batch_size: 1
        dtype: bf16
        gradient_checkpointing: *no_gc
      model:
        name_or_path: black-forest-labs/FLUX.1-dev
        is_flux: true
        quantize: true
"""
_OFF_BY_MERGE = """job: extension
fast_train: &fast
  batch_size: 1
  gradient_checkpointing: false
config:
  name: my_lora
  process:
    - type: sd_trainer
      train:
        <<: *fast
        steps: 2000
        dtype: bf16
      model:
        name_or_path: black-forest-labs/FLUX.1-dev
        is_flux: true
        quantize: true
"""
_OFF_BY_FLOW_MERGE_LIST = """job: extension
lr_part: &lr {lr: 0.0001}
gc_part: &gc {gradient_checkpointing: false}
config:
  name: my_lora
  process:
    - type: sd_trainer
      train: {<<: [*lr, *gc], batch_size: 1, dtype: bf16}
      model:
        name_or_path: black-forest-labs/FLUX.1-dev
        is_flux: true
        quantize: true
"""


@pytest.mark.parametrize(
    ("text", "removed", "added"),
    [
        (_OFF_BY_ALIAS, "        gradient_checkpointing: *no_gc", "        gradient_checkpointing: true"),
        (_OFF_BY_MERGE, None, "        gradient_checkpointing: true"),
        (
            _OFF_BY_FLOW_MERGE_LIST,
            "      train: {<<: [*lr, *gc], batch_size: 1, dtype: bf16}",
            "      train: {<<: [*lr, *gc], batch_size: 1, dtype: bf16, gradient_checkpointing: true}",
        ),
    ],
    ids=["alias", "merge_key", "flow_merge_list"],
)
def test_gc_off_through_an_alias_or_a_merge_key_is_read_and_fixed_here(
    text: str, removed: str | None, added: str
) -> None:
    from diagnosis import diagnose

    report = diagnose([text], steps=1)
    (found,) = [f for f in report.findings if f.rule_id == "gc_off"]
    # The evidence quotes the line that turns it off, where that is (for a merge key: in the anchor).
    lines = text.splitlines()
    (evidence,) = found.evidence
    assert evidence.line is not None
    assert evidence.text == lines[evidence.line - 1].strip()
    assert (
        "gradient_checkpointing: *no_gc" in evidence.text or "gradient_checkpointing: false" in evidence.text
    )
    step = report.ladder[0]
    assert step.rule_ids[:1] == ["gc_off"] and step.verified
    corrected = step.corrected_config
    assert corrected is not None
    before, after = text.splitlines(), corrected.splitlines()
    assert [line for line in before if line not in after] == ([removed] if removed else [])
    assert [line for line in after if line not in before] == [added]
    # The anchor stays as it was: whatever else uses it is not changed behind the user's back.
    assert "gradient_checkpointing: false" in corrected or "&no_gc false" in corrected
    assert "gc_off" not in [f.rule_id for f in diagnose([corrected], steps=1).findings]
