"""Model families and VRAM classes: the table in `data/families.yaml`, read once into typed records.

The records are named tuples, not frozen dataclasses: they are immutable, and their classes are
created at import by every run of the command line, whose start-up is a benchmark figure (README).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, NamedTuple

from diagnosis.datafile import data_file

UNKNOWN = "unknown"

# The sizes cards are sold in; a measured total (23.55 GiB of a "24 GB" card) maps to the nearest
# class at or above it, with a little slack for what the driver reserves.
VRAM_CLASSES: tuple[float, ...] = (
    2, 3, 4, 6, 8, 10, 11, 12, 16, 20, 22, 24, 32, 40, 44, 46, 48, 64, 80, 94, 96, 128, 141, 180, 192,
)  # fmt: skip
_CLASS_SLACK_GIB = 0.35

Table = tuple[tuple[float, Any], ...]


class TextEncoder(NamedTuple):
    """A family's text encoder and its size in memory."""

    name: str
    gib: float


class Family(NamedTuple):
    """One model family's row of the table: size, memory paths, and thresholds by card size."""

    key: str
    label: str
    params_b: float | None
    is_video: bool
    text_encoder: TextEncoder | None
    low_vram: bool
    layer_offloading: bool
    unload_te: bool
    ui_low_vram: bool  # the UI's Model panel shows Low VRAM (else only Show Advanced sets it)
    ui_layer_offloading: bool  # the same for Layer Offloading
    ui_quantize: bool  # the Model panel has the quantization section (Quantize, Quantize Text Encoder)
    danger: str | None
    safe_batch: Table
    bucket_ok: Table
    min_vram: float | None
    quantize_up_to: float
    low_vram_up_to: float
    te_offload_up_to: float
    qtype: str
    # The `qtype` value to set (the low-bit type with the model's own accuracy recovery adapter) when
    # 8 bits is not enough on cards of class `low_bit_up_to` or smaller; "" when no single value is
    # known for the model (its variant, and so its adapter, is unsure).
    qtype_value: str
    low_bit_up_to: float
    frames_ok: Table

    def safe_batch_for(self, vram: float) -> int:
        return int(_lookup(self.safe_batch, vram))

    def bucket_ok_for(self, vram: float) -> int:
        return int(_lookup(self.bucket_ok, vram))

    def frames_ok_for(self, vram: float) -> int:
        return int(_lookup(self.frames_ok, vram))


class DangerCondition(NamedTuple):
    """One of the dangerous combinations a family is known for when gradient checkpointing is off."""

    max_bucket_at_least: int | None = None
    batch_at_least: int | None = None
    buckets_at_least: int | None = None
    control_images_at_least: int | None = None


def _lookup(table: Table, vram: float) -> Any:
    for limit, value in table:
        if vram <= limit:
            return value
    return table[-1][1]


def vram_class(total_gib: float) -> float:
    """The card size class of a measured total: 23.55 GiB → 24, 31.36 → 32, 11.76 → 12."""
    for size in VRAM_CLASSES:
        if total_gib <= size + _CLASS_SLACK_GIB:
            return size
    return float(round(total_gib))


def _table(raw: Any, fallback: Table) -> Table:
    if not isinstance(raw, list):
        return fallback
    return tuple((float(row[0]), row[1]) for row in raw)


def _family(key: str, raw: dict[str, Any], defaults: dict[str, Any]) -> Family:
    merged = {**defaults, **raw}
    te = merged.get("text_encoder")
    default_tables = {name: _table(defaults[name], ()) for name in ("safe_batch", "bucket_ok", "frames_ok")}
    return Family(
        key=key,
        label=str(merged.get("label", key)),
        params_b=None if merged.get("params_b") is None else float(merged["params_b"]),
        is_video=bool(merged.get("is_video")),
        text_encoder=None if not te else TextEncoder(name=str(te["name"]), gib=float(te["gib"])),
        low_vram=bool(merged.get("low_vram")),
        layer_offloading=bool(merged.get("layer_offloading")),
        unload_te=bool(merged.get("unload_te", True)),
        ui_low_vram=bool(merged.get("ui_low_vram", True)),
        ui_layer_offloading=bool(merged.get("ui_layer_offloading", True)),
        ui_quantize=bool(merged.get("ui_quantize", True)),
        danger=merged.get("danger"),
        safe_batch=_table(merged.get("safe_batch"), default_tables["safe_batch"]),
        bucket_ok=_table(merged.get("bucket_ok"), default_tables["bucket_ok"]),
        min_vram=None if merged.get("min_vram") is None else float(merged["min_vram"]),
        quantize_up_to=float(merged.get("quantize_up_to") or 0),
        low_vram_up_to=float(merged.get("low_vram_up_to") or 0),
        te_offload_up_to=float(merged.get("te_offload_up_to") or 0),
        qtype=str(merged.get("qtype", "qfloat8")),
        qtype_value=str(merged.get("qtype_value") or ""),
        low_bit_up_to=float(merged.get("low_bit_up_to") or 0),
        frames_ok=_table(merged.get("frames_ok"), default_tables["frames_ok"]),
    )


class _Variant(NamedTuple):
    """A model of a family told apart by its name (matched case-insensitively)."""

    pattern: str  # compiled on first use: a run looks at one family's variants, not all of them
    overrides: dict[str, Any]


class FamilyTable(NamedTuple):
    """The whole families table, read once."""

    families: dict[str, Family]
    variants: dict[str, tuple[_Variant, ...]]
    arch: dict[str, str]
    legacy_flags: tuple[tuple[str, str], ...]
    name_hints: tuple[tuple[str, str], ...]  # (pattern, arch), compiled on first use
    word_hints: tuple[tuple[str, str], ...]  # (pattern, arch): the model in the user's words
    danger: dict[str, tuple[DangerCondition, ...]]
    unknown: Family


