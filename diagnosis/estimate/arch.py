"""The memory model's data (`data/memory_model.yaml`), read once into typed records."""

from __future__ import annotations

from functools import cache
from typing import Any

from diagnosis.datafile import data_file
from diagnosis.record import Record

Pair = tuple[float, float]


class Arch(Record):
    """What activation memory scales with, for one family (or variant)."""

    hidden: int
    blocks: int
    px_per_token: int
    t_compress: int
    text_tokens: int
    te_params_b: float
    # The share of te_params_b at its load precision at once while it is quantized (None: all of it):
    # a model whose loader quantizes each encoder before the next one arrives.
    te_at_once_b: float | None
    vae_params_b: float
    experts: int
    cfg_sample: bool
    control_tokens: bool
    lora_per_rank_m: float | None
    sources: str


class Constants(Record):
    bytes_per_weight: dict[str, float]
    unquantized_share: Pair
    ara_targeted_share: Pair
    ara_adapter_gib: Pair
    trained_bytes: float
    optimizer_state_bytes: dict[str, float]
    lora_per_rank_ratio: float
    lokr_factor_params: Pair
    block_bytes: Pair
    checkpoint_bytes: float
    recompute_blocks: float
    te_offload_in_flight: float
    sample_block_bytes: Pair
    vae_decode_gib_per_mp: Pair
    vae_encode_gib_per_mp: Pair
    cuda_context_gib: Pair
    allocator_share: Pair
    static_share: Pair
    margin: float
    usable_share: float


def _pair(value: Any) -> Pair:
    return (float(value[0]), float(value[1]))


@cache
def _raw() -> dict[str, Any]:
    raw: dict[str, Any] = data_file("memory_model.yaml")
    return raw


@cache
def constants() -> Constants:
    raw = dict(_raw()["constants"])
    for name, value in raw.items():
        if isinstance(value, list):
            raw[name] = _pair(value)
        elif isinstance(value, dict):
            raw[name] = {str(k): float(v) for k, v in value.items()}
        else:
            raw[name] = float(value)
    return Constants(**raw)


def _arch(body: dict[str, Any]) -> Arch:
    per_rank = body.get("lora_per_rank_m")
    return Arch(
        hidden=int(body["hidden"]),
        blocks=int(body["blocks"]),
        px_per_token=int(body["px_per_token"]),
        t_compress=int(body.get("t_compress", 1)),
        text_tokens=int(body.get("text_tokens", 0)),
        te_params_b=float(body.get("te_params_b", 0.0)),
        te_at_once_b=None if body.get("te_at_once_b") is None else float(body["te_at_once_b"]),
        vae_params_b=float(body.get("vae_params_b", 0.084)),
        experts=int(body.get("experts", 1)),
        cfg_sample=bool(body.get("cfg_sample", False)),
        control_tokens=bool(body.get("control_tokens", False)),
        lora_per_rank_m=None if per_rank is None else float(per_rank),
        sources=str(body.get("sources", "")),
    )


@cache
def arch_for(family: str | None, label: str | None) -> Arch | None:
    """The architecture of a family, its variant picked by the family label ("Wan 2.1 1.3B");
    None for a family the table does not hold. Read from the data once per variant (the ladder asks
    for several estimates of one case); nothing changes an Arch once it is built."""
    body = _raw()["families"].get(family or "")
    if body is None:
        return None
    body = dict(body)
    variants = body.pop("variants", None) or []
    for variant in variants:
        overrides = dict(variant)
        # `match` is literal text, not a pattern (families.yaml's variants are patterns).
        if str(overrides.pop("match")).casefold() in (label or "").casefold():
            body.update(overrides)
            break
    return _arch(body)
