"""The rule `secret_in_input` (diagnosis/rules/secret_in_input.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.render import render_discord
from diagnosis.report import Report
from tests.golden.cases import MEM, WARN, finding
from tests.rules.helpers import assert_said_in_both_languages, check, everything


def test_secret_in_input() -> None:
    found = check("secret_in_input", Facts(secret_kinds=["hf_token"], secret_count=1))
    assert found.params == {"kinds": "hf_token", "count": 1}
    assert check("secret_in_input", Facts()) is None


def test_japanese_secret_sentence_names_the_kinds_first() -> None:
    f = finding("secret_in_input", WARN, MEM, [], kinds="hf_token", count=2)
    report = Report(findings=[f], ladder=[], facts=Facts(), language="ja", not_oom=False)
    text = everything(render_discord(report, lang="ja"))
    assert "Hugging Face のトークンが 2 件見つかりました。この返信には含めていません。" in text


def test_secret_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("secret_in_input", Facts(secret_kinds=["hf_token"], secret_count=1))
