"""The rule `not_oom` (diagnosis/rules/not_oom.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Report
from diagnosis.render import render_cli
from diagnosis.rules import run_rules
from tests.golden.cases import ADV, ERR, ev, finding
from tests.rules.helpers import assert_said_in_both_languages, check, facts


def test_not_oom_suppresses_the_checklist() -> None:
    f = facts(gradient_checkpointing=False, gc_explicit=True, not_oom_kind="hf_auth", not_oom_headline="401")
    ids = [x.rule_id for x in run_rules(f)[0]]
    assert "not_oom" in ids and "gc_off" not in ids
    assert check("not_oom", facts()) is None


def test_a_long_non_oom_error_is_quoted_once() -> None:
    line = "subprocess.CalledProcessError: Command " + "'-IY:\\\\AI\\\\include', " * 30 + "returned 1."
    f = finding("not_oom", ERR, ADV, [ev(1, line)], kind="compile_error", headline=line)
    text = render_cli(Report([f], [], Facts(), "en", True), fmt="markdown")
    assert text.count("subprocess.CalledProcessError") == 1


def test_not_oom_is_said_in_both_languages() -> None:
    f = facts(not_oom_kind="hf_auth", not_oom_headline="401 Client Error")
    assert_said_in_both_languages("not_oom", f)
