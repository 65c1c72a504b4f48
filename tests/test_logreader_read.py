"""read_log behaviour on small logs: dedupe, caught OOMs, phase, step, echo, errors, limits, environment."""

from __future__ import annotations

import json

import pytest

from diagnosis.limits import Limits
from diagnosis.logreader import read_log
from diagnosis.logreader.lines import log_text
from diagnosis.models import LogFacts, OomKind, Phase, Piece, PieceKind, StepPart

GIB = 1024**3
MIB = 1024**2

OOM = (
    "CUDA out of memory. Tried to allocate 576.00 MiB. GPU 0 has a total capacity of 23.55 GiB of which "
    "312.44 MiB is free. Including non-PyTorch memory, this process has 23.22 GiB memory in use. Of the "
    "allocated memory 22.41 GiB is allocated by PyTorch, and 386.27 MiB is reserved by PyTorch but "
    "unallocated."
)
RESULT = [
    "",
    "========================================",
    "Result:",
    " - 0 completed jobs",
    " - 1 failure",
    "========================================",
]
RUN_FRAMES = [
    "Traceback (most recent call last):",
    '  File "/home/u/ai-toolkit/run.py", line 120, in main',
    "    job.run()",
    '  File "/home/u/ai-toolkit/jobs/ExtensionJob.py", line 22, in run',
    "    process.run()",
]
BAR = "my_lora:  12%|█▏        | {step}/3000 [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01]"


def frame(path: str, func: str, code: str = "x = y()") -> list[str]:
    return [f'  File "{path}", line 10, in {func}', f"    {code}"]


def read(*lines: str, limits: Limits | None = None, line_offset: int = 0) -> LogFacts:
    piece = Piece(PieceKind.LOG, "\n".join(lines), "log.txt", 0, line_offset)
    return read_log(piece) if limits is None else read_log(piece, limits)


def crash(*before: str, frames: list[str] | None = None, message: str = OOM) -> LogFacts:
    """A log in AI Toolkit's shape: lines, `Error running job:`, the result banner, a traceback."""
    tail = [*RUN_FRAMES, *(frames or []), f"torch.OutOfMemoryError: {message}"]
    return read(*before, f"Error running job: {message}", *RESULT, *tail)


# ------------------------------------------------------------------------------------------------
# Events


def test_error_line_and_traceback_line_are_one_event() -> None:
    facts = crash("Loading transformer")
    assert len(facts.events) == 1
    assert facts.fatal is facts.events[0]
    assert facts.fatal.where.line == 2
    assert facts.fatal.tried_bytes == 576 * MIB
    assert facts.has_traceback and not facts.cut_before_error


def test_the_same_message_at_two_steps_is_two_events() -> None:
    facts = read(BAR.format(step=10), f"RuntimeError: {OOM}", BAR.format(step=11), f"RuntimeError: {OOM}")
    assert len(facts.events) == 2


def test_caught_banners_mark_in_step_ooms_and_the_abort_is_fatal() -> None:
    banner = [
        "################################################",
        "# OOM during training step, skipping batch {k}/3 #",
    ]
    lines = ["Generating baseline samples before training", BAR.format(step=0)]
    for k in (1, 2, 3):
        lines += [line.format(k=k) for line in banner] + [banner[0], ""]
    lines.append("Error running job: OOM during training step 3 times in a row, aborting training")
    lines += (
        RESULT + RUN_FRAMES + ["RuntimeError: OOM during training step 3 times in a row, aborting training"]
    )
    facts = read(*lines)
    assert [e.caught for e in facts.events] == [True, True, True, False]
    assert facts.fatal is facts.events[-1]
    assert facts.phase is Phase.TRAINING_STEP
    assert facts.step == 0


def test_a_message_right_before_a_banner_is_the_caught_oom() -> None:
    facts = read(
        BAR.format(step=5),
        f"torch.OutOfMemoryError: {OOM}",
        "# OOM during training step, skipping batch 1/3 #",
    )
    assert len(facts.events) == 1
    assert facts.events[0].caught and facts.events[0].tried_bytes == 576 * MIB
    assert facts.fatal is None


def test_kill_reported_by_the_ui_and_the_kernel_is_one_event() -> None:
    facts = read(
        "Quantizing Text Encoder",
        "Job process terminated with signal SIGKILL.",
        "[Sat Feb 14 01:12:44 2026] Out of memory: Killed process 21873 (python) total-vm:61843392kB, "
        "anon-rss:30912448kB, file-rss:70324kB, shmem-rss:0kB",
    )
    assert len(facts.events) == 1
    assert facts.fatal is not None and facts.fatal.kind is OomKind.HOST_KILLED
    assert facts.fatal.process_bytes == 30912448 * 1024
    assert facts.phase is Phase.QUANTIZE


