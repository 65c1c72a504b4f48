"""The data that flows through the engine: pieces, configs, log facts, facts, findings, reports.

Every stage of the pipeline (intake → parse → facts → rules → report → render) reads and writes
only these types, so each stage can be built and tested on its own.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from diagnosis.record import Record, field

# Immutable values are named tuples, not frozen dataclasses: every `oomcheck check` creates these
# classes at import, a named tuple's class is much quicker to create, and start-up is a benchmark
# figure (README). Code that needs a changed copy of a named tuple uses `_replace`.

# A path into a parsed config: mapping keys and list indexes, e.g. ("config", "process", 0, "train").
KeyPath = tuple[str | int, ...]


def format_path(path: KeyPath) -> str:
    """`("config", "process", 0, "train")` → `config.process[0].train` (the notation of the corpus)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


# --------------------------------------------------------------------------------------------------
# Intake


class PieceKind(StrEnum):
    CONFIG_YAML = "config_yaml"
    CONFIG_JSON = "config_json"
    LOG = "log"


class Piece(NamedTuple):
    """One config or log found in the user's inputs."""

    kind: PieceKind
    text: str
    source: str  # which input it came from: a file name, "message 1", "stdin"
    input_index: int  # index of the input text in the list given to diagnose()
    line_offset: int  # 0-based line of the input where `text` starts (for evidence line numbers)
    fenced: bool = False
    lang_tag: str | None = None
    from_log: bool = False  # a config recovered from the JSON a trainer echoes into its log
    newline: str = "\n"  # the input's line break ("\r\n" from a Windows file): write fixes back with it


def with_text(piece: Piece, text: str) -> Piece:
    """The same piece holding another text (a corrected config written in place of the user's)."""
    return piece._replace(text=text)


class SecretHit(NamedTuple):
    """A secret found (and already replaced) in an input: never keep the secret itself."""

    # "hf_token", "discord_token", "wandb_key", "civitai_key", "openai_key", "assignment", "home_path"
    kind: str
    source: str
    line: int  # 1-based within that input


class Intake(Record):
    """What intake found in the user's inputs: the pieces, the prose, hints and limits hit."""

    pieces: list[Piece]
    prose: str  # the user's own words (everything that is neither config nor log), for hints
    language_hint: str | None  # "ja" / "en" / None, from the script of the user's text
    truncated: bool = False  # an input was larger than the cap and was cut
    limits_hit: list[str] = field(default_factory=list)  # names of protective limits that were hit
    secrets: list[SecretHit] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# Configs


class Span(NamedTuple):
    """A region of a piece's text. Lines and columns are 0-based; indexes are offsets into the text.

    A named tuple, not a dataclass: the parser makes one for every node (several hundred per config),
    and a tuple is made in a quarter of the time.
    """

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    start_index: int
    end_index: int


class SourceEntry(NamedTuple):
    """Where one node of a config sits in its text (for edits that keep the user's layout); a named
    tuple for the same reason as Span."""

    key: Span | None  # None for list items and the root
    value: Span
    node: str  # "scalar", "mapping", "sequence"
    flow: bool = False  # a flow collection (`[512, 768]`, `{a: 1}`) or JSON


class ConfigError(NamedTuple):
    """Why a pasted config does not parse, and where."""

    line: int  # 1-based, within the piece
    column: int  # 1-based
    problem: str  # the parser's own words, e.g. "found character '\t' that cannot start any token"
    line_text: str
    tab_indent: bool = False


class ConfigShape(StrEnum):
    FULL_JOB = "full_job"  # job / config / process[i]
    PROCESS = "process"  # one process dict (the trainer's log echo, or a pasted process)
    FRAGMENT = "fragment"  # a bare section such as `train:` alone