@cache
def _raw() -> dict[str, Any]:
    # Read once for both table() and thresholds(): each read would parse the file again; neither
    # changes what it is given.
    raw: dict[str, Any] = data_file("families.yaml")
    return raw


@cache
def table() -> FamilyTable:
    raw = _raw()
    defaults: dict[str, Any] = raw["defaults"]
    families: dict[str, Family] = {}
    variants: dict[str, tuple[_Variant, ...]] = {}
    for key, body in raw["families"].items():
        body = dict(body)
        rows = body.pop("variants", []) or []
        families[key] = _family(key, body, defaults)
        variants[key] = tuple(
            _Variant(
                pattern=str(row["match"]),
                overrides={k: v for k, v in row.items() if k != "match"},
            )
            for row in rows
        )
    return FamilyTable(
        families=families,
        variants=variants,
        arch={str(k): str(v) for k, v in raw["arch"].items()},
        legacy_flags=tuple((str(a), str(b)) for a, b in raw["legacy_flags"]),
        name_hints=tuple((str(p), str(k)) for p, k in raw["name_hints"]),
        word_hints=tuple((str(p), str(k)) for p, k in raw["word_hints"]),
        danger={
            key: tuple(DangerCondition(**cond) for cond in conds) for key, conds in raw["danger"].items()
        },
        unknown=_family(UNKNOWN, {"label": "unknown"}, defaults),
    )


@cache
def _name_pattern(pattern: str) -> re.Pattern[str]:
    # A variant's or name hint's pattern, compiled on first use (a run looks at one family's variants)
    # and kept: asking re's own cache on every call hashed the pattern text and flags each time.
    return re.compile(pattern, re.IGNORECASE)


def family_for(arch: str | None, name_or_path: str | None) -> Family:
    """The family of a resolved arch, refined by the model name (variants share one arch)."""
    t = table()
    key = t.arch.get(arch or "")
    if key is None:
        return t.unknown._replace(label=arch or t.unknown.label)
    family = t.families[key]
    name = name_or_path or ""
    hint = arch or ""
    for variant in t.variants.get(key, ()):
        # Some variants are told apart by the arch itself (flux2_klein_9b), most by the name.
        pattern = _name_pattern(variant.pattern)
        if pattern.search(name) or pattern.search(hint):
            overrides = dict(variant.overrides)
            label = str(overrides.pop("label", family.label))
            params = overrides.pop("params_b", family.params_b)
            numbers: dict[str, Any] = {k: v if isinstance(v, str) else float(v) for k, v in overrides.items()}
            family = family._replace(
                label=label,
                params_b=None if params is None else float(params),
                **numbers,
            )
            break
    return family


def arch_from_name(name_or_path: str | None) -> str | None:
    """A family arch guessed from the model name, for configs that set neither arch nor a flag."""
    if not name_or_path:
        return None
    for pattern, key in table().name_hints:
        if _name_pattern(pattern).search(name_or_path):
            return key
    return None


@cache
def _any_model_words() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{pattern})" for pattern, _ in table().word_hints), re.IGNORECASE)


def first_line_naming_a_model(lines: list[str]) -> str | None:
    """The first of `lines` that names a model, found with one search over them all (most words name
    none: trying every hint on every line would be the cost of a prose pass)."""
    match = _any_model_words().search("\n".join(lines))
    if match is None:
        return None
    text = match.string
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end >= 0 else len(text)]


# Where one sentence ends and the next begins ("FLUX.1" has no blank after its dot).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def family_from_words(text: str) -> tuple[Family, str] | None:
    """The model a line of the user's words (or the trainer's "Loading X model" line) names, with the
    words that name it; None when it names none. The words pick the variant as a model name does.

    The first sentence that names a model decides ("When training a FLUX LoRA it hangs. The same
    settings with SDXL work." is about FLUX); within a sentence the table's order does, so that the
    more specific name wins ("FLUX.1 Kontext")."""
    for sentence in _SENTENCE_END.split(text):
        for pattern, arch in table().word_hints:
            match = _name_pattern(pattern).search(sentence)
            if match:
                return family_for(arch, match.group(0)), match.group(0)
    return None


def danger_conditions(family: Family) -> tuple[DangerCondition, ...]:
    return table().danger.get(family.danger or "", ())


class Thresholds(NamedTuple):
    """The rules' shared thresholds, from the `thresholds` section of the table."""

    big_model_b: float
    dtype_model_b: float
    train_te_model_b: float
    high_rank: int
    high_rank_vram_up_to: float
    high_rank_new: int
    optimizer_lora_rank: int
    preview_ok: Table
    preview_steps_max: int
    preview_new_steps: int
    preview_frames_ok: Table
    preview_prompts_many: int
    preview_every_often: int
    preview_new_every: int
    fragmentation_min_gib: float
    fragmentation_tried_ratio: float
    others_min_gib: float
    others_min_fraction: float
    unaccounted_min_gib: float
    unaccounted_min_fraction: float

    def preview_ok_for(self, vram: float) -> int:
        return int(_lookup(self.preview_ok, vram))

    def preview_frames_ok_for(self, vram: float) -> int:
        return int(_lookup(self.preview_frames_ok, vram))


@cache
def thresholds() -> Thresholds:
    raw: dict[str, Any] = dict(_raw()["thresholds"])
    for name in ("preview_ok", "preview_frames_ok"):
        raw[name] = _table(raw[name], ())
    return Thresholds(**raw)
