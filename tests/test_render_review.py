"""Replies after the user-eyes review: each test pins one finding of /work/asks/q-user.md or q-advice.md
(U = q-user, A = q-advice) and fails on the reply as it was before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.facts_model import Facts
from diagnosis.models import Report
from diagnosis.render import DiscordReply, message, render_cli, render_discord
from tests.golden.cases import ADV, CASES, INFO, finding

LANGS = ("en", "ja")
CORPUS = Path(__file__).parent / "corpus"


def everything(reply: DiscordReply) -> str:
    parts = [reply.content] + [str(e.get(k, "")) for e in reply.embeds for k in ("title", "description")]
    return "\n".join(parts)


def corpus_input(case: str) -> str:
    (folder,) = [p for p in CORPUS.glob(f"*/{case}-*") if p.is_dir()]
    return (folder / "input.txt").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- U1: a config cut short


@pytest.mark.parametrize("lang", LANGS)
def test_a_config_cut_short_is_asked_for_its_rest_not_for_the_config(lang: str) -> None:
    f = finding("input_incomplete", INFO, ADV, missing=["config_rest", "error_lines"])
    text = everything(render_discord(Report([f], [], Facts(has_config=True), lang, False)))
    assert message("reply.ask.config_rest", lang) in text
    assert message("reply.ask.config", lang) not in text
    assert message("reply.ask.error_lines", lang) in text


def test_the_cut_paste_of_case_032_is_answered_with_the_rest_of_the_config() -> None:
    report = diagnose([corpus_input("032")], sources=["input.txt"], locale="en")
    text = render_cli(report, fmt="markdown", lang="en")
    assert message("reply.ask.config_rest", "en") in text
    assert message("reply.ask.config", "en") not in text


# ---------------------------------------------------------------------- U6: no ✅ on steps


@pytest.mark.parametrize("lang", LANGS)
def test_checklist_steps_carry_no_check_mark(lang: str) -> None:
    # ✅ read as "done" or "verified" on steps the user has not tried and the engine did not verify.
    report = CASES["flux_gc_off_step2"]()
    body = render_discord(report, lang=lang).embeds[0]["description"]
    for number in range(1, len(report.ladder) + 1):
        assert f"\n**{number}. " in body
    assert "✅" not in body
    assert "✅" not in render_cli(report, fmt="text", lang=lang)


# ---------------------------------------------------------------------- U2 = A12: system RAM is not VRAM


@pytest.mark.parametrize("lang", LANGS)
def test_a_host_ram_kill_labels_the_trainers_usage_as_system_ram(lang: str) -> None:
    # Case 108: the OOM killer's anon-rss (29.48 GiB) on a machine with a 16 GB card.
    report = diagnose([corpus_input("108")], sources=["input.txt"], locale=lang)
    text = render_cli(report, fmt="text", lang=lang)
    ram_line = message("reply.oom.label_host", lang) + message("reply.sep", lang)
    assert ram_line + message("reply.oom.process_host", lang, process="29.48 GiB") in text
    assert message("reply.oom.label", lang) + message("reply.sep", lang) not in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_cuda_oom_keeps_the_oom_label(lang: str) -> None:
    text = everything(render_discord(CASES["flux_gc_off_step2"](), lang=lang))
    assert message("reply.oom.label", lang) + message("reply.sep", lang) in text
    assert message("reply.oom.label_host", lang) not in text
