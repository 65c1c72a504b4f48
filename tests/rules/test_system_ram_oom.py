"""The rule `system_ram_oom` (diagnosis/rules/system_ram_oom.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.models import LogLine, OomEvent, OomKind, Phase
from tests.rules.helpers import (
    ALL_ON,
    LANGS,
    QWEN,
    VRAM_ONLY,
    assert_said_in_both_languages,
    check,
    config,
    host,
    in_step,
    ladder_after_host_oom,
    texts,
)


def test_system_ram_oom_signals() -> None:
    assert check("system_ram_oom", host(OomKind.HOST_KILLED)).params["signal"] == "killed"
    ui = host(OomKind.HOST_KILLED, "Job process exited unexpectedly. Last log line: x")
    assert check("system_ram_oom", ui).params["signal"] == "ui_exit"
    assert check("system_ram_oom", host(OomKind.HOST_ALLOC)).params["signal"] == "cpu_alloc"
    assert check("system_ram_oom", Facts(says_host_killed=True)).params["signal"] == "killed"


def test_system_ram_oom_not_for_a_gpu_oom() -> None:
    assert check("system_ram_oom", in_step(Facts())) is None


@pytest.mark.parametrize("lang", LANGS)
def test_host_ram_fixes_suit_the_phase_and_the_config(lang: str) -> None:
    f = config(*QWEN, **ALL_ON)
    f.datasets = [DatasetFacts(index=0, latents_cached=True, latents_on_disk=True)]
    f.has_log = f.has_oom = True
    f.host_oom = OomEvent(OomKind.HOST_KILLED, LogLine(1, "Killed"))
    # Latents already go to disk: that is not a lever left.
    f.phase = Phase.TRAINING_STEP
    assert "cache_latents_to_disk" not in texts("system_ram_oom", f, lang)["fix"]
    # While the model loads, no dataset has been read: neither latents nor workers matter yet.
    f.phase = Phase.QUANTIZE
    shown = texts("system_ram_oom", f, lang)
    assert "cache_latents_to_disk" not in shown["fix"] and "num_workers" not in shown["fix"], shown
    # Latents cached in RAM only, after loading: moving them to disk is the lever, with the workers.
    f.datasets = [DatasetFacts(index=0, latents_cached=True)]
    f.phase = Phase.TRAINING_STEP
    shown = texts("system_ram_oom", f, lang)
    assert "cache_latents_to_disk" in shown["fix"] and "num_workers" in shown["fix"], shown


def test_system_ram_oom_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("system_ram_oom", host(OomKind.HOST_KILLED))


def test_the_steps_after_a_host_ram_oom_stay_host_side() -> None:
    # Issue #19: step 2 after the OOM killer was a VRAM fix (gradient checkpointing, Low VRAM).
    ids = ladder_after_host_oom(OomKind.HOST_KILLED, "Out of memory: Killed process 2187 (python)")
    assert ids[0] == "system_ram_oom" and not set(ids) & VRAM_ONLY, ids