class ConfigDoc(Record):
    """One parsed config with its source map; `data` is None when it did not parse."""

    piece: Piece
    format: str  # "yaml" or "json"
    shape: ConfigShape
    data: Any  # the parsed root (dict) or None when it did not parse
    process_path: KeyPath  # from the root to the training process mapping; () for PROCESS/FRAGMENT
    source_map: dict[KeyPath, SourceEntry]  # absolute paths from the root
    error: ConfigError | None = None
    limits_hit: list[str] = field(default_factory=list)
    # The pasted text ends inside a value (a message cut at Discord's length limit): `data` is what the
    # complete lines before the cut hold, and `piece` holds those lines only.
    cut_off: bool = False
    # A key that a merge key (`<<: *base`) brought in has no entry of its own in `source_map`; this
    # gives the path where it is written (in the anchored mapping), for evidence only: an edit there
    # would change every place that merges it.
    merged_from: dict[KeyPath, KeyPath] = field(default_factory=dict)

    def written_at(self, path: KeyPath) -> SourceEntry | None:
        """The source entry of `path`, or of the line a merge key brought its value from."""
        entry = self.source_map.get(path)
        if entry is not None or not self.merged_from:
            return entry
        for depth in range(len(path), 0, -1):
            origin = self.merged_from.get(path[:depth])
            if origin is not None:
                return self.source_map.get((*origin, *path[depth:]))
        return None

    @property
    def ok(self) -> bool:
        return self.error is None and isinstance(self.data, dict)


# --------------------------------------------------------------------------------------------------
# Logs


class OomKind(StrEnum):
    CUDA_ALLOC = "cuda_alloc"  # the caching allocator's "CUDA out of memory. Tried to allocate …"
    CUDA_ASYNC_ALLOC = "cuda_async_alloc"  # cudaMallocAsync backend
    CUDA_ERROR = "cuda_error"  # asynchronous "CUDA error: out of memory"
    CUBLAS = "cublas"
    CUDNN = "cudnn"
    BITSANDBYTES = "bitsandbytes"
    MPS = "mps"
    HIP = "hip"
    XPU = "xpu"
    HOST_KILLED = "host_killed"  # OOM killer, Killed, exit 137, SIGKILL, UI "exited unexpectedly"
    HOST_ALLOC = "host_alloc"  # DefaultCPUAllocator
    MEMORY_ERROR = "memory_error"  # Python MemoryError
    WINDOWS_PAGEFILE = "windows_pagefile"  # os error 1455
    SHM = "shm"  # /dev/shm too small, bus error in a DataLoader worker
    UNKNOWN = "unknown"  # an OOM without a recognised format

    @property
    def on_host(self) -> bool:
        return self in {
            OomKind.HOST_KILLED,
            OomKind.HOST_ALLOC,
            OomKind.MEMORY_ERROR,
            OomKind.WINDOWS_PAGEFILE,
            OomKind.SHM,
        }


class Phase(StrEnum):
    MODEL_LOAD = "model_load"
    QUANTIZE = "quantize"
    LATENT_CACHING = "latent_caching"
    TEXT_EMBEDDING_CACHING = "text_embedding_caching"
    DATALOADER = "dataloader"
    CONFIG_PARSE = "config_parse"
    FIRST_SAMPLE = "first_sample"
    SAMPLING = "sampling"
    TRAINING_STEP = "training_step"
    SAVE = "save"
    UNKNOWN = "unknown"


class StepPart(StrEnum):
    FORWARD = "forward"
    BACKWARD = "backward"
    OPTIMIZER = "optimizer"


class LogLine(NamedTuple):
    """One line of a log piece, for evidence."""

    line: int  # 1-based within the log piece
    text: str


class OtherProcess(NamedTuple):
    """A process other than the trainer holding GPU memory (from the OOM message or nvidia-smi)."""

    pid: int | None
    bytes: int


