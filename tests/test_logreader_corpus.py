"""The log reader on every corpus case that holds a log: phase (expected.yaml) and OOM kind (meta.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnosis.logreader import READER_ERROR, read_log
from diagnosis.logreader.detect import is_log_text
from diagnosis.models import LogFacts, Phase, Piece, PieceKind
from tests.conftest import CORPUS

CASE_DIRS = sorted(p for p in CORPUS.glob("*/*") if (p / "input.txt").is_file())

# The fatal OOM kind each case's log shows (meta.yaml's oom_message_format), None when it shows none.
KINDS: dict[str, str | None] = {
    "001": "cuda_alloc",
    "002": "cuda_alloc",
    "004": "cuda_error",
    "005": "cuda_error",
    "007": "cuda_alloc",
    "008": "host_killed",
    "011": "host_killed",
    "014": None,  # a traceback cut before its message
    "020": "cuda_error",
    "022": None,  # an nvidia-smi table, no crash
    "028": "shm",  # cut inside torch's shared-memory pickling
    "029": None,  # a Triton compile error
    "101": "cuda_alloc",
    "102": "cuda_alloc",
    "103": "cuda_alloc",
    "104": "cuda_alloc",
    "105": "cuda_error",
    "106": "cuda_alloc",
    "107": "cuda_alloc",
    "108": "host_killed",
    "109": None,  # Hugging Face 401
    "110": "cuda_alloc",
    "111": None,  # YAML error
    "112": "cuda_alloc",
    "203": None,  # two progress-bar lines, no crash
    "204": None,  # an AssertionError in the quantized layer-offloading path
    "207": None,  # a Triton NameError while quantizing
    "214": "memory_error",  # itertools.permutations in the slider config
    "219": None,  # a sampling bar, then the process exits with code 1
    "226": "host_killed",  # deepspeed's launcher: return code = -9
    "301": "cuda_alloc",  # two processes listed, no "this process has"
    "304": None,  # a baseline-sample bar at 0/1, no crash
    "305": None,  # training bars that slow down and recover, no crash
    "306": "cuda_error",  # CUDA error: out of memory while a block goes back to the CPU
    "307": "cuda_alloc",
    "308": None,  # a training bar at step 49, no crash
}

# Cases whose expected phase comes from the reporter's words, not from anything in the log.
PHASE_ONLY_IN_PROSE = {
    "007": "the phase is in the sentence 'when just creating samples'; the log is one message line",
    "008": "'steps never progress' is prose; the log is one dmesg line",
    "011": "'before the first training step' is prose; the log is the SIGKILL line",
    "022": "the hang at the first sample is described in prose; the log is an nvidia-smi header",
    "029": "a compile error line alone; the thread says it happened in the first forward",
    "226": "deepspeed's launcher line (return code = -9) and no phase line; 'before training' is the "
    "collector's inference from the thread",
}
# Logs whose last phase line is not the phase of the label: what the reader says, and why it cannot say
# the label's phase from the log alone.
PHASE_NOT_IN_THE_LOG = {
    "219": (
        Phase.MODEL_LOAD,
        "an undescribed 25-step bar, then 'Unloading transformer' and 'Loading Vae' as the last lines: the "
        "label's first_sample comes from the words ('when switching sampling'); nothing in the log names it",
    ),
}

ACCEPTS = {
    "latent_caching_or_dataloader": {Phase.LATENT_CACHING, Phase.DATALOADER},
}


def _case_id(path: Path) -> str:
    return path.name.split("-", 1)[0]


def _read(path: Path) -> LogFacts:
    text = (path / "input.txt").read_text(encoding="utf-8")
    return read_log(Piece(PieceKind.LOG, text, path.name, 0, 0))


def _phase_ok(expected: str, got: Phase) -> bool:
    accepted = ACCEPTS[expected] if expected in ACCEPTS else {Phase(expected)}
    return got in accepted


def test_the_cases_with_logs_are_the_listed_ones() -> None:
    with_logs = {_case_id(p) for p in CASE_DIRS if is_log_text((p / "input.txt").read_text(encoding="utf-8"))}
    assert with_logs == set(KINDS)


def test_corpus_logs_phase_and_kind(
    capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    phase_hits = phase_total = kind_hits = 0
    misses: list[str] = []
    for path in CASE_DIRS:
        case = _case_id(path)
        if case not in KINDS:
            continue
        facts = _read(path)
        assert READER_ERROR not in facts.limits_hit
        expected = yaml.safe_load((path / "expected.yaml").read_text(encoding="utf-8"))["expected_phase"]
        fatal_kind = facts.fatal.kind.value if facts.fatal else None
        if fatal_kind == KINDS[case]:
            kind_hits += 1
        else:
            misses.append(f"{case}: kind {fatal_kind} != {KINDS[case]}")
        if case in PHASE_NOT_IN_THE_LOG:
            assert facts.phase is PHASE_NOT_IN_THE_LOG[case][0], case
            continue
        if expected == "unknown" or case in PHASE_ONLY_IN_PROSE:
            continue
        phase_total += 1
        if _phase_ok(expected, facts.phase):
            phase_hits += 1
        else:
            misses.append(f"{case}: phase {facts.phase.value} != {expected}")
    if request.config.get_verbosity() > 0:  # the score is for whoever asks (-v)
        with capsys.disabled():
            print(
                f"\nlog reader corpus score: phase {phase_hits}/{phase_total} "
                f"(+{len(PHASE_ONLY_IN_PROSE)} only in prose), kind {kind_hits}/{len(KINDS)}"
            )
    assert misses == []


def test_prose_only_phases_are_not_invented() -> None:
    """Where the phase is only in the user's words, the reader says unknown rather than guessing."""
    for path in CASE_DIRS:
        case = _case_id(path)
        if case in PHASE_ONLY_IN_PROSE:
            assert _read(path).phase is Phase.UNKNOWN, case


def test_details_of_real_logs() -> None:
    by_case = {_case_id(p): p for p in CASE_DIRS}
    runpod = _read(by_case["001"])
    assert runpod.fatal is not None
    assert [p.pid for p in runpod.fatal.other_processes] == [654925, 706098]
    assert runpod.cut_before_error and runpod.has_traceback
    assert runpod.os == "linux"

    shm = _read(by_case["028"])
    assert shm.phase is Phase.DATALOADER and shm.cut_before_error

    windows = _read(by_case["014"])
    assert windows.os == "windows" and windows.step_part is not None and windows.step_part.value == "backward"

    step37 = _read(by_case["105"])
    assert (step37.step, step37.total_steps, step37.job_name) == (37, 2500, "oilpaint_chroma_v1")
    assert len(step37.events) == 1

    comfy = _read(by_case["107"])
    assert comfy.fatal is not None
    assert [(p.pid, p.bytes) for p in comfy.fatal.other_processes] == [
        (1187, 312 * 1024**2),
        (2231, round(6.20 * 1024**3)),
    ]

    gated = _read(by_case["109"])
    assert gated.fatal is None and gated.non_oom_error is not None
    assert gated.non_oom_error.kind == "hf_auth"

    tab = _read(by_case["111"])
    assert tab.non_oom_error is not None and tab.non_oom_error.kind == "config_error"

    triton = _read(by_case["029"])
    assert triton.non_oom_error is not None and triton.non_oom_error.kind == "compile_error"

    for case in ("102", "110", "112"):
        caught = _read(by_case[case])
        assert [e.caught for e in caught.events] == [True, True, True, False], case
        assert caught.step == 0
