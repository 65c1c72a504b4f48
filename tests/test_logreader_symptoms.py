"""What the log reader finds besides an OOM: step times, where a log stops, silent exits, named errors,
and OOM messages in the shapes forums and consoles give them (issue #16)."""

from __future__ import annotations

import re
import textwrap
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.limits import Limits
from diagnosis.logreader import read_log
from diagnosis.logreader.exits import Exit, exit_of
from diagnosis.logreader.reader import _Reader
from diagnosis.logreader.speeds import seconds_per_step
from diagnosis.models import LogFacts, OomKind, Phase, Piece, PieceKind

GIB = 1024**3
MIB = 1024**2


def read(*lines: str, limits: Limits | None = None) -> LogFacts:
    piece = Piece(PieceKind.LOG, "\n".join(lines), "log.txt", 0, 0)
    return read_log(piece) if limits is None else read_log(piece, limits)


def bar(step: int, seconds: float, total: int = 1000, name: str = "my_lora") -> str:
    rate = f"{seconds:.2f}s/it" if seconds >= 1 else f"{1 / seconds:.2f}it/s"
    return (
        f"{name}: {100 * step // total:3d}%|█▏        | {step}/{total} [10:00<1:13:20, {rate}, "
        f"lr: 1.0e-04 loss: 3.1e-01]"
    )


def training(steps: int, slow_after: int | None = None) -> list[str]:
    lines = ["# Running job: my_lora", "Generating baseline samples before training"]
    for step in range(steps):
        lines.append(bar(step, 9.0 if slow_after is not None and step >= slow_after else 2.0))
    return lines


# ------------------------------------------------------------------------------------------------
# Step times


@pytest.mark.parametrize(
    ("line", "seconds"),
    [
        ("my_lora:  12%|█▏  | 120/1000 [10:00<1:13:20,  5.00s/it, lr: 1.0e-04 loss: 3.1e-01]", 5.0),
        ("Caching latents to disk:  50%|█████     | 60/120 [00:20<00:20,  4.00it/s]", 0.25),
        (" 88%|########8 | 22/25 [00:50<00:06,  2.02s/it]", 2.02),
        ("my_lora:   0%|          | 0/1000 [00:00<?, ?it/s]", None),
        ("1.23s/it but no bar", None),
    ],
)
def test_seconds_per_step(line: str, seconds: float | None) -> None:
    assert seconds_per_step(line) == seconds


def test_a_steady_run_has_no_slowdown() -> None:
    times = read(*training(400)).step_times
    assert times is not None
    assert (times.first_s, times.typical_s, times.last_s, times.seen) == (2.0, 2.0, 2.0, 400)
    assert times.slowdown_ratio == 1.0 and not times.slowed_down and times.slow_from is None


def test_a_several_fold_slowdown_mid_run() -> None:
    facts = read(*training(600, slow_after=300))
    times = facts.step_times
    assert times is not None
    assert (times.first_s, times.last_s) == (2.0, 9.0)
    assert times.slowed_down and times.slowdown_ratio == 4.5
    assert times.slow_from is not None and "9.00s/it" in times.slow_from.text
    assert 300 + 3 <= times.slow_from.line <= 600 + 2  # a line of the slow part
    assert times.last.line == 602


@pytest.mark.parametrize(("steps", "slow_after"), [(300, 150), (20_000, 15_000)])
def test_a_slowdown_read_through_skipped_redraws_is_read_as_line_by_line(steps: int, slow_after: int) -> None:
    lines = training(steps, slow_after=slow_after)
    skipped = read(*lines)
    with mock.patch.object(_Reader, "redraw_prefix", lambda self: None):
        fed = read(*lines)
    assert skipped.bar_times == fed.bar_times
    times = skipped.step_times
    assert times is not None and times.slowed_down and times.seen == steps
    assert times.slow_from is not None and lines[times.slow_from.line - 1] == times.slow_from.text


