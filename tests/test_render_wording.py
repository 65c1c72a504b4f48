"""What the reply says matches what the params and the edit say: no "None×None", no "0 GiB", a bucket
step names the buckets it keeps, a later step is numbered as the ladder numbers it, evidence is cut
between words."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import Evidence, LadderStep, Note, Phase
from diagnosis.render import DiscordReply, message, render_cli, render_discord, render_explain
from diagnosis.render.catalogue import catalogue, placeholders
from diagnosis.render.view import shorten, usable_params
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS
from tests.golden.cases import ADV, CHG, ERR, MEM, WARN, cuda_oom, ev, finding, log_facts
from tests.rules.helpers import LANGS, everything, oom_facts


def test_usable_params_drops_unknown_values_and_keeps_real_ones() -> None:
    got = usable_params("high_rank", {"rank": 128, "new_rank": None, "flag": False, "name": " "})
    assert got == {"rank": 128, "flag": False}


def step_after_the_last_fix(lang: str) -> DiscordReply:
    """Step 2 of a ladder whose step 2 only asks for more input."""
    close = finding("other_process_on_gpu", ERR, ADV, others_gib=13.3, pids="1, 2", reason="other_pids")
    ask = finding("input_incomplete", WARN, ADV, missing=["config"])
    ladder = [LadderStep(1, ["other_process_on_gpu"], []), LadderStep(2, ["input_incomplete"], [])]
    return render_discord(Report([close, ask], ladder, oom_facts(), lang, False), step=2)


@pytest.mark.parametrize("lang", LANGS)
def test_a_later_step_that_only_asks_for_input_is_not_shown_as_another_step(lang: str) -> None:
    reply = step_after_the_last_fix(lang)
    assert message("reply.headline.step_beyond", lang) in reply.content
    assert message("reply.step_beyond.body", lang) in reply.embeds[0]["description"]
    assert message("reply.ask.config", lang) in reply.embeds[0]["description"]
    # The old reply showed step 1 again under a "2 of 2" title.
    assert message("rules.other_process_on_gpu.action", lang, others_gib=13.3) not in everything(reply)


@pytest.mark.parametrize("lang", LANGS)
def test_a_later_step_states_its_effect_on_results_in_a_sentence(lang: str) -> None:
    gc = finding("gc_off", ERR, MEM)
    batch = finding(
        "batch_too_large", ERR, CHG, batch_size=4, new_batch_size=1, new_accumulation=4, effective_batch=4
    )
    ladder = [LadderStep(1, ["gc_off"], []), LadderStep(2, ["batch_too_large"], [])]
    body = render_discord(Report([gc, batch], ladder, oom_facts(), lang, False), step=2).embeds[0]
    assert message("rules.batch_too_large.applicability", lang) in body["description"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_risk_without_a_config_does_not_talk_about_this_config(lang: str) -> None:
    f = finding("preview_heavy", WARN, MEM)
    cause = message("rules.preview_heavy.cause", lang)
    described = render_discord(Report([f], [], Facts(), lang, False)).content
    assert message("reply.headline.risk_described_cause", lang, cause=cause) in described
    with_config = render_discord(Report([f], [], Facts(has_config=True, config_parsed=True), lang, False))
    assert message("reply.headline.risk_cause", lang, cause=cause) in with_config.content


def test_evidence_is_cut_between_words() -> None:
    words = "Process 654925 has 5.68 GiB memory in use. " * 8
    cut = shorten(words.strip())
    assert cut.endswith("…") and len(cut) <= 200
    assert words.startswith(cut[:-1]) and words[len(cut) - 1] == " "
    assert shorten("x" * 300).endswith("…")  # one long word is still cut
    assert shorten("short") == "short"


def test_evidence_in_the_reply_drops_wrapping_backticks() -> None:
    f = finding("gc_off", ERR, MEM, [Evidence("message 1", 3, "`gradient_checkpointing: false`")])
    text = render_cli(Report([f], [], oom_facts(), "en", False), fmt="markdown")
    assert "`gradient_checkpointing: false`" in text and "ˋ" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_every_action_and_cause_with_params_has_a_plain_fallback(lang: str) -> None:
    cat = catalogue(lang)
    for rule_id in RULE_IDS:
        for field in ("action", "cause"):
            if placeholders(str(cat[f"rules.{rule_id}.{field}"])):
                plain = cat.get(f"rules.{rule_id}.{field}_plain")
                assert isinstance(plain, str) and not placeholders(plain), (lang, rule_id, field)


def test_japanese_where_lines_have_one_colon() -> None:
    cat = catalogue("ja")
    for rule_id in RULE_IDS:
        assert str(cat[f"rules.{rule_id}.ui_path"]).count("：") <= 1, rule_id


@pytest.mark.parametrize("lang", LANGS)
def test_a_reply_that_only_asks_still_mentions_the_update(lang: str) -> None:
    regression = finding("regression_after_update", WARN, ADV, quote="worked before the update")
    ask = finding("input_incomplete", WARN, ADV, missing=["config", "log"])
    ladder = [LadderStep(1, ["regression_after_update"], []), LadderStep(2, ["input_incomplete"], [])]
    text = everything(render_discord(Report([regression, ask], ladder, oom_facts(), lang, False)))
    assert message("reply.ask.config", lang) in text
    assert message("rules.regression_after_update.explanation", lang) in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_section_after_the_last_step_is_not_titled_as_a_step(lang: str) -> None:
    reply = step_after_the_last_fix(lang)
    assert reply.embeds[0]["title"] == message("reply.section.beyond", lang)


def test_the_raw_oom_line_is_not_quoted_again_under_its_own_numbers() -> None:
    raw = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has 23.55 GiB"
    f = finding("gc_off", ERR, MEM, [ev(80, raw), ev(12, "gradient_checkpointing: false")])
    log = log_facts(Phase.TRAINING_STEP, 2, cuda_oom(2.0, 40, 23.55, 22.9))
    text = render_cli(Report([f], [], oom_facts(), "en", False, log=log), fmt="markdown")
    assert "tried to allocate 2.00 GiB" in text
    assert "Tried to allocate 2.00 GiB" not in text
    assert "gradient_checkpointing: false" in text


@pytest.mark.parametrize("lang", LANGS)
def test_one_step_is_not_introduced_as_an_order(lang: str) -> None:
    one = render_cli(Report([finding("gc_off", ERR, MEM)], [], oom_facts(), lang, False), fmt="markdown")
    assert message("reply.checklist.intro_one", lang) in one
    assert message("reply.checklist.intro", lang) not in one
    two = [finding("gc_off", ERR, MEM), finding("latents_not_cached", WARN, MEM)]
    text = render_cli(Report(two, [], oom_facts(), lang, False), fmt="markdown")
    assert message("reply.checklist.intro", lang) in text


def test_explain_heading_uses_each_language_s_brackets() -> None:
    assert render_explain("gc_off", "ja", fmt="text").startswith(
        message("rules.gc_off.title", "ja") + "（gc_off）"
    )
    assert render_explain("gc_off", "en", fmt="text").startswith(
        message("rules.gc_off.title", "en") + " (gc_off)"
    )


@pytest.mark.parametrize("lang", LANGS)
def test_the_gpu_is_asked_for_once(lang: str) -> None:
    ask = finding("input_incomplete", WARN, ADV, missing=["config", "gpu"])
    report = Report([ask], [], oom_facts(), lang, False, notes=[Note("vram_assumed", {"gib": 24})])
    text = everything(render_discord(report))
    assert message("reply.ask.gpu", lang) in text
    assert message("reply.note.vram_assumed", lang, gib=24) not in text
    alone = Report([finding("gc_off", ERR, MEM)], [], oom_facts(), lang, False, notes=report.notes)
    assert message("reply.note.vram_assumed", lang, gib=24) in everything(render_discord(alone))


def test_japanese_causes_put_the_subject_first_and_the_card_second() -> None:
    for rid in RULE_IDS:
        for field_ in ("title", "cause", "cause_plain"):
            key = f"rules.{rid}.{field_}"
            if key in catalogue("ja"):
                assert not message(key, "ja").startswith("この GPU"), key
    high_rank = "LoRA のランク（64）がこの GPU には高すぎること"
    assert message("rules.high_rank.cause", "ja", rank=64) == high_rank
    assert message("rules.no_low_vram.cause", "ja") == "大きなモデルなのに Low VRAM がオフになっていること"
    # the applicability label is docs/glossary.md's term (it replaces the base list's メモリだけに効く)
    memory_only = "メモリ使用量だけが変わります（学習結果は同じ）"
    assert message("reply.applicability.memory_only", "ja") == memory_only


@pytest.mark.parametrize("lang", LANGS)
def test_a_pasted_message_is_named_in_the_reply_language_and_a_file_by_its_name(lang: str) -> None:
    gc = finding("gc_off", ERR, MEM, [ev(7, "gradient_checkpointing: false", "message 2")])
    batch = finding("batch_too_large", WARN, CHG, [ev(3, "batch_size: 8", "job.yaml")], batch_size=8)
    text = everything(render_discord(Report([gc, batch], [], oom_facts(), lang, False)))
    pasted = message("reply.evidence.message", lang, number=2)
    assert message("reply.evidence.at_line", lang, source=pasted, line=7) in text
    assert message("reply.evidence.at_line", lang, source="job.yaml", line=3) in text
    if lang == "ja":
        assert "message 2" not in text
