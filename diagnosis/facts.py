"""Config + logs + the user's words → `Facts`, the one normalised view every rule reads.

Tolerant by design: a value of the wrong type becomes the trainer's default plus an internal issue,
never an exception. Defaults are the trainer's own (config-reference §1): gradient checkpointing on,
`train.dtype` fp32 (it overwrites `model.dtype`), quantize off, `quantize_te` following `quantize`,
batch 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from diagnosis.config.parse import MISSING, get_path
from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.facts_prose import ProseHints, read_prose, reported_problem
from diagnosis.families import Family, arch_from_name, family_for, family_from_words, table, vram_class
from diagnosis.lazyre import LazyPattern
from diagnosis.logreader.gpus import vram_of_gpu_name
from diagnosis.models import (
    ConfigDoc,
    ConfigShape,
    Evidence,
    Intake,
    KeyPath,
    LogFacts,
    LogLine,
    OomEvent,
    Phase,
    Piece,
    SecretHit,
)

GIB = 1024**3
ASSUMED_VRAM_GIB = 24.0
_EVIDENCE_CHARS = 300

_DTYPES = {
    "fp32": "fp32",
    "float": "fp32",
    "float32": "fp32",
    "single": "fp32",
    "fp16": "fp16",
    "half": "fp16",
    "float16": "fp16",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "8bit": "fp8",
    "e4m3fn": "fp8",
    "float8": "fp8",
}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0", "", "none", "null"}
_BOOL_WORDS = frozenset(_TRUE | _FALSE)
# Keys that tell which section a bare fragment (pasted without its `train:` line) is the inside of.
_SECTION_KEYS: dict[str, frozenset[str]] = {
    "train": frozenset(
        {"batch_size", "gradient_checkpointing", "gradient_accumulation", "gradient_accumulation_steps",
         "optimizer", "lr", "steps", "train_text_encoder", "unload_text_encoder", "cache_text_embeddings",
         "disable_sampling", "skip_first_sample", "noise_scheduler", "train_unet"}
    ),
    "model": frozenset(
        {"name_or_path", "arch", "quantize", "qtype", "quantize_te", "qtype_te", "low_vram",
         "layer_offloading", "is_flux", "is_xl", "is_v3"}
    ),
    "sample": frozenset({"sample_every", "sample_steps", "prompts", "samples", "guidance_scale", "sampler"}),
    "network": frozenset({"linear", "linear_alpha", "rank", "conv", "lokr_factor"}),
}  # fmt: skip
_SECTIONS = frozenset({"train", "model", "network", "datasets", "sample", "save", "job", "config", "process"})


def _bare_section(data: dict[str, Any]) -> str | None:
    """The section a fragment without any section key belongs to, by the keys it holds."""
    if _SECTIONS.intersection(data):
        return None
    votes = {name: len(keys.intersection(data)) for name, keys in _SECTION_KEYS.items()}
    best = max(votes, key=lambda name: votes[name])
    return best if votes[best] > 0 else None


def device_index(device: str) -> int | None:
    """N of `cuda:N` (case ignored, blanks around each part), else None. Read by hand: the pattern it
    stands for (tests/test_speed_cconfig_startup.py) would cost every start-up its compile."""
    head, colon, tail = device.partition(":")
    digits = tail.strip()
    if colon and head.strip().lower() == "cuda" and 1 <= len(digits) <= 2 and digits.isdecimal():
        return int(digits)
    return None


# A home folder's user name is scrubbed too, but it is no credential to revoke.
_NOT_A_CREDENTIAL = frozenset({"home_path", "email"})


def real_secrets(intake: Intake) -> list[SecretHit]:
    """The scrubbed hits that are credentials (tokens, keys), not merely private paths."""
    return [hit for hit in intake.secrets if hit.kind not in _NOT_A_CREDENTIAL]


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _EVIDENCE_CHARS else text[: _EVIDENCE_CHARS - 1] + "…"


# Compiled when a log is first read (a config alone never needs it).
_FRAME_RE = LazyPattern(r'^\s{0,12}File "([^"\n]{1,1000})"(?:, line \d{1,9})?, in (\S{1,200})')


def _frame_text(text: str) -> str:
    """A traceback frame names the function that proves the point; its long path does not."""
    match = _FRAME_RE.match(text)
    if match is None:
        return text
    parts = match.group(1).replace("\\", "/").rsplit("/", 2)
    short = "/".join(parts[-2:])
    return f'File ".../{short}", in {match.group(2)}' if len(parts) > 2 else text.strip()


def log_evidence(piece: Piece, where: LogLine) -> Evidence:
    return Evidence(
        source=piece.source, line=piece.line_offset + where.line, text=_cut(_frame_text(where.text))
    )


def user_evidence(quote: str) -> Evidence:
    return Evidence(source="user", line=None, text=quote)


# --------------------------------------------------------------------------------------------------
# Choosing what to read


def _is_training(doc: ConfigDoc) -> bool:
    proc = _get(doc.data, doc.process_path)
    return isinstance(proc, dict) and any(k in proc for k in ("train", "model", "datasets", "network"))


def choose_config(configs: Sequence[ConfigDoc]) -> ConfigDoc | None:
    """The config to diagnose: the last one pasted decides; among parsed ones, the last complete
    training config wins over bare fragments."""
    if not configs:
        return None
    last = configs[-1]
    if not last.ok:
        return last
    for doc in reversed(configs):
        if doc.ok and doc.shape != ConfigShape.FRAGMENT and _is_training(doc):
            return doc
    for doc in reversed(configs):
        if doc.ok:
            return doc
    return last


def choose_log(logs: Sequence[LogFacts]) -> LogFacts | None:
    """The log that ended in an out-of-memory (the last one), else one with another error, else the last."""
    for log in reversed(logs):
        if log.fatal is not None or log.events:
            return log
    for log in reversed(logs):
        if log.non_oom_error is not None:
            return log
    return logs[-1] if logs else None


# --------------------------------------------------------------------------------------------------
# Tolerant access to the parsed config


def _get(data: Any, path: KeyPath) -> Any:
    """The value at `path`, None when a step is missing (a present null reads the same)."""
    value = get_path(data, path)
    return None if value is MISSING else value


def _numbered_lines(doc: ConfigDoc) -> list[str]:
    """The config's lines as its parser numbers them (the source map's `start_line`).

    The YAML scanner also breaks lines at U+0085, U+2028 and U+2029, as splitlines does (the other
    breaks of splitlines are characters YAML refuses); the JSON scanner breaks only at line feeds, and a
    JSON string may hold those three characters raw.
    """
    text = doc.piece.text
    return text.split("\n") if doc.format == "json" else text.splitlines()


class _Config:
    """Reads one ConfigDoc: values relative to the process, evidence lines, type issues."""

    def __init__(self, doc: ConfigDoc, facts: Facts, with_evidence: bool = True) -> None:
        self.doc = doc
        self.facts = facts
        proc = _get(doc.data, doc.process_path)
        self.proc: dict[str, Any] = proc if isinstance(proc, dict) else {}
        self.with_evidence = with_evidence
        self.prefix: KeyPath = tuple(doc.process_path)
        self.lines = _numbered_lines(doc) if with_evidence else []
        self.bare = _bare_section(self.proc) if doc.shape == ConfigShape.FRAGMENT else None
        facts.bare_section = self.bare

    def real(self, path: KeyPath) -> KeyPath:
        """Where a section's key sits in this document (a bare fragment has no section key)."""
        if self.bare is not None and path[:1] == (self.bare,):
            return path[1:]
        return path

    def value(self, path: KeyPath) -> Any:
        """The value at `path`, MISSING when a step does not exist."""
        if self.bare is not None:
            path = self.real(path)
        if len(path) == 2 and isinstance(path[1], str):
            # A key of a section, the usual fact: two lookups (what get_path does for such a path).
            section = self.proc.get(path[0], MISSING) if isinstance(path[0], str) else MISSING
            return section.get(path[1], MISSING) if isinstance(section, dict) else MISSING
        return get_path(self.proc, path)

    def has(self, path: KeyPath) -> bool:
        return self.value(path) is not MISSING

    def raw(self, path: KeyPath) -> Any:
        value = self.value(path)
        return None if value is MISSING else value

    def evidence(self, real: KeyPath, value: Any) -> Evidence | None:
        """Where the value at the document path `real` (`value`, read by the caller) is written."""
        entry = self.doc.written_at(self.prefix + real)
        if entry is None:
            return None
        span = entry.key or entry.value
        index = span.start_line
        text = self.lines[index] if 0 <= index < len(self.lines) else ""
        if entry.node == "sequence" and entry.value.end_line > index and isinstance(value, list):
            # A list over several lines: its key line alone (`"resolution": [`) shows no value.
            items = ", ".join(_scalar_text(v) for v in value[:32])
            text = f"{text.rstrip().removesuffix('[').rstrip()} [{items}]"
        return Evidence(self.doc.piece.source, self.doc.piece.line_offset + index + 1, _cut(text))

    def note(self, fact: str, path: KeyPath, value: Any) -> None:
        """Remember where a fact came from (evidence) and the key to edit (path); `value` is the
        present value at `path`."""
        real = path if self.bare is None else self.real(path)
        self.facts.paths[fact] = real
        if not self.with_evidence:
            return
        ev = self.evidence(real, value)
        if ev is not None:
            self.facts.evidence[fact] = ev

    def _issue(self, path: KeyPath, want: str) -> None:
        self.facts.issues.append(f"{'.'.join(str(p) for p in path)}: expected {want}")

    def bool(self, fact: str, path: KeyPath, default: bool) -> tuple[bool, bool]:
        """(value, present); a present value of the wrong type reads as the default."""
        value = self.value(path)
        if value is MISSING:
            self.facts.defaulted.add(fact)
            return default, False
        self.note(fact, path, value)
        if isinstance(value, bool):
            return value, True
        if isinstance(value, int | float):
            return bool(value), True
        if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
            return value.strip().lower() in _TRUE, True
        if value is None:
            return default, True
        self._issue(path, "a boolean")
        return default, True

    def int(self, fact: str, path: KeyPath, default: int | None) -> int | None:
        value = self.value(path)
        if value is MISSING:
            self.facts.defaulted.add(fact)
            return default
        self.note(fact, path, value)
        number = _as_int(value)
        if number is None:
            self._issue(path, "an integer")
            return default
        return number

    def str(self, fact: str, path: KeyPath) -> str | None:
        value = self.value(path)
        if value is MISSING:
            self.facts.defaulted.add(fact)
            return None
        self.note(fact, path, value)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
        if value is not None:
            self._issue(path, "a string")
        return None


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(_scalar_text(v) for v in value[:8]) + "]"
    return str(value)[:40] if isinstance(value, str | int | float) else "…"