def test_killed_during_training_keeps_the_step() -> None:
    facts = read(BAR.format(step=120), BAR.format(step=121), "Killed")
    assert facts.fatal is not None and facts.fatal.kind is OomKind.HOST_KILLED
    assert facts.phase is Phase.TRAINING_STEP
    assert (facts.step, facts.total_steps) == (121, 3000)


# ------------------------------------------------------------------------------------------------
# Lines: redraws, colours, cut lines


def test_progress_bar_and_error_on_one_line() -> None:
    facts = read(
        "Generating baseline samples before training", BAR.format(step=1) + f"Error running job: {OOM}"
    )
    assert facts.phase is Phase.TRAINING_STEP
    assert facts.step == 1
    assert facts.fatal is not None and facts.fatal.where.line == 2


def test_carriage_return_redraws() -> None:
    redraws = "\r".join(BAR.format(step=n) for n in (7, 8, 9))
    facts = read(redraws + "\rError running job: CUDA error: out of memory")
    assert facts.step == 9
    assert facts.fatal is not None and facts.fatal.kind is OomKind.CUDA_ERROR


def test_ansi_colours_are_ignored() -> None:
    facts = read("\x1b[32mCaching latents for /data/x\x1b[0m", f"\x1b[31mError running job: {OOM}\x1b[0m")
    assert facts.phase is Phase.LATENT_CACHING
    assert facts.fatal is not None and facts.fatal.allocated_bytes == round(22.41 * GIB)


def test_overlong_lines_are_cut_and_reported() -> None:
    facts = read("a" * 50_000 + OOM, limits=Limits(max_line_chars=1_000))
    assert facts.events == []
    assert "max_line_chars" in facts.limits_hit


def test_timestamped_lines() -> None:
    facts = read(
        "2026-11-30T01:02:03.123456789Z Caching latents for /data/x",
        f"2026-11-30T01:02:09.000000001Z Error running job: {OOM}",
    )
    assert facts.phase is Phase.LATENT_CACHING
    assert facts.fatal is not None and facts.fatal.tried_bytes == 576 * MIB


def test_nul_and_bom_do_not_break_reading() -> None:
    facts = read("\ufeffLoading transformer", "G\x00P\x00U\x00", f"RuntimeError: {OOM}")
    assert facts.fatal is not None and facts.phase is Phase.MODEL_LOAD


def test_nul_characters_leave_a_text_wider_than_ascii_as_well() -> None:
    # log_text finds NULs in such a text by counting (a different test from the ASCII one).
    assert log_text("学\x00習\x00 Killed") == "学習 Killed"
    assert log_text("G\x00P\x00U") == "GPU"


# ------------------------------------------------------------------------------------------------
# Phase


def test_quantize_frames_beat_the_loading_marker() -> None:
    frames = [
        *frame("/home/u/ai-toolkit/jobs/process/BaseSDTrainProcess.py", "run", "self.sd.load_model()"),
        *frame(
            "/home/u/ai-toolkit/toolkit/stable_diffusion_model.py", "load_model", "quantize_model(self, t)"
        ),
        *frame("/home/u/ai-toolkit/toolkit/util/quantize.py", "quantize_model", "quantize(m, weights=qtype)"),
        *frame("/home/u/venv/lib/python3.11/site-packages/optimum/quanto/quantize.py", "quantize"),
    ]
    facts = crash("Loading transformer", frames=frames)
    assert facts.phase is Phase.QUANTIZE
    assert facts.phase_evidence is not None and "quantize" in facts.phase_evidence.text


def test_latent_caching_frames() -> None:
    frames = [
        *frame("/w/ai-toolkit/jobs/process/BaseSDTrainProcess.py", "run"),
        *frame("/w/ai-toolkit/toolkit/data_loader.py", "get_dataloader_from_datasets"),
        *frame("/w/ai-toolkit/toolkit/dataloader_mixins.py", "cache_latents_all_latents"),
        *frame("/w/ai-toolkit/toolkit/stable_diffusion_model.py", "encode_images"),
    ]
    assert crash("Bucket sizes for /d:", frames=frames).phase is Phase.LATENT_CACHING


