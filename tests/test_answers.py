"""Direct questions answered in one line where the facts can answer them (issue #16, item 4): can this
model train on this card, is my card dying — in both languages, before the other notes."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.render import render_cli


def notes(text: str) -> list[str]:
    return [n.id for n in diagnose([text]).notes]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Is there no way to train Qwen Image on 8GB VRAM? it runs out of memory", "answer_too_small"),
        ("FLUX.1-dev でメモリ不足です。4090です。24GBだと無理ですか？", "answer_fits"),
        ("can I train a FLUX.1-dev lora on a 12GB card? OOM at step 1", "answer_fits"),
    ],
)
def test_can_this_model_train_on_this_card(text: str, answer: str) -> None:
    assert notes(text)[0] == answer


def test_no_answer_without_the_model_or_the_card() -> None:
    assert not {"answer_fits", "answer_too_small"} & set(notes("can I train on 16GB? it runs out of memory"))
    assert not {"answer_fits", "answer_too_small"} & set(notes("can I train FLUX.1-dev on my card? OOM"))


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_is_my_card_dying(lang: str) -> None:
    report = diagnose(["my training got slow, is my card dying? RTX 3060 12GB Windows 11"], locale=lang)
    assert "answer_card_ok" in [n.id for n in report.notes]
    text = render_cli(report, lang=lang)
    assert ("failing card" in text) if lang == "en" else ("故障を示すものはありません" in text)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_answer_names_the_model_the_card_and_what_it_needs(lang: str) -> None:
    report = diagnose(["Is there no way to train Qwen Image on 8GB VRAM? it runs out of memory"], locale=lang)
    text = render_cli(report, lang=lang)
    assert "Qwen-Image" in text and "8 GB" in text and "12 GB" in text


def test_a_japanese_question_is_heard() -> None:
    assert notes("Qwen-Image-Editを16GBで学習できますか？")[0] == "answer_fits"


def test_a_size_asked_about_in_japanese_is_the_card_and_is_not_asked_again() -> None:
    report = diagnose(["FLUX.1-dev の LoRA、24GBだと無理ですか？"])
    assert (report.facts.vram_gib, report.facts.vram_source) == (24.0, "user_words")
    assert report.notes[0].id == "answer_fits"
    assert all("gpu" not in f.params.get("missing", []) for f in report.findings)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("what is the lowest vram i can train flux lora?", "answer_min"),
        ("How much vram is needed to train hidream lora 3 months later? Still 36gb?", "answer_min"),
        ("So, no chance to train a Lora with a 4070 TI Super of 16Gb? FLUX", "answer_fits"),
        ("Wan 2.2 14B の学習に必要な VRAM はどのくらいですか？", "answer_min"),
    ],
)
def test_how_much_the_model_needs_is_heard_in_more_words(text: str, answer: str) -> None:
    assert notes(text)[0] == answer


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_question_answered_heads_a_reply_that_otherwise_only_asks(lang: str) -> None:
    # The answer is the headline; asking for a config and a log is the last part, not the first line.
    report = diagnose(["what is the lowest vram i can train flux lora?"], locale=lang)
    text = render_cli(report, lang=lang)
    first = text.splitlines()[0]
    assert first.startswith("To your question" if lang == "en" else "ご質問について")
    assert ("about 10 GB of VRAM" if lang == "en" else "VRAM 約 10 GB") in first
    assert text.count("To your question" if lang == "en" else "ご質問について") == 1