def test_two_pasted_bars_of_the_same_job_compare() -> None:
    facts = read(
        "**Version With Torchao Error**",
        "HR_Krea2:  19%|#9        | 501/2600 [00:21<12:24:06, 21.27s/it, lr: 9.2e-05 loss: 6.988e-02]",
        "",
        "**Latest version:**",
        "HR_Krea2:  19%|#9        | 501/2600 [05:03<177:04:17, 303.70s/it, lr: 9.3e-05 loss: 1.196e-01]",
    )
    times = facts.step_times
    assert times is not None and (times.first_s, times.last_s, times.seen) == (21.27, 303.7, 2)
    assert times.slowed_down


def test_bars_are_filed_under_what_they_count() -> None:
    facts = read(
        "# Running job: my_lora",
        "Loading checkpoint shards:  50%|█████     | 1/2 [00:30<00:30, 30.00s/it]",
        "Quantizing transformer",
        " - quantizing 57 transformer blocks",
        " 40%|████      | 23/57 [00:23<00:34,  1.01s/it]",
        "Caching latents to disk:  50%|█████     | 60/120 [00:20<00:20,  4.00it/s]",
        "Generating baseline samples before training",
        "Generating Samples:  25%|██▌       | 1/4 [00:03<00:09,  3.00s/it]",
        bar(0, 7.0),
        bar(1, 7.0),
    )
    assert {key: t.typical_s for key, t in facts.bar_times.items()} == {
        "model_load": 30.0,
        "quantize": 1.01,
        "latent_caching": 0.25,
        "sample": 3.0,
        "training": 7.0,
    }


def test_an_undescribed_bar_after_training_is_not_a_training_step() -> None:
    facts = read(*training(3), " 50%|#####     | 10/20 [00:10<00:10,  1.00s/it]")
    assert facts.step_times is not None and facts.step_times.seen == 3
    assert facts.bar_times["other"].typical_s == 1.0


def test_nan_loss_in_the_training_bar() -> None:
    lines = training(50)
    lines[-1] = lines[-1].replace("loss: 3.1e-01", "loss: nan")
    facts = read(*lines)
    assert facts.nan_loss is not None and facts.nan_loss.line == len(lines)
    assert read(*training(50)).nan_loss is None


def test_many_bar_descriptions_compile_no_pattern() -> None:
    lines = [
        f"Fetching shard {n}: {i * 10:3d}%|#  | {i}/10 [00:0{i}<00:10, 1.00it/s]"
        for n in range(50)
        for i in range(10)
    ]
    read(*lines)  # patterns compiled on first use are compiled now
    with mock.patch("re.compile", side_effect=AssertionError("compiled while reading")):
        facts = read(*(line.replace("shard", "part") for line in lines))
    assert facts.bar_times["other"].seen == 500


# ------------------------------------------------------------------------------------------------
# Where the log stops


@pytest.mark.parametrize(
    ("tail", "phase"),
    [
        (["Loading transformer", "Quantizing transformer"], Phase.QUANTIZE),
        (
            [
                "Loading Qwen Image model",
                "Loading checkpoint shards:  40%|####      | 2/5 [00:10<00:15,  5.00s/it]",
            ],
            Phase.MODEL_LOAD,
        ),
        (
            ["Quantizing transformer", "Caching latents for /data/set", " - Saving latents to disk"],
            Phase.LATENT_CACHING,
        ),
        (["Model Loaded", "Generating baseline samples before training"], Phase.FIRST_SAMPLE),
        (
            [
                "Skipping first sample due to config setting",
                "my_lora:   0%|          | 0/3000 [00:00<?, ?it/s]",
            ],
            Phase.TRAINING_STEP,
        ),
        (["Running 1 job", "# Running job: my_lora"], Phase.CONFIG_PARSE),
        (
            [
                "Loading transformer",
                " - quantizing 57 transformer blocks",
                " 40%|####      | 23/57 [00:23<00:34,  1.01s/it]",
            ],
            Phase.QUANTIZE,
        ),
    ],
)
def test_the_last_phase_of_a_log_that_stops(tail: list[str], phase: Phase) -> None:
    facts = read(*tail)
    assert (facts.last_phase, facts.ends_without_error) == (phase, True)
    assert facts.exit_code is None and not facts.silent_exit
    assert facts.last_phase_evidence is not None


