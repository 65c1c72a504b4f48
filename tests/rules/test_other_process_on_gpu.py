"""The rule `other_process_on_gpu` (diagnosis/rules/other_process_on_gpu.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import re

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import Evidence, OtherProcess, Phase
from diagnosis.render import message, render_discord
from diagnosis.report import Report
from tests.golden.cases import ADV, ERR, finding
from tests.rules.helpers import (
    ALL_BUT_QUANTIZE,
    ALL_ON,
    FLUX,
    GIB,
    LANGS,
    QWEN,
    assert_said_in_both_languages,
    check,
    config,
    everything,
    gpu_event,
    in_step,
    oom,
    oom_facts,
    texts,
)


def test_other_process_listed() -> None:
    event = gpu_event(other_processes=[OtherProcess(654925, int(5.68 * GIB)), OtherProcess(7, 7 * GIB)])
    found = check("other_process_on_gpu", in_step(Facts(), event))
    assert found.params["reason"] == "other_pids" and found.params["pids"] == [654925, 7]


def test_other_process_measured_says_what_the_user_tried_and_quotes_it() -> None:
    # Case 020's words over a measured OOM: the step asks what still holds the card, and the user's
    # sentence that chose this wording is quoted with the measured line.
    event = gpu_event(other_processes=[OtherProcess(654925, int(5.68 * GIB))])
    said = Evidence("user", None, "Even after manually closing these applications, the issue persists")
    f = in_step(Facts(said={"other_process_on_gpu.closed_others": said.text}), event)
    found = check("other_process_on_gpu", f)
    assert found.params["reason"] == "other_pids" and found.params["tried_closing"] is True
    assert said in found.evidence
    plain = check("other_process_on_gpu", in_step(Facts(), event))
    assert "tried_closing" not in plain.params and said not in plain.evidence


def test_other_process_container_self_pid_is_the_trainer() -> None:
    # No "this process has" fragment: the one listed process holds what PyTorch allocated.
    event = gpu_event(process_bytes=None, other_processes=[OtherProcess(1381433, 23 * GIB)])
    assert check("other_process_on_gpu", in_step(Facts(), event)) is None


def test_other_process_unaccounted_memory() -> None:
    event = gpu_event(process_bytes=12 * GIB, allocated_bytes=11 * GIB)
    assert check("other_process_on_gpu", in_step(Facts(), event)).params["reason"] == "unaccounted"


def test_other_process_windows_spill_is_not_evidence() -> None:
    event = gpu_event(total_bytes=16 * GIB, free_bytes=0, process_bytes=None, allocated_bytes=29 * GIB)
    assert check("other_process_on_gpu", in_step(Facts(), event)) is None


def test_other_process_user_says() -> None:
    f = Facts(said={"other_process_on_gpu.other_programs": "comfy is open"}, says_oom=True, has_oom=True)
    assert check("other_process_on_gpu", f).params["reason"] == "user_says"


@pytest.mark.parametrize("lang", LANGS)
def test_other_programs_next_line_follows_the_phase(lang: str) -> None:
    others = {"other_processes": [OtherProcess(pid=7, bytes=20 * GIB)], "process_bytes": GIB // 2}
    load = oom(
        config(*QWEN, **ALL_BUT_QUANTIZE),
        Phase.MODEL_LOAD,
        **others,
    )
    shown = texts("other_process_on_gpu", load, lang)
    assert "Batch Size" not in shown["next"] and "Quantize" in shown["next"], shown
    caching = oom(config(*QWEN, **ALL_ON), Phase.LATENT_CACHING, **others)
    shown = texts("other_process_on_gpu", caching, lang)
    assert "Batch Size" not in shown["next"] and "Datasets → Resolutions" in shown["next"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_zero_gib_held_by_others_is_not_quoted(lang: str) -> None:
    f = finding("other_process_on_gpu", ERR, ADV, others_gib=0.0, pids="", reason="user_says")
    text = everything(render_discord(Report([f], [], oom_facts(), lang, False)))
    assert not re.search(r"\b0 GiB", text)
    assert message("rules.other_process_on_gpu.action_plain", lang) in text
    assert message("rules.other_process_on_gpu.cause_plain", lang) in text


def test_other_process_is_said_in_both_languages() -> None:
    event = gpu_event(other_processes=[OtherProcess(654925, int(5.68 * GIB))])
    assert_said_in_both_languages("other_process_on_gpu", in_step(Facts(), event))


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_line_does_not_lower_a_batch_size_of_one(lang: str) -> None:
    batch = "Batch Size"
    # The user's word that another program runs, in a training step, with batch 1: buckets and preview.
    said = {"other_process_on_gpu.other_programs": "ComfyUI is open too"}
    others = oom(config(*FLUX, quantize=True, batch_size=1, said=said), Phase.TRAINING_STEP)
    shown = texts("other_process_on_gpu", others, lang)
    assert batch not in shown["next"] and ("bucket" in shown["next"] or "バケット" in shown["next"]), shown
    # No config: the batch size is not known, so lowering it stays on the list.
    others.has_config = others.config_parsed = False
    assert batch in texts("other_process_on_gpu", others, lang)["next"]
