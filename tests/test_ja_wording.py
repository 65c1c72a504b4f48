"""The Japanese a native reader asked for (docs/glossary.md), held in every catalogue and in the
replies built from them: no phrase of the glossary's "not" column, no English left around a quoted
line, the fix list counted in 手順 and training in ステップ, and the explain page's labels true to a rule
that changes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import ConfigError, Evidence
from diagnosis.render import message, render_cli, render_discord, render_explain, render_rules
from diagnosis.render.catalogue import catalogue
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS, Role, spec
from diagnosis.rules.yaml_invalid import problem_kind
from tests.golden.cases import ERR, MEM, finding
from tests.rules.helpers import LANGS, check, oom_facts

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary.md"


def _avoided() -> list[str]:
    """The right-hand column of the glossary's "Write this, not that" table."""
    text = GLOSSARY.read_text(encoding="utf-8").split("## Write this, not that", 1)[1]
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    return [cells[2].strip() for cells in rows[1:]]


def _strings(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        return [s for value in entry.values() for s in _strings(value)]
    if isinstance(entry, list):
        return [s for value in entry for s in _strings(value)]
    return []


def test_the_glossary_table_is_read() -> None:
    avoided = _avoided()
    assert "原因はおそらく、" in avoided and "のカード" in avoided and len(avoided) >= 15


@pytest.mark.parametrize("phrase", _avoided())
def test_no_japanese_catalogue_says_what_the_glossary_replaced(phrase: str) -> None:
    said = [s for s in _strings(catalogue("ja")) if phrase in s]
    assert said == [], f"{phrase!r} is still in locales/ja: {said[:3]}"


def test_the_fix_list_is_counted_in_tejun_and_training_in_steps() -> None:
    fix_list = (
        "reply.section.config",
        "reply.section.step",
        "reply.headline.step",
        "reply.checklist.next_step",
    )
    for key in fix_list:
        text = message(key, "ja", number=2, total=3, action="…")
        assert "手順" in text and "ステップ" not in text, (key, text)
    assert "学習" in message("reply.where.training_step_n", "ja", step=5)


SOURCES = [
    ("message", "your message, line 37", "メッセージの 37 行目"),
    ("stdin", "standard input, line 37", "標準入力の 37 行目"),
    ("job.yaml", "job.yaml, line 37", "job.yaml の 37 行目"),
]


@pytest.mark.parametrize(("source", "en", "ja"), SOURCES)
def test_a_quoted_line_names_its_source_in_the_readers_language(source: str, en: str, ja: str) -> None:
    f = finding("gc_off", ERR, MEM, [Evidence(source, 37, "gradient_checkpointing: false")])
    for lang, expected in (("en", en), ("ja", ja)):
        body = render_discord(Report([f], [], oom_facts(), lang, False)).embeds[0]["description"]
        assert expected in body, (lang, body)


# What PyYAML (pure and libyaml) says for the mistakes people make, and the kind the reply explains.
YAML_PROBLEMS = [
    ("mapping values are not allowed in this context", "mapping_values"),
    ("expected <block end>, but found '<block mapping start>'", "indentation"),
    ("did not find expected key", "indentation"),
    ("could not find expected ':'", "missing_colon"),
    ("did not find expected hexdecimal number", "escape"),
    ("found unknown escape character 'q'", "escape"),
    ("found unexpected end of stream", "unclosed_quote"),
    ("did not find expected ',' or ']'", "unclosed_brackets"),
    ("found undefined alias 'x'", "undefined_alias"),
    ("unacceptable character #x0007: control characters are not allowed", "control_char"),
    ("found character '@' that cannot start any token", "reserved_char"),
    ("found character '\\t' that cannot start any token", None),  # the tab has its own sentence
]


@pytest.mark.parametrize(("problem", "kind"), YAML_PROBLEMS)
def test_the_parsers_english_is_explained_in_japanese(problem: str, kind: str | None) -> None:
    assert problem_kind(problem) == kind
    f = Facts(has_config=True, config_source="job.yaml", config_error_line=5)
    f.config_error = ConfigError(5, 3, problem, "a: b: c", tab_indent=False)
    found = check("yaml_invalid", f)
    text = render_cli(Report([found], [], f, "ja", False), fmt="text")
    line = next(x for x in text.splitlines() if "パーサーの原文" in x)
    # Japanese before the original, and the original only inside its parentheses
    explained, original = line.split("（パーサーの原文：", 1)
    names = re.sub(r"YAML|Windows", "", explained)  # proper names stay as they are
    assert explained and not re.search(r"[A-Za-z]{4,}", names), line
    assert original.startswith(problem.split("'")[0].strip()[:20]), line


@pytest.mark.parametrize("lang", LANGS)
def test_explain_of_a_rule_that_changes_nothing_says_where_to_look_and_no_effect(lang: str) -> None:
    page = render_explain("not_oom", lang, fmt="text") or ""
    assert message("reply.explain.where_look", lang) in page
    assert message("reply.explain.where", lang) not in page
    nothing = {"en": "None (", "ja": "なし（"}[lang]
    assert nothing in page
    # a rule with a setting to change keeps "where to change it"
    assert message("reply.explain.where", lang) in (render_explain("gc_off", lang, fmt="text") or "")


@pytest.mark.parametrize("lang", LANGS)
def test_explain_input_incomplete_does_not_end_a_sentence_on_a_colon(lang: str) -> None:
    page = render_explain("input_incomplete", lang, fmt="text") or ""
    explanation = page.split("\n\n")[1].strip()
    assert not explanation.endswith((":", "：")), explanation


@pytest.mark.parametrize("lang", LANGS)
def test_the_rule_list_says_what_a_rule_that_changes_nothing_does(lang: str) -> None:
    listing = render_rules(lang, fmt="text")
    outside = message("reply.applicability.advice", lang)
    for rid in RULE_IDS:
        line = next(x for x in listing.splitlines() if f" {rid} " in x)
        role = spec(rid).role
        if role in (Role.VERDICT, Role.QUESTION, Role.NOTICE):
            assert message(f"reply.rule_role.{role.value}", lang) in line and outside not in line, line


NOT_FOUND = [("en", "no such file or folder"), ("ja", "ファイルまたはフォルダーが見つかりません")]


@pytest.mark.parametrize(("lang", "reason"), NOT_FOUND)
def test_a_file_the_cli_cannot_read_is_explained_in_the_readers_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, reason: str
) -> None:
    from oomcheck.cli import main

    missing = tmp_path / "nope.yaml"
    assert main(["check", "--lang", lang, str(missing)]) == 2
    assert capsys.readouterr().err.strip().endswith(reason)