def test_stuck_at_step_zero() -> None:
    facts = read("# Running job: my_lora", "Skipping first sample due to config setting", bar(0, 1.0, 3000))
    assert (facts.last_phase, facts.step, facts.ends_without_error) == (Phase.TRAINING_STEP, 0, True)


def test_an_error_after_the_last_phase_line_is_not_a_clean_end() -> None:
    facts = read("Quantizing transformer", "Error running job: CUDA error: unknown error")
    assert facts.last_phase is Phase.QUANTIZE and not facts.ends_without_error


# ------------------------------------------------------------------------------------------------
# Silent exits


@pytest.mark.parametrize(
    ("line", "ended"),
    [
        ("Killed", Exit(None, "SIGKILL")),
        ("[process exited with code 3221225477 (0xc0000005)]", Exit(3221225477, None)),
        ("Process finished with exit code -1073741819 (0xC0000005)", Exit(-1073741819, None)),
        ("Job process terminated with exit code 1.", Exit(1, None)),
        ("Job process terminated with signal SIGKILL.", Exit(None, "SIGKILL")),
        ("Job process exited unexpectedly. Last log line: Loading transformer", Exit(None, None)),
        ("exited with code 0", Exit(0, None)),
        ("['python', 'train.py'] exits with return code = -9", Exit(-9, "SIGKILL")),
        ("Exit status: 137", Exit(137, "SIGKILL")),
        ("Segmentation fault (core dumped)", Exit(None, "SIGSEGV")),
        ("[已退出进程，代码为 1 (0x00000001)]", Exit(1, None)),
        ("[プロセスはコード 1 (0x00000001) で終了しました]", Exit(1, None)),
        ("subprocess.CalledProcessError: Command 'tcc' returned non-zero exit status 1.", None),
        ("RuntimeError: the compiler exited with code 2", None),
        ("RuntimeError: DataLoader worker (pid(s) 1234) exited unexpectedly", None),
        ("Killing subprocess 1960", None),
        ("the exit sign is green", None),
    ],
)
def test_exit_lines(line: str, ended: Exit | None) -> None:
    assert exit_of(line) == ended


def test_exit_code_zero_with_nothing_else_is_a_silent_exit() -> None:
    facts = read("Running 1 job", "Loading transformer", "[process exited with code 0 (0x00000000)]")
    assert (facts.exit_code, facts.silent_exit, facts.ends_without_error) == (0, True, False)
    assert facts.last_phase is Phase.MODEL_LOAD


def test_a_kill_while_loading_is_a_silent_exit() -> None:
    facts = read("Loading transformer", "Killed")
    assert (facts.exit_signal, facts.silent_exit) == ("SIGKILL", True)
    assert facts.fatal is not None and facts.fatal.kind is OomKind.HOST_KILLED


def test_an_exit_after_a_traceback_is_not_silent() -> None:
    facts = read(
        "Traceback (most recent call last):",
        '  File "/w/ai-toolkit/run.py", line 1, in main',
        "KeyError: 'linear'",
        "exit code 1",
    )
    assert facts.exit_code == 1 and not facts.silent_exit


# ------------------------------------------------------------------------------------------------
# Errors that are not OOMs, named


