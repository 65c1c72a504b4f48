"""The rule `yaml_invalid` (diagnosis/rules/yaml_invalid.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import ConfigError
from diagnosis.render.templating import TARGETS, Wording
from tests.rules.helpers import LANGS, assert_said_in_both_languages, check, facts


def test_yaml_invalid() -> None:
    f = Facts(has_config=True, config_source="message 1", config_error_line=55)
    f.config_error = ConfigError(52, 1, "found character '\\t'", "\t\tlow_vram: true", tab_indent=True)
    found = check("yaml_invalid", f)
    assert found.params["line"] == 52 and found.params["tab"] is True
    assert found.evidence[0].line == 55
    assert check("yaml_invalid", facts()) is None


@pytest.mark.parametrize("lang", LANGS)
def test_yaml_invalid_texts_read_right_in_explain(lang: str) -> None:
    # `oomcheck explain yaml_invalid` shows no line "above", and its `next` sits under "if it is
    # still out of memory": it must be about what to do once the YAML parses.
    w = Wording(lang, TARGETS["text"])
    fix = "\n".join(w.rt_list("yaml_invalid", "fix"))
    assert "above" not in fix and "上に" not in fix, fix
    nxt = str(w.rt("yaml_invalid", "next"))
    assert ("parses" in nxt or "読み込めるようになったら" in nxt) and ("log" in nxt or "ログ" in nxt), nxt


def test_yaml_invalid_is_said_in_both_languages() -> None:
    f = Facts(has_config=True, config_source="message 1", config_error_line=55)
    f.config_error = ConfigError(52, 1, "found character '\\t'", "\t\tlow_vram: true", tab_indent=True)
    assert_said_in_both_languages("yaml_invalid", f)


def test_an_alias_to_no_anchor_does_not_parse() -> None:
    # PyYAML, and so the trainer, refuses `*name` with no `&name` before it; the reply says why.
    from diagnosis import diagnose

    text = "job: extension\nconfig:\n  process:\n    - train:\n        gradient_checkpointing: *nope\n"
    (found,) = [f for f in diagnose([text]).findings if f.rule_id == "yaml_invalid"]
    assert found.params["problem_kind"] == "undefined_alias" and found.params["line"] == 5