# No training setting is anywhere near this; a bigger number is garbage (and would overflow floats).
_MAX_INT = 10**9


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    whole_float = isinstance(value, float) and math.isfinite(value) and value.is_integer()
    digits = isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,12}\s*", value) is not None
    number = value if isinstance(value, int) else (int(value) if whole_float or digits else None)
    if number is None or abs(number) > _MAX_INT:
        return None
    return number


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) > _MAX_INT):
        return None
    number: float | None = None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    return number if number is not None and math.isfinite(number) else None


def _resolutions(value: Any) -> list[int]:
    items = value if isinstance(value, list) else [value]
    out: list[int] = []
    for item in items:
        # A [w, h] pair inside the list is allowed by the trainer; the larger side sets the peak.
        if isinstance(item, list):
            sides = [v for v in (_as_int(x) for x in item) if v is not None]
            if sides:
                out.append(max(sides))
            continue
        number = _as_int(item)
        if number is not None and 0 < number <= 100_000:
            out.append(number)
    return out


# --------------------------------------------------------------------------------------------------
# Sections


def _read_arch(cfg: _Config, facts: Facts) -> None:
    model = cfg.raw(("model",))
    if not isinstance(model, dict):
        return
    facts.name_or_path = cfg.str("name_or_path", ("model", "name_or_path"))
    arch_raw = cfg.str("arch", ("model", "arch"))
    arch: str | None = None
    if arch_raw:
        arch = arch_raw.split(":", 1)[0].strip().lower() or None
        if arch == "flex1":
            arch = "flux"
    if arch is None:
        for flag, flagged_arch in table().legacy_flags:
            value, present = cfg.bool(flag, ("model", flag), False)
            if present and value:
                arch = flagged_arch
                if flag in facts.evidence:
                    facts.evidence["arch"] = facts.evidence[flag]
                break
    if arch is None:
        arch = arch_from_name(facts.name_or_path) or "sd1"
        facts.defaulted.add("arch")
    facts.arch = arch
    if "arch" not in facts.evidence and "name_or_path" in facts.evidence:
        facts.evidence["arch"] = facts.evidence["name_or_path"]
    _set_family(facts, family_for(arch, facts.name_or_path), "config")