@pytest.mark.parametrize(
    ("lines", "kind", "detail"),
    [
        (
            [
                'File ".../torchao/quantization/quant_primitives.py", line 260, in _get_reduction_params',
                "    input_size[i] % block_size[i] == 0",
                "AssertionError: Expecting input size at 0 dimension: 16384 to be divisible by block_size",
            ],
            "other",
            "quantize_assertion",
        ),
        (["RuntimeError: Failed to quantize transformer.blocks.3"], "other", "quantize_failed"),
        (["NameError: name 'tl' is not defined"], "other", "triton_error"),
        (
            ["Error running job: at 2:34:", "def int8_act_quant_kernel(", "    x_ptr, QMAX: tl.constexpr"],
            "other",
            "triton_error",
        ),
        (
            ["subprocess.CalledProcessError: Command '['tcc.exe', 'x.c']' returned non-zero exit status 1."],
            "compile_error",
            "compile_error",
        ),
        (
            ["FileNotFoundError: [Errno 2] No such file or directory: '/data/set/img_01.txt'"],
            "other",
            "file_not_found",
        ),
        (
            ["FileNotFoundError: [Errno 2] No such file or directory: '/data/control/img_01.png'"],
            "other",
            "control_image_missing",
        ),
        (["huggingface_hub.errors.GatedRepoError: 403 Client Error."], "hf_auth", "hf_gated"),
        (["requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url"], "hf_auth", "hf_auth"),
        (
            ["RuntimeError: CUDA error: no kernel image is available for execution on the device"],
            "no_kernel_image",
            "no_kernel_image",
        ),
        (["RuntimeError: CUDA error: unknown error"], "other", "cuda_unknown_error"),
        (["ValueError: loss is NaN, stopping"], "other", "nan_loss"),
        (["RuntimeError: DataLoader worker (pid(s) 4242) exited unexpectedly"], "other", "dataloader_worker"),
        (["ModuleNotFoundError: No module named 'prodigyopt'"], "missing_module", "missing_module"),
        (["KeyError: 'linear'"], "other", "other"),
    ],
)
def test_named_errors(lines: list[str], kind: str, detail: str) -> None:
    facts = read("Loading transformer", *lines)
    error = facts.non_oom_error
    assert error is not None
    assert (error.kind, error.detail) == (kind, detail)
    assert error.where.text in "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# An OOM message in any shape

MESSAGE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
    "of 15.99 GiB of which 0 bytes is free. Process 4242 has 3.00 GiB memory in use. Including "
    "non-PyTorch memory, this process has 12.70 GiB memory in use. Of the allocated memory 12.10 GiB is "
    "allocated by PyTorch, and 47.65 MiB is reserved by PyTorch but unallocated. If reserved but "
    "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
    "fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)
NUMBERS = (
    20 * MIB,
    round(15.99 * GIB),
    0,
    [(4242, 3 * GIB)],
    round(12.70 * GIB),
    round(12.10 * GIB),
    round(47.65 * MIB),
)


def numbers(facts: LogFacts) -> tuple[object, ...]:
    assert len(facts.events) == 1, facts.events
    e = facts.events[0]
    others = [(p.pid, p.bytes) for p in e.other_processes]
    return (
        e.tried_bytes,
        e.total_bytes,
        e.free_bytes,
        others,
        e.process_bytes,
        e.allocated_bytes,
        e.reserved_unallocated_bytes,
    )


def test_the_windows_console_break_keeps_the_card_and_the_other_process() -> None:
    at = MESSAGE.index("capacity")
    assert numbers(read(MESSAGE[:at].rstrip(), MESSAGE[at:], "Loading VAE")) == NUMBERS


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=60, max_value=220), st.booleans())
def test_a_message_wrapped_at_any_width_keeps_its_numbers(width: int, hard: bool) -> None:
    if hard:  # a console: every line exactly `width` characters, words and numbers cut anywhere
        lines = [MESSAGE[i : i + width] for i in range(0, len(MESSAGE), width)]
    else:  # a forum or `fold -s`: broken at blanks, the blank dropped
        lines = textwrap.wrap(MESSAGE, width, break_long_words=False, break_on_hyphens=False)
    assert numbers(read("Loading transformer", *lines, "", "Loading VAE")) == NUMBERS


def test_a_traceback_a_forum_joined_onto_one_line() -> None:
    joined = (
        'Traceback (most recent call last): File "/w/ai-toolkit/run.py", line 112, in main job.run() '
        + MESSAGE
    )
    facts = read("Generating baseline samples before training", joined)
    assert numbers(facts) == NUMBERS
    assert facts.has_traceback and not facts.cut_before_error


