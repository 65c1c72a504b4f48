"""The rule `input_incomplete` (diagnosis/rules/input_incomplete.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import Phase
from tests.rules.helpers import assert_said_in_both_languages, check, facts, gpu_event


def test_input_incomplete_asks_for_exactly_what_is_missing() -> None:
    f = Facts(has_log=True, has_oom=True, gpu_oom=True, fatal=gpu_event(), vram_source="oom_message")
    # A log without its config: what to look at comes with the request, by the phase the log shows.
    assert check("input_incomplete", f).params == {"missing": ["config"], "phase": "unknown"}
    f.phase = Phase.TRAINING_STEP
    assert check("input_incomplete", f).params == {"missing": ["config"], "phase": "training_step"}
    nothing = Facts(vram_source="assumed")
    # Nothing says a run failed: the log is asked for up to where it stops, not "to the error".
    assert check("input_incomplete", nothing).params == {"missing": ["config", "log_until_stop", "gpu"]}
    said_oom = Facts(vram_source="assumed", says_oom=True, has_oom=True)
    assert check("input_incomplete", said_oom).params["missing"] == ["config", "log", "gpu"]


def test_input_incomplete_when_the_job_lacks_its_model_section() -> None:
    # The config was pasted but stops before `model:`: ask for the rest, not for "the config" again.
    f = facts(arch=None, vram_source="gpu_name")
    assert check("input_incomplete", f).params == {"missing": ["config_rest"]}


def test_input_complete() -> None:
    f = facts(has_log=True, fatal=gpu_event())
    assert check("input_incomplete", f) is None


def test_input_incomplete_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("input_incomplete", Facts(vram_source="assumed"))


CUT = (
    "my run dies, here is the end of the log:\n```\nTraceback (most recent call last):\n"
    '  File "/ai-toolkit/jobs/process/BaseSDTrainProcess.py", line 1842, in run\n'
    "    loss_dict = self.hook_train_loop(batch)\n"
    '  File "/ai-toolkit/extensions_built_in/SDTrainer.py", line 1577, in train_single_accumulation\n'
    "    self.accelerator.backward(loss)\n```\n"
)


def test_a_cut_traceback_says_the_phase_its_frames_show_in_both_languages() -> None:
    from diagnosis import diagnose
    from diagnosis.render import render_cli

    report = diagnose([CUT])
    found = [f for f in report.findings if f.rule_id == "input_incomplete"]
    assert found and found[0].params.get("cut_phase") == "training_step"
    en, ja = render_cli(report, lang="en"), render_cli(report, lang="ja")
    assert en.startswith("The traceback you pasted stops before its error line.")
    assert "a training step" in en and "The last 50 lines of the log" in en
    assert ja.startswith("貼っていただいたトレースバックは、エラーの行の前で切れています。")
    assert "学習ステップの逆伝播" in ja


QUANTIZE_TO_CPU = (
    "Traceback (most recent call last):\n"
    '  File "E:\\\\ai-toolkit\\\\toolkit\\\\models\\\\wan21\\\\wan21.py", line 377, in load_wan_transformer\n'
    "    quantize_model(self, transformer)\n"
    '  File "E:\\\\ai-toolkit\\\\toolkit\\\\util\\\\quantize.py", line 308, in quantize_model\n'
    '    block.to("cpu", non_blocking=True)\n'
    "RuntimeError: CUDA error: out of memory\n"
)


def test_an_oom_while_quantizing_names_system_ram_for_a_copy_back_to_the_cpu() -> None:
    # Blocks are quantized one at a time on the GPU whatever `low_vram` says: the reply no longer
    # claims the full-precision weights had to fit at once, and names pinned system RAM for an error
    # raised while a block goes back to the CPU.
    from diagnosis import diagnose
    from diagnosis.render import render_cli

    report = diagnose([QUANTIZE_TO_CPU], sources=["log.txt"])
    assert report.facts.phase is Phase.QUANTIZE
    en, ja = render_cli(report, lang="en"), render_cli(report, lang="ja")
    assert "what ran out is system RAM, not VRAM" in en and "had to fit at once" not in en
    assert "足りないのは VRAM ではなくメインメモリです" in ja


STEP_OOM = (
    '  File "/ai-toolkit/extensions_built_in/sd_trainer/SDTrainer.py", line 1577,'
    " in train_single_accumulation\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of"
    " 23.55 GiB of which 201.31 MiB is free.\n"
)


@pytest.mark.parametrize(
    ("words", "size", "en", "ja"),
    [
        ("Flux LoRA, OOM at step 2", "big", "FLUX.1 is a large model", "FLUX.1 は大きなモデルです"),
        ("SDXL LoRA, OOM at step 2", "small", None, None),
        ("my LoRA, OOM at step 2", None, "If the model is 12B or more", "モデルが 12B 以上"),
    ],
)
def test_a_log_without_its_config_names_the_known_model_in_its_checklist(
    words: str, size: str | None, en: str | None, ja: str | None
) -> None:
    from diagnosis import diagnose
    from diagnosis.render import render_cli

    report = diagnose([words + "\n" + STEP_OOM])
    (found,) = [f for f in report.findings if f.rule_id == "input_incomplete"]
    assert found.params.get("model_size") == size
    for lang, line in (("en", en), ("ja", ja)):
        text = render_cli(report, lang=lang)
        assert ("12B" in text) is (size is None), text
        if line is not None:
            assert line in text