def test_text_embedding_caching_marker() -> None:
    facts = read(
        "Caching text_embeddings for /d",
        "Caching text embeddings to disk:  50%|█████     | 17/34 [00:04<00:04,  3.92it/s]",
        f"Error running job: {OOM}",
    )
    assert facts.phase is Phase.TEXT_EMBEDDING_CACHING


def test_dataloader_marker() -> None:
    assert (
        read("Bucket sizes for /d:", "1024x1024: 18 files", f"RuntimeError: {OOM}").phase is Phase.DATALOADER
    )


SAMPLE_FRAMES = [
    *frame("/w/ai-toolkit/jobs/process/BaseSDTrainProcess.py", "run", "self.sample(self.step_num)"),
    *frame("/w/ai-toolkit/jobs/process/BaseSDTrainProcess.py", "sample"),
    *frame("/w/ai-toolkit/toolkit/models/base_model.py", "generate_images"),
]


def test_sample_frames_before_the_loop_are_the_first_sample() -> None:
    facts = crash("Generating baseline samples before training", frames=SAMPLE_FRAMES)
    assert facts.phase is Phase.FIRST_SAMPLE
    assert facts.step is None


def test_sample_frames_after_the_loop_started_are_periodic_sampling() -> None:
    facts = crash(BAR.format(step=499), BAR.format(step=500), frames=SAMPLE_FRAMES)
    assert facts.phase is Phase.SAMPLING
    assert facts.step == 500


def test_sampling_bar_after_training_without_traceback() -> None:
    facts = read(
        BAR.format(step=250),
        "Generating Images:  25%|██▌       | 1/4 [00:03<00:09,  3.1s/it]",
        f"Error running job: {OOM}",
    )
    assert facts.phase is Phase.SAMPLING


def test_backward_and_optimizer_frames() -> None:
    loop = [
        *frame("/w/ai-toolkit/jobs/process/BaseSDTrainProcess.py", "run", "self.hook_train_loop(batch)"),
        *frame("/w/ai-toolkit/extensions_built_in/sd_trainer/SDTrainer.py", "hook_train_loop"),
    ]
    backward = crash(
        BAR.format(step=3), frames=[*loop, *frame("/v/site-packages/torch/_tensor.py", "backward")]
    )
    assert (backward.phase, backward.step_part) == (Phase.TRAINING_STEP, StepPart.BACKWARD)
    optimizer = crash(
        BAR.format(step=3),
        frames=[
            *loop,
            *frame("/v/site-packages/torch/optim/optimizer.py", "wrapper"),
            *frame("/v/adamw.py", "step"),
        ],
    )
    assert optimizer.step_part is StepPart.OPTIMIZER
    forward = crash(
        BAR.format(step=3), frames=[*loop, *frame("/v/site-packages/torch/nn/modules/module.py", "forward")]
    )
    assert forward.step_part is StepPart.FORWARD


def test_save_marker_and_frames() -> None:
    assert read(BAR.format(step=500), "Saving at step 500", "Killed").phase is Phase.SAVE
    frames = [*frame("/w/ai-toolkit/jobs/process/BaseSDTrainProcess.py", "save")]
    assert crash(BAR.format(step=500), frames=frames).phase is Phase.SAVE


def test_config_parse_frames() -> None:
    facts = read(
        "Running 1 job",
        "Error running job: while scanning for the next token",
        *RESULT,
        *RUN_FRAMES[:1],
        *frame("C:\\ai\\ai-toolkit\\toolkit\\job.py", "get_job"),
        *frame("C:\\ai\\ai-toolkit\\toolkit\\config.py", "get_config"),
        "yaml.scanner.ScannerError: while scanning for the next token",
        "found character '\\t' that cannot start any token",
    )
    assert facts.phase is Phase.CONFIG_PARSE
    assert facts.non_oom_error is not None and facts.non_oom_error.kind == "config_error"
    assert facts.os == "windows"


def test_small_allocation_with_nothing_else_is_model_load() -> None:
    tiny = OOM.replace("22.41 GiB is allocated", "62.54 MiB is allocated")
    assert read(f"torch.OutOfMemoryError: {tiny}").phase is Phase.MODEL_LOAD
    assert read(f"torch.OutOfMemoryError: {OOM}").phase is Phase.UNKNOWN


def test_a_traceback_ended_by_ctrl_c_is_not_cut() -> None:
    facts = read(*RUN_FRAMES, "KeyboardInterrupt")
    assert facts.has_traceback and not facts.cut_before_error
    assert facts.non_oom_error is None and facts.events == []