def _set_family(facts: Facts, family: Family, source: str) -> None:
    """The model's family and what it decides, read from `source` ("config", "log", "user_words")."""
    facts.family_info, facts.family, facts.family_label = family, family.key, family.label
    facts.params_b, facts.is_video = family.params_b, family.is_video
    facts.family_source = source


def _read_model(cfg: _Config, facts: Facts) -> None:
    facts.quantize, _ = cfg.bool("quantize", ("model", "quantize"), False)
    facts.qtype = cfg.str("qtype", ("model", "qtype"))
    facts.quantize_te, _ = cfg.bool("quantize_te", ("model", "quantize_te"), facts.quantize)
    facts.low_vram, _ = cfg.bool("low_vram", ("model", "low_vram"), False)
    offload, present = cfg.bool("layer_offloading", ("model", "layer_offloading"), False)
    if not present:
        offload, _ = cfg.bool("layer_offloading", ("model", "auto_memory"), False)
    facts.layer_offloading = offload
    facts.qtype_te = cfg.str("qtype_te", ("model", "qtype_te"))
    if offload:
        share = "layer_offloading_transformer_percent", "layer_offloading_text_encoder_percent"
        facts.offload_share = _share(cfg, "offload_share", ("model", share[0]))
        facts.te_offload_share = _share(cfg, "te_offload_share", ("model", share[1]))