class OomEvent(Record):
    """One out-of-memory error in a log, with the numbers its message gives."""

    kind: OomKind
    where: LogLine
    caught: bool = False  # AI Toolkit caught it and skipped the batch ("skipping batch k/3")
    tried_bytes: int | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None
    process_bytes: int | None = None  # "this process has X memory in use"
    allocated_bytes: int | None = None  # allocated by PyTorch
    reserved_unallocated_bytes: int | None = None
    non_pytorch_bytes: int | None = None
    device_index: int | None = None
    other_processes: list[OtherProcess] = field(default_factory=list)

    def trainer_and_others(self) -> tuple[int | None, list[OtherProcess]]:
        """What the trainer holds on the card, and the listed processes that are not the trainer.

        Inside a container NVML lists the trainer under its host PID, and the message has no "this
        process has" fragment: the trainer is the listed process that holds at least what PyTorch
        allocated and is closest to it (a process holding far more is another program on the same
        card, e.g. 73 GiB beside a trainer of 22). With neither figure nothing tells the trainer from
        the others, and neither is claimed.
        """
        if self.process_bytes is not None:
            return self.process_bytes, list(self.other_processes)
        if self.allocated_bytes is None:
            return None, []
        own = self.allocated_bytes * 0.95
        holding = [p for p in self.other_processes if p.bytes >= own]
        if not holding:
            return None, list(self.other_processes)
        trainer = min(holding, key=lambda p: p.bytes)
        return trainer.bytes, [p for p in self.other_processes if p is not trainer]


class NonOomError(NamedTuple):
    """The error that ended a run when it was not an out-of-memory."""

    kind: str  # "missing_module", "hf_auth", "no_kernel_image", "config_error", "compile_error", "other"
    headline: str
    where: LogLine
    # A finer kind than `kind` (`diagnosis.logreader.errors.DETAILS`): "quantize_assertion",
    # "triton_error", "file_not_found", "cuda_unknown_error", …; `kind` itself when none is finer.
    detail: str | None = None


class StepTimes(NamedTuple):
    """Seconds per step of one kind of progress bar across a log (tqdm's `s/it`, or `it/s` inverted).

    The figures come from a sample of the bar's lines spread evenly over the log (every line of a
    short log). `slowdown_ratio` is the median of the last third of the readings over the median of
    the first third (None with fewer than two readings).
    """

    first_s: float
    typical_s: float  # the median reading
    last_s: float
    seen: int  # bar lines of this kind in the log
    first: LogLine
    last: LogLine
    slowdown_ratio: float | None = None
    slow_from: LogLine | None = None  # the first reading at least 3x the early median, if any

    @property
    def slowed_down(self) -> bool:
        """Several-fold slower at the end than at the start (3x or more)."""
        return self.slowdown_ratio is not None and self.slowdown_ratio >= 3.0