def test_cut_traceback() -> None:
    facts = read(*RUN_FRAMES, '  File "/home/u/ai-tool')
    assert facts.has_traceback and facts.cut_before_error
    assert facts.events == []


# ------------------------------------------------------------------------------------------------
# Echoed config, job, device


PROCESS = {
    "type": "sd_trainer",
    "training_folder": "output",
    "device": "cuda:3",
    "network": {"type": "lora", "linear": 16},
    "train": {"batch_size": 1, "gradient_checkpointing": True},
    "model": {"name_or_path": "black-forest-labs/FLUX.1-dev", "quantize": True},
}


def test_echoed_config_is_recovered_with_its_line_offset() -> None:
    echo = json.dumps(PROCESS, indent=4).split("\n")
    lines = ["Running 1 job", "#############", "# Running job: my_lora", "#############", "", *echo]
    lines += ["Running  1 process", "Loading transformer", f"Error running job: {OOM}"]
    facts = read(*lines, line_offset=7)
    assert facts.echoed_config is not None
    assert facts.echoed_config.kind is PieceKind.CONFIG_JSON and facts.echoed_config.from_log
    assert facts.echoed_config.line_offset == 7 + 5
    assert json.loads(facts.echoed_config.text) == PROCESS
    assert facts.job_name == "my_lora"
    assert facts.device_index == 3  # the config's device …
    assert facts.fatal is not None and facts.fatal.device_index == 0  # … while the message names GPU 0


def test_a_whole_job_pasted_is_not_an_echo() -> None:
    job = json.dumps({"job": "extension", "config": {"name": "x", "process": [PROCESS]}}, indent=2)
    assert read(job, f"RuntimeError: {OOM}").echoed_config is None


def test_unfinished_echo_is_not_recovered() -> None:
    echo = json.dumps(PROCESS, indent=4).split("\n")[:-3]
    assert read(*echo).echoed_config is None


# ------------------------------------------------------------------------------------------------
# Non-OOM errors


def test_missing_module_beside_an_oom() -> None:
    facts = read(
        "ModuleNotFoundError: No module named 'prodigyopt'", BAR.format(step=2), f"Error running job: {OOM}"
    )
    assert facts.fatal is not None
    assert facts.non_oom_error is not None
    assert facts.non_oom_error.kind == "missing_module"
    assert facts.non_oom_error.where.line == 1


