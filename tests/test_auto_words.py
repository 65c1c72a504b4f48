"""Auto mode hears a training problem told in words (issue #16, item 7): a post with a problem word and
the trainer's world gets a reply with no config or log attached; ordinary chat still gets none."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.diagnosis_port import is_real_case
from diagnosis import diagnose

FIXTURES = Path(__file__).parent / "fixtures"


def _lines(name: str) -> list[str]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


CHAT = _lines("chat_sample.txt")
REPORTS = _lines("report_sample.txt")


def test_the_samples_cover_both_languages() -> None:
    for sample in (CHAT, REPORTS):
        assert any(line.isascii() for line in sample) and any(not line.isascii() for line in sample)
    assert len(CHAT) >= 30


@pytest.mark.parametrize("line", CHAT)
def test_chat_gets_no_reply(line: str) -> None:
    assert not is_real_case(diagnose([line])), line


@pytest.mark.parametrize("line", REPORTS)
def test_a_problem_told_in_words_gets_a_reply(line: str) -> None:
    report = diagnose([line])
    assert is_real_case(report), line
    # The reply says something of its own before it asks: a finding besides the question.
    assert any(f.rule_id != "input_incomplete" for f in report.findings) or report.facts.has_oom, line


def test_the_chat_score() -> None:
    replies = sum(is_real_case(diagnose([line])) for line in CHAT)
    heard = sum(is_real_case(diagnose([line])) for line in REPORTS)
    assert (replies, heard) == (0, len(REPORTS))