class LogFacts(Record):
    """Everything the log reader found in one log piece."""

    piece: Piece
    events: list[OomEvent] = field(default_factory=list)
    fatal: OomEvent | None = None  # the event that ended the run (None when every OOM was caught)
    phase: Phase = Phase.UNKNOWN
    phase_evidence: LogLine | None = None
    step_part: StepPart | None = None
    step: int | None = None
    total_steps: int | None = None
    job_name: str | None = None
    device_index: int | None = None  # from `device: cuda:N` in the echo or the OOM message
    gpu_name: str | None = None
    gpu_total_bytes: int | None = None  # from a GPU name or nvidia-smi table (not the OOM message)
    os: str | None = None  # "windows", "linux", "macos"
    torch_version: str | None = None
    trainer_version: str | None = None
    non_oom_error: NonOomError | None = None
    model_line: LogLine | None = None  # "Loading Flux model": the model the trainer says it loads
    # With no device index: the GPU named next to an error (by the error's line), where the lines around
    # it name several cards (logreader.reader.gpu_near).
    gpu_near: dict[int, tuple[str, float]] = field(default_factory=dict)
    echoed_config: Piece | None = None  # the process JSON the trainer printed near the top
    cut_before_error: bool = False  # a traceback that stops before its final error line
    has_traceback: bool = False
    events_dropped: int = 0  # OOM events beyond limits.max_events (the latest one is always kept)
    limits_hit: list[str] = field(default_factory=list)  # "max_events", "max_line_chars", …
    # --- symptoms besides an OOM: speed, where the log stops, how the process ended
    # Seconds per step by kind of bar: "training", "sample", "quantize", "latent_caching",
    # "text_embedding_caching", "model_load", "dataloader", "other" (a bar that names no phase).
    bar_times: dict[str, StepTimes] = field(default_factory=dict)
    last_phase: Phase = Phase.UNKNOWN  # the phase the last phase line shows, error or not
    last_phase_evidence: LogLine | None = None
    # Neither an error (OOM, exception, traceback) nor an exit or kill after the last phase line:
    # the log just stops there (a stall, or a paste cut short).
    ends_without_error: bool = False
    exit_code: int | None = None  # as printed: 0, 1, -9, 137, 3221225477 (0xC0000005)…
    exit_signal: str | None = None  # "SIGKILL" (`Killed`), "SIGSEGV" (`Segmentation fault`), …
    exit_evidence: LogLine | None = None
    # The process ended (an exit code, a signal, the UI's "exited unexpectedly") and the log shows
    # no error text: no traceback, no exception, no OOM message other than the kill itself.
    silent_exit: bool = False
    nan_loss: LogLine | None = None  # the first line that shows a NaN or infinite loss

    @property
    def step_times(self) -> StepTimes | None:
        """The training bar's seconds per step."""
        return self.bar_times.get("training")


# --------------------------------------------------------------------------------------------------
# Findings and reports


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Applicability(StrEnum):
    MEMORY_ONLY = "memory_only"
    CHANGES_RESULTS = "changes_results"
    ADVICE = "advice"


class Effect(StrEnum):
    """What a fix lowers: the memory a run needs, the time it takes, or both. The reply marks each step
    with it, so a speed fix (fewer preview steps) is never offered as a memory fix."""

    MEMORY = "memory"
    SPEED = "speed"
    BOTH = "both"


class Evidence(NamedTuple):
    """A quoted line that supports a finding."""

    source: str  # the piece's source ("message 1", "config.yaml") or "user" for the user's words
    line: int | None  # 1-based line within that source, when it is a line
    text: str


class ConfigEdit(NamedTuple):
    """Set `path` (relative to the training process mapping) to `value`, inserting the key if missing."""

    path: KeyPath
    value: Any  # bool, int, float, str or a list of those


class Finding(Record):
    """One rule's conclusion about the case, with its evidence and the config edits that fix it."""

    rule_id: str
    severity: Severity
    applicability: Applicability
    evidence: list[Evidence] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)  # placeholders for the message catalogues
    edits: list[ConfigEdit] = field(default_factory=list)
    ladder_rank: int = 100  # lower comes first on the fix ladder (after the phase reorders it)
    # The input shows there is no out-of-memory to fix (an error of another kind): the OOM checklist
    # is left out. A verdict about a slowdown or a hang keeps it: memory can be why a run crawls.
    ends_checklist: bool = False
    effect: Effect = Effect.MEMORY  # what its fix lowers (RuleSpec.effect, or the rule's case)


class TextEdit(NamedTuple):
    """Replace text[start:end] of the config piece with `new`."""

    start: int
    end: int
    new: str


class LadderStep(Record):
    """One step of the fix ladder: the edits to make together, and the config after them."""

    number: int  # 1-based
    rule_ids: list[str]
    edits: list[ConfigEdit]
    corrected_config: str | None = None  # the whole config text with this step's edits applied
    diff: str | None = None
    verified: bool = False  # re-parsed and re-checked: the fixed findings are gone, nothing new
    # The ladder counted it as a change (its re-check passed): the later steps build on its edits.
    applied: bool = False


class Note(Record):
    """Something the reply must say that is not a finding: an input cut at the cap, an assumption."""

    id: str
    params: dict[str, Any] = field(default_factory=dict)
