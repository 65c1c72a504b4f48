"""The ladder is decided on the config data; only the steps asked for are written as text.

`diagnose(..., steps=1)` (what a first reply shows) must give the same findings and the same ladder as
`steps=None` (every step written), with the same corrected text for step 1, and must leave later steps
unwritten. A written step must parse to exactly the data the re-check approved.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.config.parse import parse_config, same_data
from diagnosis.models import Piece, PieceKind
from diagnosis.report import Report
from tests.speed_oracles import bundled_inputs

TESTS = Path(__file__).parent
INPUTS = bundled_inputs("*.yaml")


def _ladder(report: Report) -> list[tuple[int, list[str], list[tuple[object, object]]]]:
    return [(s.number, s.rule_ids, [(e.path, e.value) for e in s.edits]) for s in report.ladder]


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.parent.name if p.name == "input.txt" else p.name)
def test_first_step_only_gives_the_same_ladder_and_step_one(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    every = diagnose([text])
    first = diagnose([text], steps=1)
    assert [f.rule_id for f in first.findings] == [f.rule_id for f in every.findings]
    assert _ladder(first) == _ladder(every)
    assert first.corrected_config == every.corrected_config
    assert first.diff == every.diff
    if every.ladder:
        assert first.ladder[0].verified == every.ladder[0].verified
    for step in first.ladder[1:]:
        assert (step.corrected_config, step.diff, step.verified) == (None, None, False)


MULTI_STEP = next(TESTS.glob("corpus/*/101-*/input.txt"))  # GC off, batch 4, a 1536 bucket


def test_every_step_is_written_and_verified_when_asked() -> None:
    text = MULTI_STEP.read_text(encoding="utf-8")
    report = diagnose([text], steps=None)
    with_edits = [s for s in report.ladder if s.edits]
    assert len(with_edits) >= 2
    assert all(s.verified and s.corrected_config for s in with_edits)
    # Cumulative: each written step keeps the changes of the one before.
    last = with_edits[-1].corrected_config
    assert last is not None and "gradient_checkpointing: true" in last


def test_steps_two_writes_two() -> None:
    text = MULTI_STEP.read_text(encoding="utf-8")
    report = diagnose([text], steps=2)
    written = [s.number for s in report.ladder if s.corrected_config]
    assert written[:2] == [1, 2]
    assert all(n <= 2 for n in written)


SHARED_TRAIN = """\
job: extension
config:
  name: shared
  process:
    - type: sd_trainer
      base: &train
        batch_size: 1
        steps: 2000
        gradient_checkpointing: false
        optimizer: adamw8bit
        dtype: bf16
      train: *train
      model:
        name_or_path: black-forest-labs/FLUX.1-dev
        is_flux: true
        quantize: true
      network:
        type: lora
        linear: 16
        linear_alpha: 16
      datasets:
        - folder_path: /data/x
          resolution: [512, 768, 1024]
          cache_latents_to_disk: true
"""


def test_a_key_behind_an_alias_is_never_offered_as_a_corrected_file() -> None:
    # The data-level fix sets train.gradient_checkpointing; the text holding it is the anchor, which
    # `base` shares. Whatever text the planner writes, it must parse to exactly the checked data, so a
    # corrected file that also changes `base` (or fails to change `train`) is not offered.
    report = diagnose([SHARED_TRAIN], steps=None)
    # The case must reach the planner: a ladder without the GC step would pass the loop vacuously.
    assert report.ladder and report.ladder[0].edits and "gc_off" in report.ladder[0].rule_ids
    for step in report.ladder:
        if step.corrected_config is None:
            continue
        doc = parse_config(Piece(PieceKind.CONFIG_YAML, step.corrected_config, "x", 0, 0))
        process = doc.data["config"]["process"][0]
        assert (
            process["base"]
            == {
                "batch_size": 1,
                "steps": 2000,
                "gradient_checkpointing": False,
                "optimizer": "adamw8bit",
                "dtype": "bf16",
            }
            or process["base"] == process["train"]
        )


def test_same_is_strict_where_config_data_differs() -> None:
    assert same_data({"a": 1, "b": [1.0, "x"]}, {"b": [1.0, "x"], "a": 1})
    assert same_data({"lr": math.nan}, {"lr": math.nan})
    assert not same_data({"gc": True}, {"gc": 1})
    assert not same_data({"n": 1}, {"n": 1.0})
    assert not same_data([1, 2], [1, 2, 3])
    assert not same_data({"a": None}, {"a": {}})
    assert not same_data({"a": 1}, {"b": 1})


def test_the_tab_scan_can_be_left_out_for_a_text_that_already_passed_it() -> None:
    # libyaml accepts a tab after a value; AI Toolkit's own scanner does not.
    text = "train:\n  batch_size: 4\t\n"
    piece = Piece(PieceKind.CONFIG_YAML, text, "x", 0, 0)
    assert parse_config(piece).error is not None
    assert parse_config(piece, scan_tabs=False).data == {"train": {"batch_size": 4}}


def test_a_written_step_that_changes_more_than_its_edits_is_not_verified(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import diagnosis.ladder as ladder
    from diagnosis.config.edit import apply_text_edits as real_apply

    def sloppy(text: str, edits: list[object]) -> str:
        # The edits land, and one more key changes: the data no longer matches what was re-checked.
        return real_apply(text, edits).replace("linear_alpha: 16", "linear_alpha: 17")  # type: ignore[arg-type]

    text = MULTI_STEP.read_text(encoding="utf-8")
    assert "linear_alpha: 16" in text
    assert diagnose([text]).ladder[0].verified
    monkeypatch.setattr(ladder, "apply_text_edits", sloppy)
    report = diagnose([text])
    assert report.ladder and not any(s.verified or s.corrected_config for s in report.ladder)