def test_no_kernel_image() -> None:
    facts = read("RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert facts.events == []
    assert facts.non_oom_error is not None and facts.non_oom_error.kind == "no_kernel_image"


def test_hf_auth_from_the_lines_after_the_headline() -> None:
    facts = read(
        "Loading transformer",
        "Error running job: You are trying to access a gated repo.",
        "Make sure to have access to it at https://huggingface.co/black-forest-labs/FLUX.1-dev.",
        "401 Client Error. (Request ID: Root=1-69a3f0c2)",
    )
    assert facts.non_oom_error is not None and facts.non_oom_error.kind == "hf_auth"
    assert facts.non_oom_error.headline == "You are trying to access a gated repo."
    assert facts.phase is Phase.MODEL_LOAD


def test_unknown_cuda_error_is_other_not_oom() -> None:
    facts = read("Error running job: CUDA error: unknown error")
    assert facts.events == []
    assert facts.non_oom_error is not None and facts.non_oom_error.kind == "other"


# ------------------------------------------------------------------------------------------------
# Limits


def test_event_limit_keeps_the_first_and_the_latest() -> None:
    lines: list[str] = []
    for step in range(10):
        lines += [BAR.format(step=step), f"RuntimeError: {OOM.replace('576.00', f'{step}.00')}"]
    facts = read(*lines, limits=Limits(max_events=3))
    assert len(facts.events) == 3
    assert facts.events_dropped == 7
    assert "max_events" in facts.limits_hit
    assert facts.events[0].tried_bytes == 0
    assert facts.fatal is facts.events[-1] and facts.fatal.tried_bytes == 9 * MIB


# ------------------------------------------------------------------------------------------------
# Environment


SMI = [
    "+-----------------------------------------------------------------------------------------+",
    "| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |",
    "|-----------------------------------------+------------------------+----------------------+",
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
    "|=========================================+========================+======================|",
    "|   0  NVIDIA RTX 2000 Ada Gene...    Off |   00000000:01:00.0 Off |                  Off |",
    "| 30%   40C    P8             10W /   70W |   15200MiB /  16380MiB |      0%      Default |",
    "|   1  NVIDIA GeForce RTX 3090        Off |   00000000:02:00.0 Off |                  N/A |",
    "| 30%   35C    P8             20W /  350W |       2MiB /  24576MiB |      0%      Default |",
    "+-----------------------------------------+------------------------+----------------------+",
]


def test_nvidia_smi_table_picks_the_run_device() -> None:
    facts = read(*SMI, f"RuntimeError: {OOM.replace('GPU 0 has', 'GPU 1 has')}")
    assert facts.device_index == 1
    assert facts.gpu_name == "RTX 3090"
    assert facts.gpu_total_bytes == 24576 * MIB
    first = read(*SMI)
    assert (first.gpu_name, first.gpu_total_bytes) == ("RTX 2000 Ada", 16380 * MIB)


def test_nvidia_smi_list_gives_device_indexes() -> None:
    facts = read(
        "GPU 0: NVIDIA RTX 2000 Ada Generation (UUID: GPU-1)",
        "GPU 1: NVIDIA GeForce RTX 3090 (UUID: GPU-2)",
        f"RuntimeError: {OOM.replace('GPU 0 has', 'GPU 1 has')}",
    )
    assert (facts.device_index, facts.gpu_name) == (1, "RTX 3090")


def test_gpu_named_in_a_log_line_gives_its_class() -> None:
    facts = read("Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync")
    assert (facts.gpu_name, facts.gpu_total_bytes) == ("RTX 4090", 24 * GIB)


def test_operating_system_and_versions() -> None:
    linux = read('  File "/root/ai-toolkit/run.py", line 1, in main', "torch==2.5.1+cu124")
    assert (linux.os, linux.torch_version) == ("linux", "2.5.1+cu124")
    mac = read('  File "/Users/kim/ai-toolkit/run.py", line 1, in main', "PyTorch version: 2.4.0")
    assert (mac.os, mac.torch_version) == ("macos", "2.4.0")
    windows = read('  File "E:\\AI\\ai-toolkit\\run.py", line 1, in main', "AI Toolkit version: 0.7.12")
    assert (windows.os, windows.trainer_version) == ("windows", "0.7.12")


def test_a_console_wrapped_message_is_read_whole() -> None:
    facts = read(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total",
        "capacity of 23.99 GiB of which 0 bytes is free. Process 4242 has 3.00 GiB memory in use. Of the",
        "allocated memory 19.10 GiB is allocated by PyTorch, and 47.65 MiB is reserved by PyTorch but",
        "unallocated. If reserved but unallocated memory is large try setting",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
        "Loading transformer",
    )
    assert len(facts.events) == 1
    event = facts.events[0]
    assert (event.total_bytes, event.free_bytes) == (round(23.99 * GIB), 0)
    assert [p.pid for p in event.other_processes] == [4242]
    assert event.allocated_bytes == round(19.10 * GIB)
    assert event.reserved_unallocated_bytes == round(47.65 * MIB)


def test_the_ui_quotes_the_last_log_line() -> None:
    facts = read("Job process exited unexpectedly. Last log line: Quantizing Text Encoder")
    assert facts.fatal is not None and facts.fatal.kind is OomKind.HOST_KILLED
    assert facts.phase is Phase.QUANTIZE


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("ModuleNotFoundError: No module named 'optimum'", "missing_module"),
        ("ImportError: cannot import name 'Flux2Pipeline' from 'diffusers'", "missing_module"),
        ("huggingface_hub.errors.GatedRepoError: 403 Client Error.", "hf_auth"),
        (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "no_kernel_image",
        ),
        ("yaml.parser.ParserError: while parsing a block mapping", "config_error"),
        ("json.decoder.JSONDecodeError: Expecting ',' delimiter: line 3 column 5 (char 40)", "config_error"),
        ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:", "compile_error"),
        ('ValueError: config file error. Missing "config.process[0].model" key', "config_error"),
        ("KeyError: 'linear'", "other"),
        ("terminate called after throwing an instance of 'std::bad_alloc'", "other"),
    ],
)
def test_non_oom_error_kinds(line: str, kind: str) -> None:
    facts = read("Loading transformer", line)
    assert facts.events == []
    assert facts.non_oom_error is not None
    assert (facts.non_oom_error.kind, facts.non_oom_error.headline, facts.non_oom_error.where.line) == (
        kind,
        line,
        2,
    )
