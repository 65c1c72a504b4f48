"""The rule `batch_too_large` (diagnosis/rules/batch_too_large.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.estimate import largest_that_fits
from diagnosis.estimate.fit import card_fit
from diagnosis.models import Phase, Severity
from tests.rules.helpers import (
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    facts,
    in_step,
    shipped,
    texts,
)


def test_batch_keeps_effective_batch_with_accumulation() -> None:
    f = in_step(facts(batch_size=8))
    found = check("batch_too_large", f)
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "batch_size"): 1, ("train", "gradient_accumulation"): 8}
    assert found.params["effective_batch"] == 8


def test_batch_over_safe_start_without_an_oom_uses_a_divisor() -> None:
    # SD 1.5 on 24 GB starts at 4: batch 6 goes to a divisor, the largest the estimate fits.
    found = check("batch_too_large", facts("sd15", "runwayml/stable-diffusion-v1-5", batch_size=6))
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "batch_size"): 3, ("train", "gradient_accumulation"): 2}
    assert found.severity == Severity.WARNING


@pytest.mark.parametrize(("batch", "buckets"), [(6, [512, 768, 1024]), (4, [512, 768, 1024, 1280, 1536])])
def test_a_batch_the_estimate_says_cannot_train_goes_to_one(batch: int, buckets: list[int]) -> None:
    # FLUX.1 on 24 GB: batch 4 is the table's safe start, but not at 1536 px, and batch 6 is over it;
    # the estimate says a training step does not fit even at batch 2 or 3, so the cut is to batch 1.
    found = check("batch_too_large", facts(batch_size=batch, buckets=buckets))
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "batch_size"): 1, ("train", "gradient_accumulation"): batch}
    assert found.params.get("over") is (True if batch == 4 else None)


def test_the_cut_is_sized_by_the_training_step_when_the_load_is_the_peak() -> None:
    # FLUX.1 on 24 GB without Low VRAM: loading the model is "too close to call" at any batch, so no
    # batch fits the whole job with margin; the batch is sized by the training step alone (what a cut
    # changes), and the step says the estimate chose it.
    found = check("batch_too_large", facts(batch_size=6, buckets=[512, 768]))
    assert found.params["new_batch_size"] == 1
    assert found.params.get("sized") is True


def test_the_estimate_fires_the_batch_rule_unless_the_log_places_the_crash() -> None:
    # With the OOM's phase known the log says where the memory went (here the preview): the table
    # decides as before. An OOM said in words ("I encounter CUDA out of memory") places nothing.
    within = facts(batch_size=4, buckets=[512, 768, 1024, 1280, 1536])
    assert check("batch_too_large", within) is not None
    within.has_oom = within.says_oom = True
    assert check("batch_too_large", within) is not None
    within.gpu_oom, within.phase = True, Phase.FIRST_SAMPLE
    assert check("batch_too_large", within) is None
    # A batch the estimate fits is left alone.
    assert check("batch_too_large", facts(batch_size=2)) is None


def test_batch_moves_the_legacy_accumulation_and_keeps_the_updates() -> None:
    # Batch 4, legacy accumulation 2, 2000 steps: 8000 images, 1000 updates. Raising the legacy key to
    # 8 with batch 1 would give 2000 images and 250 updates; the new key takes 8 batches per step, so
    # 1000 steps give the same 1000 updates on 8000 images.
    f = in_step(facts(batch_size=4, gradient_accumulation_steps=2, train_steps=2000))
    f.paths["gradient_accumulation_steps"] = ("train", "gradient_accumulation_steps")
    f.paths["train_steps"] = ("train", "steps")
    found = check("batch_too_large", f)
    edits = {e.path: e.value for e in found.edits}
    # Never both accumulation keys above 1.
    assert edits == {
        ("train", "batch_size"): 1,
        ("train", "gradient_accumulation_steps"): 1,
        ("train", "gradient_accumulation"): 8,
        ("train", "steps"): 1000,
    }
    assert found.params["effective_batch"] == 8
    assert found.params["legacy"] == "with_steps" and found.params["new_steps"] == 1000


def test_the_legacy_accumulation_fix_keeps_saves_and_previews_at_the_same_points() -> None:
    # `save_every` and `sample_every` count the same steps as `steps`: divided alike, where the config
    # sets them (a default is left alone, and so is a value the division does not change).
    f = in_step(facts(batch_size=4, gradient_accumulation_steps=2, train_steps=2000, save_every=250))
    f.sample_every = 100
    for fact, key in (
        ("gradient_accumulation_steps", ("train", "gradient_accumulation_steps")),
        ("train_steps", ("train", "steps")),
        ("save_every", ("save", "save_every")),
        ("sample_every", ("sample", "sample_every")),
    ):
        f.paths[fact] = key
    found = check("batch_too_large", f)
    edits = {e.path: e.value for e in found.edits}
    assert edits[("train", "steps")] == 1000
    assert edits[("save", "save_every")] == 125 and edits[("sample", "sample_every")] == 50
    assert found.params["legacy"] == "with_steps_every"
    # Not set in the config: not edited, and the reply says only what the fix does.
    del f.paths["sample_every"], f.paths["save_every"]
    found = check("batch_too_large", f)
    assert not {("save", "save_every"), ("sample", "sample_every")} & {e.path for e in found.edits}
    assert found.params["legacy"] == "with_steps"


def test_save_every_is_read_from_the_save_section() -> None:
    from diagnosis.config.parse import parse_config
    from diagnosis.facts import build_facts
    from diagnosis.intake import read_case

    text = "train:\n  batch_size: 4\n  steps: 2000\nsave:\n  save_every: 250\n"
    intake = read_case([text])
    docs = [parse_config(p) for p in intake.pieces]
    f = build_facts(intake, docs, [], 24.0)
    assert f.save_every == 250 and f.paths["save_every"] == ("save", "save_every")


def test_batch_moves_the_legacy_accumulation_and_says_so_without_steps() -> None:
    f = in_step(facts(batch_size=4, gradient_accumulation_steps=2))
    edits = {e.path: e.value for e in check("batch_too_large", f).edits}
    assert edits[("train", "gradient_accumulation_steps")] == 1 and ("train", "steps") not in edits
    assert check("batch_too_large", f).params["legacy"] == "without_steps"


def test_batch_one_is_never_too_large() -> None:
    assert check("batch_too_large", in_step(facts(batch_size=1))) is None


def test_batch_within_safe_start_without_step_oom() -> None:
    f = facts(batch_size=4, phase=Phase.FIRST_SAMPLE, gpu_oom=True)
    assert check("batch_too_large", f) is None


def test_batch_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("batch_too_large", in_step(facts(batch_size=8)))


def test_batch_fix_lowers_the_batch_and_keeps_the_effective_batch() -> None:
    text = shipped("train_lora_flux_24gb", ("batch_size: 1", "batch_size: 8"))
    found = assert_fix_clears("batch_too_large", text)
    assert found.params["effective_batch"] == 8


# --- how far the fix cuts: the memory estimate, where the family and the card are known ---------------


def test_the_estimate_chooses_the_largest_batch_that_fits_the_card() -> None:
    f = facts(batch_size=8, gradient_checkpointing=True, vram_gib=32.0)  # FLUX on 32 GB starts at 4
    card = card_fit(f)
    assert card is not None
    best = largest_that_fits(card.job, "batch", [1, 2, 4], card.usable, card.floor)
    found = check("batch_too_large", f)
    assert best == found.params["new_batch_size"] == 2  # below the table's 4
    edits = {e.path: e.value for e in found.edits}
    assert edits == {("train", "batch_size"): 2, ("train", "gradient_accumulation"): 4}
    assert found.params["sized"] is True and found.params["card_gb"] == 32.0


def test_without_a_card_the_batch_is_cut_as_before() -> None:
    f = facts(batch_size=8, gradient_checkpointing=True, vram_gib=None)
    found = check("batch_too_large", f)
    assert found.params["new_batch_size"] == 4 and "sized" not in found.params


def test_the_oom_message_wins_over_the_estimate() -> None:
    # The process held 23.5 GiB of a 23.55 GiB card at batch 8: whatever the model says of batch 2,
    # the estimate is never below that less what the cut saves, and nothing fits with the margin.
    found = check("batch_too_large", in_step(facts(batch_size=8, gradient_checkpointing=True, vram_gib=32.0)))
    assert found.params["new_batch_size"] == 1 and "sized" not in found.params


def test_the_step_says_why_this_batch_in_both_languages() -> None:
    f = facts(batch_size=8, gradient_checkpointing=True, vram_gib=32.0)
    assert texts("batch_too_large", f, "en")["action"].endswith(
        "the estimate fits 32 GB with margin at batch 2"
    )
    assert (
        "バッチサイズ 2 なら VRAM 32 GB に余裕を持って収まります"
        in texts("batch_too_large", f, "ja")["action"]
    )
    f.vram_source = "assumed"
    assert "the assumed 32 GB card" in texts("batch_too_large", f, "en")["action"]
    assert "VRAM 32 GB と仮定した GPU" in texts("batch_too_large", f, "ja")["action"]
