"""The rule `bucket_too_large` (diagnosis/rules/bucket_too_large.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import re

import pytest

from diagnosis import diagnose
from diagnosis.estimate import largest_that_fits
from diagnosis.estimate.fit import card_fit
from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.models import Phase, Severity
from diagnosis.render import message, render_cli, render_discord
from diagnosis.render.templating import TARGETS, Wording
from diagnosis.render.view import usable_params
from diagnosis.report import Report
from tests.golden.cases import CHG, ERR, finding
from tests.rules.helpers import (
    ALL_ON,
    FLUX,
    LANGS,
    QWEN,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    config,
    everything,
    facts,
    found,
    in_step,
    oom,
    oom_facts,
    shipped,
    texts,
)


def test_bucket_over_the_class_limit() -> None:
    found = check("bucket_too_large", facts(buckets=[512, 768, 1024, 1536]))
    # Checked on the config alone, the preview may still be what fails: the next line names it first.
    assert found.params == {
        "max_bucket": 1536,
        "limit": 1024,
        "new_buckets": [512, 768, 1024],
        "then": "preview_paths",
        "paths_off": ["Show Advanced → low_vram", "Cache Text Embeddings"],
    }
    assert [(e.path, e.value) for e in found.edits] == [(("datasets", 0, "resolution"), [512, 768, 1024])]


def test_bucket_kontext_limit_is_lower() -> None:
    f = facts(arch="flux_kontext", name="black-forest-labs/FLUX.1-Kontext-dev")
    assert check("bucket_too_large", f).params["new_buckets"] == [512, 768]


def test_bucket_1024_is_fine_on_24gb_without_an_oom() -> None:
    assert check("bucket_too_large", facts()) is None


def test_bucket_from_the_users_words_without_config() -> None:
    f = Facts(prose_buckets=[1280, 1536], vram_gib=32.0)
    found = check("bucket_too_large", f)
    assert found.params["max_bucket"] == 1536 and not found.edits


def test_bucket_fix_is_per_dataset() -> None:
    f = facts()
    f.datasets = [DatasetFacts(index=0, resolutions=[1536]), DatasetFacts(index=1, resolutions=[512, 2048])]
    f.paths["datasets[1].resolution"] = ("datasets", 1, "resolution")
    f.buckets, f.max_bucket = [512, 1536, 2048], 2048
    found = check("bucket_too_large", f)
    # A dataset with only too-large buckets keeps the largest the card holds, not another dataset's 512.
    assert {e.path: e.value for e in found.edits} == {
        ("datasets", 0, "resolution"): 1024,
        ("datasets", 1, "resolution"): [512],
    }
    assert found.params["new_buckets"] == [512, 1024]


def test_bucket_after_a_step_oom_within_the_limit_is_advice() -> None:
    # No edit, so no exact buckets to keep in the words either (they would promise an edit).
    found = check("bucket_too_large", in_step(facts()))
    assert found.severity == Severity.INFO and found.edits == []
    assert "new_buckets" not in found.params and found.params["max_bucket"] == 1024


@pytest.mark.parametrize("lang", LANGS)
def test_after_a_training_step_the_bucket_next_line_leaves_the_preview_out(lang: str) -> None:
    # Case 105: the baseline preview finished, then a step failed at the 1536 bucket.
    f = oom(config(*QWEN, **ALL_ON, buckets=[512, 1024, 1536], max_bucket=1536), Phase.TRAINING_STEP)
    f.datasets = [DatasetFacts(index=0, resolutions=[512, 1024, 1536])]
    shown = texts("bucket_too_large", f, lang)
    assert "Sample" not in shown["next"] and "Low VRAM" not in shown["next"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_the_bucket_cause_matches_the_step_when_the_bucket_fits_the_card(lang: str) -> None:
    # A step OOM at 1024 on a 40 GB card: the step says "it needs the most memory of your buckets";
    # the headline's cause must not say "too big for this card".
    f = oom(
        config(*FLUX, quantize=True, vram_gib=40.0, buckets=[512, 768, 1024], max_bucket=1024),
        Phase.TRAINING_STEP,
    )
    f.datasets = [DatasetFacts(index=0, resolutions=[512, 768, 1024])]
    w = Wording(lang, TARGETS["text"])
    finding = found("bucket_too_large", f)
    cause = str(w.cause("bucket_too_large", usable_params("bucket_too_large", dict(finding.params))))
    assert "too big" not in cause and "大きすぎる" not in cause, cause
    f.vram_gib = 16.0  # over the 16 GB class's 768: now it is too big
    finding = found("bucket_too_large", f)
    cause = str(w.cause("bucket_too_large", usable_params("bucket_too_large", dict(finding.params))))
    assert "too big" in cause or "大きすぎる" in cause, cause


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("largest", "limit", "keep", "over"),
    [(1536, 1024, "512, 768, 1024", True), (1024, 1024, "512, 768", False)],
)
def test_bucket_step_names_the_buckets_it_keeps_and_never_contradicts_them(
    lang: str, largest: int, limit: int, keep: str, over: bool
) -> None:
    f = finding("bucket_too_large", ERR, CHG, max_bucket=largest, limit=limit, new_buckets=keep)
    text = everything(render_discord(Report([f], [], oom_facts(), lang, False)))
    assert message("rules.bucket_too_large.action", lang, new_buckets=keep) in text
    said_limit = message("rules.bucket_too_large.variant.over.true", lang, limit=limit)
    assert (said_limit in text) is over
    assert (message("rules.bucket_too_large.variant.over.false", lang) in text) is not over


@pytest.mark.parametrize(("lang", "joined"), [("en", "512, 768, 1024"), ("ja", "512、768、1024")])
def test_a_list_param_is_joined_as_the_language_lists_things(lang: str, joined: str) -> None:
    f = finding("bucket_too_large", ERR, CHG, max_bucket=1536, limit=1024, new_buckets=[512, 768, 1024])
    text = everything(render_discord(Report([f], [], oom_facts(), lang, False)))
    assert message("rules.bucket_too_large.action", lang, new_buckets=joined) in text


def test_bucket_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("bucket_too_large", facts(buckets=[512, 768, 1024, 1536]))


def test_bucket_fix_keeps_the_buckets_the_card_holds() -> None:
    # Qwen-Image-Edit's shipped example is written for 32 GB: on 24 GB its 1024 bucket is too large.
    assert_fix_clears("bucket_too_large", shipped("train_lora_qwen_image_edit_2509_32gb"), vram_gib=24)


# --- issue #19: "do I need to drop a bucket?" gets a direct answer -------------------------------------

_ASKED = {
    "en": "My run died with CUDA out of memory. Do I need to drop a bucket?",
    "ja": "CUDA out of memory で止まりました。バケットを減らす必要はありますか？",
}


def _asked(lang: str, config_text: str, log: str | None = None) -> str:
    inputs = [_ASKED[lang] + "\n```yaml\n" + config_text + "```\n"] + ([log] if log else [])
    report = diagnose(inputs, locale=lang, gpu_vram_gib=24.0)
    return render_cli(report, fmt="markdown", lang=lang)


@pytest.mark.parametrize("lang", LANGS)
def test_asked_about_a_bucket_too_big_for_the_card_the_answer_is_yes_and_why(lang: str) -> None:
    text = _asked(
        lang,
        shipped("train_lora_flux_24gb", ("resolution: [512, 768, 1024]", "resolution: [512, 1024, 1536]")),
    )
    answer = next(line for line in text.splitlines() if message("reply.note.answer_prefix", lang) in line)
    assert re.search(r"\byes\b" if lang == "en" else "はい", answer.lower()) and "1536" in answer, answer


@pytest.mark.parametrize("lang", LANGS)
def test_asked_about_buckets_the_card_holds_the_answer_is_no_and_why(lang: str) -> None:
    text = _asked(
        lang, shipped("train_lora_flux_24gb", ("resolution: [512, 768, 1024]", "resolution: [512, 768]"))
    )
    answer = next(line for line in text.splitlines() if message("reply.note.answer_prefix", lang) in line)
    assert re.search(r"\bno\b" if lang == "en" else "いいえ", answer.lower()), answer


# --- how far the fix cuts: the memory estimate, where the family and the card are known ---------------

BIG = [512, 768, 1024, 1280, 1536]


def test_the_estimate_chooses_the_largest_of_the_users_buckets_that_fits() -> None:
    # FLUX at batch 4 on 24 GB with every low-memory option on: the card's table keeps up to 1024,
    # the estimate fits with the margin only up to 768.
    f = facts(buckets=BIG, batch_size=4, vram_gib=24.0, **ALL_ON)
    card = card_fit(f)
    assert card is not None
    best = largest_that_fits(card.job, "bucket", [512, 768, 1024], card.usable, card.floor)
    result = found("bucket_too_large", f)
    assert best == result.params["new_max_bucket"] == 768
    assert result.params["new_buckets"] == [512, 768] and result.params["limit"] == 1024
    assert {e.path: e.value for e in result.edits} == {("datasets", 0, "resolution"): [512, 768]}


def test_without_a_card_the_buckets_are_cut_to_the_table() -> None:
    result = found("bucket_too_large", facts(buckets=BIG, batch_size=4, vram_gib=None, **ALL_ON))
    assert result.params["new_buckets"] == [512, 768, 1024] and "sized" not in result.params


def test_a_family_the_model_does_not_hold_keeps_the_table() -> None:
    f = facts(buckets=BIG, batch_size=4, vram_gib=24.0, **ALL_ON)
    f.family = "not_in_the_memory_model"
    result = found("bucket_too_large", f)
    assert result.params["new_buckets"] == [512, 768, 1024] and "sized" not in result.params


def test_the_step_says_why_these_buckets_in_both_languages() -> None:
    f = facts(buckets=BIG, batch_size=4, vram_gib=24.0, **ALL_ON)
    assert texts("bucket_too_large", f, "en")["action"] == (
        "Train at 512, 768 only: the estimate fits 24 GB with margin up to 768"
    )
    assert "768 までなら VRAM 24 GB に余裕を持って収まります" in texts("bucket_too_large", f, "ja")["action"]