def _share(cfg: _Config, fact: str, path: KeyPath) -> float:
    """A fraction from 0 to 1 (the layer-offloading percents, which the trainer defaults to 1.0);
    anything else reads as that default."""
    value = cfg.value(path)
    if value is MISSING:
        cfg.facts.defaulted.add(fact)
        return 1.0
    cfg.note(fact, path, value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(1.0, max(0.0, float(value)))
    return 1.0


def _read_train(cfg: _Config, facts: Facts) -> None:
    facts.batch_size = max(1, cfg.int("batch_size", ("train", "batch_size"), 1) or 1)
    facts.gradient_accumulation = max(
        1, cfg.int("gradient_accumulation", ("train", "gradient_accumulation"), 1) or 1
    )
    # -1 means "a whole epoch"; keep it as is so a fix never multiplies it.
    gas = cfg.int("gradient_accumulation_steps", ("train", "gradient_accumulation_steps"), 1)
    facts.gradient_accumulation_steps = 1 if gas is None or gas == 0 else gas
    steps = cfg.int("train_steps", ("train", "steps"), None)
    facts.train_steps = steps if steps is not None and steps > 0 else None
    # Counted in steps like `steps`: a fix that rescales the steps rescales it too.
    every = cfg.int("save_every", ("save", "save_every"), None)
    facts.save_every = every if every is not None and every > 0 else None
    facts.gradient_checkpointing, facts.gc_explicit = cfg.bool(
        "gradient_checkpointing", ("train", "gradient_checkpointing"), True
    )
    dtype = cfg.str("dtype", ("train", "dtype"))
    facts.dtype_explicit = dtype is not None
    facts.dtype = _DTYPES.get((dtype or "fp32").strip().lower(), (dtype or "fp32").strip().lower())
    facts.optimizer = (cfg.str("optimizer", ("train", "optimizer")) or "adamw").strip().lower()
    facts.train_text_encoder, _ = cfg.bool("train_text_encoder", ("train", "train_text_encoder"), False)
    facts.unload_text_encoder, _ = cfg.bool("unload_text_encoder", ("train", "unload_text_encoder"), False)
    facts.cache_text_embeddings, _ = cfg.bool(
        "cache_text_embeddings", ("train", "cache_text_embeddings"), False
    )
    facts.disable_sampling, _ = cfg.bool("disable_sampling", ("train", "disable_sampling"), False)
    facts.skip_first_sample, _ = cfg.bool("skip_first_sample", ("train", "skip_first_sample"), False)


def _read_network(cfg: _Config, facts: Facts) -> None:
    network = cfg.raw(("network",))
    if not isinstance(network, dict):
        facts.full_finetune = cfg.doc.shape != ConfigShape.FRAGMENT and isinstance(cfg.raw(("train",)), dict)
        return
    facts.network_type = (cfg.str("network_type", ("network", "type")) or "lora").lower()
    # `rank` wins over `linear` when both are given.
    key = "rank" if cfg.has(("network", "rank")) else "linear"
    facts.network_rank = cfg.int("network_rank", ("network", key), 4)
    alpha_key = "linear_alpha" if cfg.has(("network", "linear_alpha")) else "alpha"
    alpha = cfg.value(("network", alpha_key))
    if alpha is not MISSING:
        cfg.note("network_alpha", ("network", alpha_key), alpha)
        facts.network_alpha = _as_float(alpha)


def _read_datasets(cfg: _Config, facts: Facts) -> None:
    datasets = cfg.raw(("datasets",))
    if not isinstance(datasets, list):
        return
    for i, item in enumerate(datasets[:256]):
        if not isinstance(item, dict):
            facts.issues.append(f"datasets[{i}]: expected a mapping")
            continue
        ds = DatasetFacts(index=i)
        cfg.note(f"datasets[{i}]", ("datasets", i), item)
        if "resolution" in item:
            ds.resolutions = _resolutions(item["resolution"])
            cfg.note(f"datasets[{i}].resolution", ("datasets", i, "resolution"), item["resolution"])
        if not ds.resolutions:
            ds.resolutions = [512]
            facts.defaulted.add(f"datasets[{i}].resolution")
        for key in ("cache_latents_to_disk", "cache_latents"):
            value, present = cfg.bool(f"datasets[{i}].{key}", ("datasets", i, key), False)
            if present and value:
                ds.latents_cached = True
                ds.latents_on_disk = ds.latents_on_disk or key == "cache_latents_to_disk"
        ds.caption_dropout = _as_float(item.get("caption_dropout_rate")) or 0.0
        if "caption_dropout_rate" in item:
            cfg.note(
                f"datasets[{i}].caption_dropout_rate",
                ("datasets", i, "caption_dropout_rate"),
                item["caption_dropout_rate"],
            )
        ds.num_frames = max(1, _as_int(item.get("num_frames")) or 1)
        if "num_frames" in item:
            cfg.note(f"datasets[{i}].num_frames", ("datasets", i, "num_frames"), item["num_frames"])
        control = item.get("control_path")
        count = len(control) if isinstance(control, list) else (1 if control else 0)
        count += sum(1 for k in ("control_path_1", "control_path_2", "control_path_3") if item.get(k))
        ds.control_images = count
        facts.datasets.append(ds)
    if facts.datasets:
        facts.buckets = sorted({r for ds in facts.datasets for r in ds.resolutions})
        facts.max_bucket = max(facts.buckets)
        facts.latents_cached = all(ds.latents_cached for ds in facts.datasets)
        facts.num_frames = max(ds.num_frames for ds in facts.datasets)
        facts.control_images = max(ds.control_images for ds in facts.datasets)
        facts.caption_dropout_max = max(ds.caption_dropout for ds in facts.datasets)


def _read_sample(cfg: _Config, facts: Facts) -> None:
    sample = cfg.raw(("sample",))
    if not isinstance(sample, dict):
        return
    facts.sample_width = cfg.int("sample_width", ("sample", "width"), 512)
    facts.sample_height = cfg.int("sample_height", ("sample", "height"), 512)
    facts.sample_steps = cfg.int("sample_steps", ("sample", "sample_steps"), 20)
    facts.sample_every = cfg.int("sample_every", ("sample", "sample_every"), 100)
    facts.sample_frames = max(1, cfg.int("sample_frames", ("sample", "num_frames"), 1) or 1)
    prompts = 0
    for key in ("samples", "prompts"):
        value = sample.get(key)
        if isinstance(value, list):
            prompts = max(prompts, len(value))
    facts.sample_prompts = prompts
    items = sample.get("samples")
    if isinstance(items, list):
        for i, item in enumerate(items[:256]):
            if isinstance(item, dict) and ("width" in item or "height" in item):
                facts.sample_items.append((i, _as_int(item.get("width")), _as_int(item.get("height"))))


def _read_device(cfg: _Config, facts: Facts) -> None:
    device = cfg.str("device", ("device",))
    if device is not None:
        facts.device_index = device_index(device)


def read_config_facts(doc: ConfigDoc) -> Facts:
    """The facts that the config alone gives (with evidence): the start of every build of this case."""
    facts = Facts()
    _read_config(doc, facts)
    return facts


def _read_config(doc: ConfigDoc, facts: Facts, with_evidence: bool = True) -> None:
    facts.has_config = True
    facts.config_source = doc.piece.source
    facts.config_shape = doc.shape.value
    facts.config_from_log = doc.piece.from_log
    facts.config_cut = doc.cut_off
    if not doc.ok:
        facts.config_error = doc.error
        if doc.error is not None:
            facts.config_error_line = doc.piece.line_offset + doc.error.line
        return
    facts.config_parsed = True
    cfg = _Config(doc, facts, with_evidence)
    _read_arch(cfg, facts)
    _read_model(cfg, facts)
    _read_train(cfg, facts)
    _read_network(cfg, facts)
    _read_datasets(cfg, facts)
    _read_sample(cfg, facts)
    _read_device(cfg, facts)


# --------------------------------------------------------------------------------------------------
# Logs


def _read_logs(logs: Sequence[LogFacts], facts: Facts) -> None:
    facts.has_log = bool(logs)
    main = choose_log(logs)
    if main is None:
        return
    for log in logs:
        for event in log.events:
            if event.kind.on_host:
                if facts.host_oom is None:
                    facts.host_oom = event
                    facts.evidence["host_oom"] = log_evidence(log.piece, event.where)
            else:
                facts.gpu_oom = True
    facts.caught_ooms = sum(1 for e in main.events if e.caught)
    fatal: OomEvent | None = main.fatal
    if fatal is None and main.events:
        fatal = main.events[-1]
    if fatal is not None:
        facts.fatal = fatal
        facts.oom_kind = fatal.kind.value
        facts.other_processes = list(fatal.other_processes)
        facts.evidence["oom"] = log_evidence(main.piece, fatal.where)
    elif facts.host_oom is not None:
        facts.oom_kind = facts.host_oom.kind.value
    # A dmesg line pasted apart from the trainer's log has no phase: take it from the other log.
    phased = (
        main
        if main.phase != Phase.UNKNOWN
        else next((log for log in reversed(logs) if log.phase != Phase.UNKNOWN), main)
    )
    facts.phase = phased.phase
    if phased.phase_evidence is not None:
        facts.evidence["phase"] = log_evidence(phased.piece, phased.phase_evidence)
    facts.step_part = main.step_part
    facts.step = main.step
    # AI Toolkit's bar counts completed steps: "1/2000" then an OOM means step 2 failed.
    in_a_step = phased.phase == Phase.TRAINING_STEP and main.step is not None
    if in_a_step and main.step is not None and (main.total_steps is None or main.step < main.total_steps):
        facts.step = main.step + 1
    facts.total_steps = main.total_steps
    facts.log_cut = main.cut_before_error
    if facts.family is None:
        _family_from_log(logs, facts)
    facts.os = next((log.os for log in reversed(logs) if log.os), None)
    facts.os_source = "log" if facts.os is not None else None
    facts.gpu_name = next((log.gpu_name for log in reversed(logs) if log.gpu_name), None)
    if main.non_oom_error is not None and not any(log.events for log in logs):
        facts.not_oom_kind = main.non_oom_error.kind
        facts.not_oom_headline = main.non_oom_error.headline
        facts.evidence["not_oom"] = log_evidence(main.piece, main.non_oom_error.where)
    if facts.device_index is None:
        facts.device_index = main.device_index
    _read_symptoms(logs, main, facts)


def _read_symptoms(logs: Sequence[LogFacts], main: LogFacts, facts: Facts) -> None:
    """The log reader's symptoms besides an OOM, copied for the rules."""
    timed = next((log for log in reversed(logs) if log.step_times is not None), None)
    times = timed.step_times if timed is not None else None
    if timed is not None and times is not None:
        facts.step_time_first_s, facts.step_time_typical_s = times.first_s, times.typical_s
        facts.step_time_last_s, facts.step_times_seen = times.last_s, times.seen
        facts.step_slowdown, facts.step_slowdown_ratio = times.slowed_down, times.slowdown_ratio
        facts.evidence["step_times"] = log_evidence(timed.piece, times.last)
        if times.slow_from is not None:
            facts.evidence["step_slowdown"] = log_evidence(timed.piece, times.slow_from)
    sampled = next((log.bar_times["sample"] for log in reversed(logs) if "sample" in log.bar_times), None)
    facts.sample_step_time_s = sampled.typical_s if sampled is not None else None
    phased = next((log for log in reversed(logs) if log.last_phase is not Phase.UNKNOWN), None)
    if phased is not None and phased.last_phase_evidence is not None:
        facts.last_phase = phased.last_phase
        facts.evidence["last_phase"] = log_evidence(phased.piece, phased.last_phase_evidence)
    ended = next((log for log in reversed(logs) if log.exit_evidence is not None), None)
    if ended is not None and ended.exit_evidence is not None:
        facts.exit_code, facts.exit_signal = ended.exit_code, ended.exit_signal
        facts.evidence["exit"] = log_evidence(ended.piece, ended.exit_evidence)
        facts.silent_exit = ended.silent_exit and all(
            not log.has_traceback and log.non_oom_error is None for log in logs
        )
    facts.ends_without_error = ended is None and all(log.ends_without_error for log in logs)
    if main.non_oom_error is not None:
        error = main.non_oom_error
        facts.error_kind, facts.error_headline = error.detail or error.kind, error.headline
        facts.evidence["error"] = log_evidence(main.piece, error.where)
    nan = next((log for log in logs if log.nan_loss is not None), None)
    if nan is not None and nan.nan_loss is not None:
        facts.nan_loss = True
        facts.evidence["nan_loss"] = log_evidence(nan.piece, nan.nan_loss)


def usable_vram(gib: float | None) -> float | None:
    """A stated VRAM size, or None when it is no size at all (NaN, infinite, zero or negative)."""
    if gib is None or not math.isfinite(gib) or gib <= 0:
        return None
    return float(gib)


def _gpu_near_the_error(logs: Sequence[LogFacts], facts: Facts) -> tuple[str, float] | None:
    """The GPU the log names next to the case's error, when it names several cards and no device index
    says which one ran (the log reader looks for it); None when that does not decide anything."""
    main = choose_log(logs)
    event = facts.fatal or facts.host_oom
    if main is None or event is None or main.device_index is not None:
        return None
    if not any(event is e for e in main.events) and main.fatal is not event:
        return None
    return main.gpu_near.get(event.where.line)


def _read_vram(
    logs: Sequence[LogFacts],
    facts: Facts,
    prose_text: str,
    gpu_vram_gib: float | None,
    hints: ProseHints | None = None,
) -> None:
    total = facts.fatal.total_bytes if facts.fatal is not None else None
    if total is None:
        total = next((e.total_bytes for log in logs for e in log.events if e.total_bytes), None)
    if total:
        facts.vram_gib, facts.vram_source = vram_class(total / GIB), "oom_message"
        return
    near = _gpu_near_the_error(logs, facts)
    if near is not None:
        facts.gpu_name, facts.vram_gib, facts.vram_source = near[0], near[1], "gpu_name"
        return
    for log in reversed(logs):
        if log.gpu_total_bytes:
            facts.vram_gib, facts.vram_source = vram_class(log.gpu_total_bytes / GIB), "gpu_name"
            return
    if usable_vram(gpu_vram_gib) is None:
        # The user's words: a card they name ("RTX 3060 12GB", "on a 5090."), else a size ("16GB VRAM").
        named = vram_of_gpu_name(prose_text)
        if named is None and hints is not None and hints.gpu_number:
            named = vram_of_gpu_name(f"RTX {hints.gpu_number}")
        if named is not None:
            facts.gpu_name = facts.gpu_name or named[0]
            facts.vram_gib, facts.vram_source = named[1], "user_words"
            return
        said = usable_vram(hints.vram_gib) if hints is not None else None
        if said is not None:
            facts.vram_gib, facts.vram_source = said, "user_words"
            return
    _stated_or_assumed(facts, gpu_vram_gib)


def _stated_or_assumed(facts: Facts, gpu_vram_gib: float | None) -> None:
    stated = usable_vram(gpu_vram_gib)
    if stated is not None:
        facts.vram_gib, facts.vram_source = stated, "user"
    else:
        facts.vram_gib, facts.vram_source = ASSUMED_VRAM_GIB, "assumed"


# What the user says happened: (hint holding the quote, fact set true, evidence key).
_SAID: tuple[tuple[str, str, str], ...] = (
    ("gc_words", "says_gc", "user_gc"),
    ("says_oom", "says_oom", "user_oom"),
    ("host_killed", "says_host_killed", "user_host_killed"),
)


def _family_from_log(logs: Sequence[LogFacts], facts: Facts) -> None:
    """The model the trainer says it loads ("Loading Flux model"), where no config names it."""
    for log in reversed(logs):
        named = family_from_words(log.model_line.text) if log.model_line is not None else None
        if named is not None and log.model_line is not None:
            _set_family(facts, named[0], "log")
            facts.evidence["family"] = log_evidence(log.piece, log.model_line)
            return


def _read_stated(hints: ProseHints, facts: Facts) -> None:
    """What the user states in words where the config and the logs say nothing: the model, the OS,
    the host's RAM and swap. Each keeps its quote as evidence, and its source says it came from words."""
    if facts.family is None and hints.family is not None:
        _set_family(facts, hints.family, "user_words")
        facts.evidence["family"] = user_evidence(hints.family_quote or "")
    if facts.os is None and hints.os is not None:
        facts.os, facts.os_source = hints.os, "user_words"
        facts.evidence["os"] = user_evidence(hints.os_quote or "")
    problem = reported_problem(hints)
    if problem is not None:
        facts.reports_problem = True
        facts.evidence["user_report"] = user_evidence(problem)
    if hints.system_ram_gib:
        facts.system_ram_gib = hints.system_ram_gib
        facts.evidence["system_ram"] = user_evidence(hints.system_ram_quote or "")
    if hints.swap_gib:
        facts.swap_gib = hints.swap_gib
        facts.evidence["swap"] = user_evidence(hints.swap_quote or "")


def _read_prose(hints: ProseHints, facts: Facts, *, situational: bool) -> None:
    if hints.buckets:
        facts.prose_buckets = hints.buckets
        facts.evidence["user_buckets"] = user_evidence(hints.buckets_quote or "")
    if not situational:
        return
    facts.said = dict(hints.said)
    _read_stated(hints, facts)
    for hint, fact, evidence_key in _SAID:
        quote = getattr(hints, hint)
        if quote:
            setattr(facts, fact, True)
            facts.evidence[evidence_key] = user_evidence(quote)
    if hints.device_index is not None:
        facts.prose_device_index = hints.device_index
        facts.evidence["user_device"] = user_evidence(hints.device_quote or "")
    if hints.phase is not None and facts.phase == Phase.UNKNOWN:
        facts.phase = hints.phase
        facts.evidence["phase"] = user_evidence(hints.phase_quote or "")


def build_facts(
    intake: Intake,
    configs: Sequence[ConfigDoc],
    logs: Sequence[LogFacts],
    gpu_vram_gib: float | None,
    *,
    situational: bool = True,
    hints: ProseHints | None = None,
    with_evidence: bool = True,
    config_read: Facts | None = None,
) -> Facts:
    """Every piece of a case → Facts. With `situational=False` only the config and the card are read
    (the logs and the user's account of what happened describe the config before any fix).
    `with_evidence=False` leaves out where each config fact was read (for a re-check that only asks
    which rules fire: no rule decides on evidence). `config_read`: what `read_config_facts` gave for
    `choose_config(configs)`, so that one reading serves several builds (it is copied, not changed)."""
    if config_read is not None:
        facts = config_read.copy()
    else:
        facts = Facts()
        doc = choose_config(configs)
        if doc is not None:
            _read_config(doc, facts, with_evidence)
    if hints is None:
        hints = read_prose(intake.prose)
    if situational:
        _read_logs(logs, facts)
        _read_prose(hints, facts, situational=True)
        _read_vram(logs, facts, intake.prose, gpu_vram_gib, hints)
    else:
        _read_prose(hints, facts, situational=False)
        _stated_or_assumed(facts, gpu_vram_gib)
        facts.sizes_fixes = False
    facts.has_oom = (
        facts.fatal is not None
        or facts.gpu_oom
        or facts.host_oom is not None
        or facts.says_oom
        or facts.says_host_killed
    )
    secrets = real_secrets(intake)
    facts.secret_kinds = sorted({hit.kind for hit in secrets})
    facts.secret_count = len(secrets)
    if secrets:
        hit = secrets[0]
        # The kind of secret only: the secret itself is never kept.
        facts.evidence["secret"] = Evidence(source=hit.source, line=hit.line, text=hit.kind)
    return facts