def test_a_whole_log_joined_onto_one_line_counts_each_process_once() -> None:
    message = MESSAGE.split(": ", 1)[1]
    joined = (
        f"Error running job: {message} ======================================== Result: - 0 completed "
        f"jobs - 1 failure ======================================== Traceback (most recent call last): "
        f'File "run.py", line 1, in main {MESSAGE}'
    )
    assert numbers(read(joined)) == NUMBERS


def test_a_message_quoted_in_backticks_inside_a_sentence() -> None:
    sentence = f"after 20 steps I get `{MESSAGE}` and the job stops"
    assert numbers(read(sentence)) == NUMBERS


# ------------------------------------------------------------------------------------------------
# Arbitrary text

RATE_TEXT = st.text(st.sampled_from([*"0123456789.%|[]<>,: ?sitS/-\n"]) | st.characters(), max_size=200)


@given(RATE_TEXT)
def test_seconds_per_step_takes_any_text(text: str) -> None:
    seconds = seconds_per_step(text)
    assert seconds is None or seconds >= 0


EXIT_PARTS = st.sampled_from(
    ["exit code", "exited with code", "Killed", "SIGKILL", "代码为", "退出", "0x", "-", "="]
)


@given(
    st.lists(EXIT_PARTS | st.text(st.sampled_from([*"0123456789 xX:"]) | st.characters(), max_size=12)).map(
        "".join
    )
)
def test_exit_of_takes_any_text(text: str) -> None:
    ended = exit_of(text)
    assert ended is None or isinstance(ended, Exit)


BAR_PARTS = st.sampled_from(
    [
        bar(1, 2.0),
        bar(2, 9.0),
        bar(3, 0.5),
        " 50%|##  | 1/2 [00:01<00:01,  1.00s/it]",
        "Quantizing transformer",
        "Killed",
        "exit code 0",
        "loss: nan",
        "Generating baseline samples before training",
        "\n",
        "\r",
    ]
)


@settings(max_examples=200)
@given(st.lists(BAR_PARTS | st.text(max_size=30), max_size=30).map("\n".join))
def test_symptoms_on_arbitrary_logs_are_consistent(text: str) -> None:
    facts = read(text)
    lines = text.count("\n") + 1
    for times in facts.bar_times.values():
        assert times.seen >= 1 and 1 <= times.first.line <= times.last.line <= lines
        assert min(times.first_s, times.typical_s, times.last_s) >= 0
        assert times.slowed_down == (times.slow_from is not None)
    assert not (facts.silent_exit and facts.ends_without_error)
    assert facts.silent_exit <= (facts.exit_evidence is not None)
    assert (facts.last_phase is Phase.UNKNOWN) == (facts.last_phase_evidence is None)


# ------------------------------------------------------------------------------------------------
# The facts the rules read


def test_facts_carry_the_symptoms() -> None:
    log = "\n".join(
        [*training(300, slow_after=150), "Saving at step 300", "[process exited with code 0 (0x00000000)]"]
    )
    facts = diagnose([log]).facts
    assert (facts.step_time_first_s, facts.step_time_last_s, facts.step_slowdown) == (2.0, 9.0, True)
    assert facts.step_times_seen == 300 and facts.step_slowdown_ratio == 4.5
    assert (facts.exit_code, facts.silent_exit, facts.ends_without_error) == (0, True, False)
    assert facts.last_phase is Phase.SAVE
    assert {"step_times", "step_slowdown", "exit", "last_phase"} <= facts.evidence.keys()


def test_facts_name_the_error() -> None:
    facts = diagnose(["Loading transformer\nRuntimeError: CUDA error: unknown error\n"]).facts
    assert (facts.error_kind, facts.not_oom_kind) == ("cuda_unknown_error", "other")
    assert facts.error_headline == "RuntimeError: CUDA error: unknown error"
    assert re.search("unknown error", facts.evidence["error"].text)


def test_a_stall_is_a_clean_end_in_the_facts() -> None:
    facts = diagnose(["Running 1 job\nLoading transformer\nQuantizing transformer\n"]).facts
    assert (facts.last_phase, facts.ends_without_error, facts.silent_exit) == (Phase.QUANTIZE, True, False)
