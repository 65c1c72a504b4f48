"""`wrong_gpu`: the run is on (or sees) another card than the one meant — the config's `device:` against
the card that ran out, the user's words, CUDA_VISIBLE_DEVICES not honoured."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.facts_model import Facts
from diagnosis.render import render_cli
from diagnosis.rules import spec
from tests.rules.helpers import gpu_event, in_step

RULE = spec("wrong_gpu")


def test_the_config_selects_another_card_than_the_one_that_ran_out() -> None:
    found = RULE.check(in_step(Facts(device_index=3), gpu_event(device_index=0)))
    assert found is not None
    assert found.params == {"reason": "device_mismatch", "ran_on": "0"}


def test_the_same_card_or_no_device_index_is_no_finding() -> None:
    assert RULE.check(in_step(Facts(device_index=0), gpu_event(device_index=0))) is None
    assert (
        RULE.check(in_step(Facts(device_index=3), gpu_event(device_index=None, process_bytes=None))) is None
    )
    assert RULE.check(Facts()) is None


def test_a_device_the_user_names_counts_when_the_config_has_none() -> None:
    f = in_step(Facts(prose_device_index=2), gpu_event(device_index=0))
    assert RULE.check(f) is not None


@pytest.mark.parametrize(
    "words",
    [
        "ai-toolkit does not honor CUDA_VISIBLE_DEVICES env variable",
        "CUDA_VISIBLE_DEVICES=1 is ignored, it still uses all GPUs",
        "CUDA_VISIBLE_DEVICES を設定しても効かないです",
    ],
)
def test_a_gpu_choice_not_honoured_is_heard_without_any_oom(words: str) -> None:
    report = diagnose([words])
    found = [f for f in report.findings if f.rule_id == "wrong_gpu"]
    assert found and found[0].params["reason"] == "not_honoured"


@pytest.mark.parametrize(
    "words",
    [
        "I set GPU 2, but it actually runs on GPU 0 and OOMs",
        "I'm using the wrong GPU for Flux, which card is best?",
    ],
)
def test_the_run_on_another_card_in_words_but_not_a_card_unsuited_to_the_model(words: str) -> None:
    said = {f.rule_id for f in diagnose([words]).findings}
    assert ("wrong_gpu" in said) == ("actually" in words)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_reply_points_to_the_jobs_gpu_setting_the_ui_uses(lang: str) -> None:
    # AI Toolkit's UI sets CUDA_VISIBLE_DEVICES itself for each job from the job's GPU setting: a value
    # set before starting the UI is replaced, so that setting is what the reply leads with.
    report = diagnose(["ai-toolkit does not honor CUDA_VISIBLE_DEVICES on my multi GPU box"], locale=lang)
    text = render_cli(report, lang=lang)
    headline = text.splitlines()[0]
    assert ("GPU you chose" in headline) if lang == "en" else ("別の GPU" in headline)
    assert ("job's GPU setting" in text) if lang == "en" else ("ジョブの GPU 設定" in text)
    for command in ("CUDA_VISIBLE_DEVICES=1", '$env:CUDA_VISIBLE_DEVICES="1"', "set CUDA_VISIBLE_DEVICES=1"):
        assert command in text, command
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID" in text
