"""`not_oom`: no out-of-memory at all — an error of another kind, a slowdown, a hang or a silent exit —
said plainly, with what it most likely is, never an OOM checklist in its place."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.facts_model import Facts
from diagnosis.render import render_cli
from diagnosis.report import Report
from diagnosis.rules import run_rules
from tests.golden.cases import ADV, ERR, ev, finding
from tests.rules.helpers import assert_said_in_both_languages, check, facts


def not_oom_params(text: str, locale: str | None = None) -> dict[str, object]:
    found = [f for f in diagnose([text], locale=locale).findings if f.rule_id == "not_oom"]
    assert found, text
    return dict(found[0].params)


def test_a_log_that_gets_several_times_slower_is_a_slowdown() -> None:
    bars = [
        f"lora:  {i}%|  | {i * 10}/1000 [00:10<01:00,  {s}s/it, lr: 1e-4 loss: 0.1]"
        for i, s in enumerate([2.0, 2.1, 2.0, 2.2, 9.5, 11.0, 10.4], start=1)
    ]
    params = not_oom_params("\n".join(["Running 1 job", *bars]))
    assert params["kind"] == "slowdown" and float(str(params["ratio"])) >= 3


@pytest.mark.parametrize(
    ("text", "kind", "extra"),
    [
        (
            "If I increase batch size to 4 the time per iteration goes from 6.5 sec/it to 22 sec/it",
            "slowdown",
            {"detail": "batch_scaling"},
        ),
        ("stuck at Step 0 of 3000, there are no other error messages", "stall", {}),
        ("学習を始めると Quantizing transformer で止まったまま進みません", "stall", {}),
        (
            "It starts the job and then quits without any issue shown, just says exit job with error 0",
            "silent_exit",
            {},
        ),
        ("訓練中にターミナルが直接退出，无报错信息", "silent_exit", {}),
        (
            "It gets to the Quantizing UMT5EncoderModel part then just ends with no error or crash,"
            " it just goes back to (venv) C:\\AITOOLKIT\\ai-toolkit>",
            "silent_exit",
            {},
        ),
        ("量子化の途中で、エラーも出ずにプロンプトに戻ってしまいます", "silent_exit", {}),
        # The job never got going: the UI's "Starting job..." or a job left in the queue.
        (
            "I have installed the toolkit but when I click start it says starting but nothing happens.",
            "stall",
            {"at": "job_start"},
        ),
        ("Starting Job for hours", "stall", {"at": "job_start"}),
        ("The job stays queued and never runs", "stall", {"at": "job_start"}),
        ("Starting job... のまま 1 時間たっても進みません", "stall", {"at": "job_start"}),
        ("Lokr training shows a geometric increase in training time.", "slowdown", {}),
        ("each epoch takes longer and longer with my LoRA", "slowdown", {}),
        ("now training qwen loras is almost impossible with the extremly low speed", "slowdown", {}),
    ],
)
def test_symptoms_in_words(text: str, kind: str, extra: dict[str, object]) -> None:
    params = not_oom_params(text)
    assert params["kind"] == kind
    assert extra.items() <= params.items()


def test_a_log_that_stops_while_quantizing_is_a_stall_there() -> None:
    log = "\n".join(["Running 1 job", "Loading Flux model", "Loading transformer", "Quantizing transformer"])
    params = not_oom_params(log)
    assert (params["kind"], params.get("at")) == ("stall", "quantize")


@pytest.mark.parametrize(
    ("step", "at"), [(0, "training_step"), (1, "training"), (49, "training"), (1499, "training")]
)
def test_a_stall_after_many_steps_is_not_called_the_first_step(step: int, at: str) -> None:
    bar = f"my_lora:   2%|      | {step}/3000 [13:26<10:08,  3.80s/it, lr: 1.0e-04 loss: 9.602e-01]"
    params = not_oom_params("\n".join(["Running 1 job", "Loading Flux model", bar]))
    assert (params["kind"], params.get("at")) == ("stall", at)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_job_that_never_started_is_told_where_to_look(lang: str) -> None:
    from diagnosis.render.catalogue import message

    text = render_cli(diagnose(["Starting Job for hours, nothing in the console"], locale=lang), lang=lang)
    assert message("rules.not_oom.variant.at.job_start", lang) in text


def test_a_silent_exit_in_the_log_quotes_its_line_and_code() -> None:
    log = "\n".join(["Running 1 job", "Loading Flux model", "Process exited with code 0"])
    params = not_oom_params(log)
    assert params["kind"] == "silent_exit"


def test_an_assertion_in_the_quantize_path_is_named() -> None:
    log = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/ai-toolkit/toolkit/memory_management/manager.py", line 120, in offload',
            "    assert block_size > 0",
            "AssertionError",
        ]
    )
    params = not_oom_params(log)
    assert params.get("detail") == "quantize_assertion"


def test_an_oom_is_never_a_symptom() -> None:
    report = diagnose(
        [
            "it got really slow and then:\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
        ]
    )
    assert "not_oom" not in {f.rule_id for f in report.findings}


def test_a_slowdown_drops_the_oom_checklist_but_a_stall_keeps_it() -> None:
    config = (
        "config:\n  process:\n    - type: sd_trainer\n      network:\n        linear: 256\n"
        "      model:\n        name_or_path: black-forest-labs/FLUX.1-dev\n"
    )
    slow = {
        f.rule_id
        for f in diagnose([config, "Ubuntu, RTX 3090: training is much slower than yesterday"]).findings
    }
    assert "not_oom" in slow and "high_rank" not in slow
    stuck = {
        f.rule_id
        for f in diagnose(
            [config, "Ubuntu, RTX 3090: it is stuck at generating the baseline samples, no error"]
        ).findings
    }
    assert "not_oom" in stuck


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(
    "text",
    [
        "stuck at Quantizing transformer for an hour, no error",
        "the job exits with code 0 and no error",
        "training became 10x slower today",
    ],
)
def test_the_reply_says_it_is_not_an_oom_and_what_to_do(text: str, lang: str) -> None:
    reply = render_cli(diagnose([text], locale=lang), lang=lang)
    first = reply.splitlines()[0]
    assert (
        ("not an out-of-memory error" in first)
        if lang == "en"
        else ("メモリ不足のエラーではありません" in first)
    )
    assert "python run.py" in reply or "s/it" in reply
    # Asking for more comes last, never first.
    assert not first.startswith(("I need", "何のメモリ"))


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
