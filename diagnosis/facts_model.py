"""Facts: the one normalised view of a case that every rule reads.

Built from every piece of a case (the config, the log, the user's own words) by `diagnosis.facts`.
A value is None when the case does not say it; defaults of the trainer are applied by the builder
and marked in `defaulted`, so a rule can tell "missing means on" from "explicitly on".
"""

from __future__ import annotations

from diagnosis.families import Family
from diagnosis.models import ConfigError, Evidence, KeyPath, OomEvent, OtherProcess, Phase, StepPart
from diagnosis.record import Record, field


class DatasetFacts(Record):
    """One entry of `datasets:`; `index` is its position in the list (paths are built from it)."""

    index: int
    resolutions: list[int] = field(default_factory=list)
    latents_cached: bool = False
    latents_on_disk: bool = False  # `cache_latents_to_disk: true` (not only in RAM)
    caption_dropout: float = 0.0
    num_frames: int = 1
    control_images: int = 0


class Facts(Record):
    """Every fact the rules read about one case (see the module docstring).

    A record: its fields are the list of facts.
    """

    # --- what we have
    has_config: bool = False
    config_parsed: bool = False
    has_log: bool = False
    has_oom: bool = False

    # --- model
    family: str | None = None  # key of the family table, e.g. "flux", "qwen_image_edit", "zimage"
    family_label: str | None = None  # display name, e.g. "FLUX.1-dev"
    arch: str | None = None  # model.arch with the tag dropped, aliases resolved
    name_or_path: str | None = None
    params_b: float | None = None  # transformer size in billions, from the family table
    is_video: bool = False
    full_finetune: bool = False  # no network section

    # --- the card
    vram_gib: float | None = None  # class of the card in GB (24, 32, 48 …)
    vram_source: str | None = None  # "oom_message", "gpu_name", "user", "assumed"
    gpu_name: str | None = None

    # --- train
    batch_size: int = 1
    gradient_accumulation: int = 1
    gradient_accumulation_steps: int = 1
    train_steps: int | None = None  # `train.steps` when the config sets it
    save_every: int | None = None  # `save.save_every` when the config sets it
    gradient_checkpointing: bool = True
    gc_explicit: bool = False  # the key is present in the config
    dtype: str = "fp32"
    dtype_explicit: bool = False
    optimizer: str = "adamw"
    train_text_encoder: bool = False
    unload_text_encoder: bool = False
    cache_text_embeddings: bool = False
    disable_sampling: bool = False
    skip_first_sample: bool = False
    caption_dropout_max: float = 0.0

    # --- model memory paths
    quantize: bool = False
    qtype: str | None = None
    quantize_te: bool = False
    low_vram: bool = False
    layer_offloading: bool = False
    # With layer offloading: the share of the transformer's and the text encoder's layers kept in host
    # RAM (`layer_offloading_transformer_percent`, `..._text_encoder_percent`, 1.0 by default).
    offload_share: float = 0.0
    te_offload_share: float = 0.0
    qtype_te: str | None = None
    network_rank: int | None = None

    # --- data
    buckets: list[int] = field(default_factory=list)  # every resolution value of every dataset
    max_bucket: int | None = None
    latents_cached: bool = False  # every dataset caches latents (memory or disk)
    num_frames: int = 1  # largest dataset num_frames
    control_images: int = 0  # number of control paths of the heaviest dataset

    # --- preview
    sample_width: int | None = None
    sample_height: int | None = None
    sample_steps: int | None = None
    sample_every: int | None = None
    sample_prompts: int = 0
    sample_frames: int = 1

    # --- the log
    phase: Phase = Phase.UNKNOWN
    step_part: StepPart | None = None
    step: int | None = None
    total_steps: int | None = None
    oom_kind: str | None = None
    fatal: OomEvent | None = None
    caught_ooms: int = 0
    other_processes: list[OtherProcess] = field(default_factory=list)
    not_oom_kind: str | None = None
    not_oom_headline: str | None = None
    os: str | None = None
    # Where the model and the OS were read: "config" / "log" / "user_words" (the user's own words).
    family_source: str | None = None
    os_source: str | None = None
    system_ram_gib: float | None = None  # the host's RAM, as the user states it
    swap_gib: float | None = None  # swap or the Windows page file, as the user states it
    # The user's words describe a training problem (a problem word and the trainer's world, or a
    # problem and a model or card they name): auto mode answers such a post with no config or log.
    reports_problem: bool = False

    # --- symptoms the log shows besides an OOM; see LogFacts for their exact meaning
    step_time_first_s: float | None = None  # training bar, seconds per step
    step_time_typical_s: float | None = None
    step_time_last_s: float | None = None
    step_times_seen: int = 0  # training bar lines in the log
    step_slowdown: bool = False  # the later steps took 3x or more the earlier ones
    step_slowdown_ratio: float | None = None
    sample_step_time_s: float | None = None  # a preview's seconds per sampling step (typical)
    last_phase: Phase = Phase.UNKNOWN  # where the log stops, error or not
    ends_without_error: bool = False  # no error, exit or kill after the last phase line
    exit_code: int | None = None
    exit_signal: str | None = None
    silent_exit: bool = False  # the process ended and the log shows no error text
    error_kind: str | None = None  # NonOomError.detail of the log's last non-OOM error
    error_headline: str | None = None
    nan_loss: bool = False

    # --- where each value came from, for evidence: fact name → evidence
    evidence: dict[str, Evidence] = field(default_factory=dict)
    # --- process-relative config paths of the keys that exist, for fixes: fact name → path
    paths: dict[str, KeyPath] = field(default_factory=dict)
    defaulted: set[str] = field(default_factory=set)  # facts filled from the trainer's defaults

    # --- additions by the rule engine
    family_info: Family | None = None  # the family table row (thresholds) for `family`
    config_shape: str | None = None  # ConfigShape value of the config read
    config_source: str | None = None
    config_from_log: bool = False  # the config was recovered from the JSON echoed in a log
    bare_section: str | None = None  # a fragment that is the inside of one section ("train") without its key
    config_error: ConfigError | None = None  # the last pasted config does not parse
    config_error_line: int | None = None  # that error's line within its input (for evidence)
    config_cut: bool = False  # the pasted config ends mid-value (a message cut at its length limit)
    datasets: list[DatasetFacts] = field(default_factory=list)
    sample_items: list[tuple[int, int | None, int | None]] = field(default_factory=list)  # (i, w, h)
    network_type: str | None = None
    network_alpha: float | None = None
    device_index: int | None = None  # `device: cuda:N` of the config
    gpu_oom: bool = False  # an OOM of the GPU's memory (fatal or caught) is in a log
    host_oom: OomEvent | None = None  # the host-side out-of-memory event, when one is in a log
    log_cut: bool = False  # a traceback that stops before its final error line
    says_oom: bool = False  # the user's words report an out-of-memory
    says_host_killed: bool = False  # the user's words say the process was killed (SIGKILL, OOM killer)
    prose_device_index: int | None = None  # `device: cuda:N` the user says they set
    says_gc: bool = False  # the user's words name gradient checkpointing (evidence `user_gc`)
    # What the rules' word lists heard in the user's words: "<rule id>.<list>" → the line, as a quote
    # (RuleSpec.words, RuleSpec.heard).
    said: dict[str, str] = field(default_factory=dict)
    prose_buckets: list[int] = field(default_factory=list)  # resolutions named in the user's words
    secret_kinds: list[str] = field(default_factory=list)
    secret_count: int = 0
    issues: list[str] = field(default_factory=list)  # config values of the wrong type, read as defaults
    # False where a corrected config is re-checked alone: the rules only say whether they still fire,
    # and no fix is sized by the memory estimate (the ladder sizes the step it keeps).
    sizes_fixes: bool = True
    # The memory estimates already made for this case, by job (`diagnosis.estimate.fit.estimate_of`):
    # the ladder sizes several steps from the same jobs. Never read as a fact.
    estimates: dict[tuple[object, ...], object] = field(default_factory=dict)
