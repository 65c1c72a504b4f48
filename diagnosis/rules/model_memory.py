"""The model's low-memory paths: `no_quantize_big_model`, `no_low_vram`,
`text_encoder_not_unloaded_or_cached`."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.lazyre import LazyPattern
from diagnosis.models import Applicability, ConfigEdit, Finding, Severity
from diagnosis.rules.base import (
    CACHE_TE,
    LOW_VRAM,
    QUANTIZE,
    RuleSpec,
    big_model,
    checks_config,
    ev,
    family,
    load_oom,
    path,
    step_oom,
    then_params,
    vram,
)

# A text encoder this big (bf16 GiB) kept unquantized on a 24 GB card crowds out the transformer.
_TE_BIG_GIB = 8.0
_TE_BIG_VRAM = 24.0


# Compiled on first use: only a big model's quantize step reads a qtype (issue #8, start-up).
_BITS = LazyPattern(r"(?:u?int|convrotint|convrot|nvfp|q?float)(\d)|(\d) bit")


def _bits(qtype: str | None) -> int | None:
    """Bits per weight of a `qtype` value ("uint3|adapter" → 3, "qfloat8" → 8) or of the UI's name for
    one ("3 bit with ARA" → 3), None when unknown."""
    found = _BITS.match((qtype or "").strip().lower())
    return int(found.group(1) or found.group(2)) if found else None


def _quantize_params(f: Facts) -> tuple[dict[str, object], list[ConfigEdit]]:
    """The quantization the step names, and the `qtype` edit it needs besides `quantize: true`.

    `quantize: true` alone loads qfloat8 (the trainer's default) or the config's own `qtype`. Where
    the family needs fewer bits on this card, the step sets the model's own low-bit value, or, when
    the variant (and so its adapter) is not known for sure, asks the user to pick it in the UI."""
    fam = family(f)
    own = f.qtype.split("|", 1)[0].strip() if f.qtype else ""
    needed = _bits(fam.qtype_value or fam.qtype)
    if vram(f) > fam.low_bit_up_to or needed is None or needed >= 8:
        return {"qtype": own or "qfloat8"}, []
    have = _bits(f.qtype)
    if have is not None and have <= needed:
        return {"qtype": own}, []  # the config already names a low-bit type
    if not fam.qtype_value:
        return {"qtype": fam.qtype, "low_bit": "pick"}, []
    edit = ConfigEdit(path(f, "qtype", ("model", "qtype")), fam.qtype_value)
    return {"qtype": fam.qtype, "low_bit": "set"}, [edit]


def check_quantize(f: Facts) -> Finding | None:
    if not checks_config(f) or f.quantize or not big_model(f):
        return None
    fam = family(f)
    if not (vram(f) <= fam.quantize_up_to or load_oom(f)):
        return None
    qtype, qtype_edits = _quantize_params(f)
    return NO_QUANTIZE.finding(
        evidence=ev(f, "quantize", "qtype", "arch", "oom"),
        params={
            "family_label": f.family_label,
            "params_b": f.params_b,
            **qtype,
            **then_params(f, [QUANTIZE]),
        },
        edits=[ConfigEdit(path(f, "quantize", ("model", "quantize")), True), *qtype_edits],
        severity=Severity.ERROR if load_oom(f) or step_oom(f) else Severity.WARNING,
    )


def check_low_vram(f: Facts) -> Finding | None:
    if not checks_config(f) or f.low_vram or f.family_info is None:
        return None
    fam = family(f)
    if not fam.low_vram:
        return None
    if not (vram(f) <= fam.low_vram_up_to or (load_oom(f) and big_model(f))):
        return None
    return NO_LOW_VRAM.finding(
        evidence=ev(f, "low_vram", "arch", "oom"),
        # Flags that only pick texts (after `then`, whose "next" wins): the UI hides Low VRAM for
        # some families, and only some support Layer Offloading (config-reference §1.3, §4.3).
        params={
            "family_label": f.family_label,
            **then_params(f, [LOW_VRAM], offload=True),
            **({"offload": True} if fam.layer_offloading and fam.ui_layer_offloading else {}),
            **({"offload_advanced": True} if fam.layer_offloading and not fam.ui_layer_offloading else {}),
            **({"ui_hidden": True} if not fam.ui_low_vram else {}),
        },
        edits=[ConfigEdit(path(f, "low_vram", ("model", "low_vram")), True)],
        severity=Severity.ERROR if load_oom(f) else Severity.WARNING,
    )


def _te_edits(f: Facts) -> list[ConfigEdit]:
    """Cache the embeddings; caching needs caption dropout 0, so dropout goes to 0 where it is set."""
    edits = [ConfigEdit(path(f, "cache_text_embeddings", ("train", "cache_text_embeddings")), True)]
    for ds in f.datasets:
        if ds.caption_dropout > 0:
            edits.append(ConfigEdit(("datasets", ds.index, "caption_dropout_rate"), 0.0))
    return edits


def _te_params(f: Facts, cached: bool) -> dict[str, object]:
    te = family(f).text_encoder
    params: dict[str, object] = {"cached": cached}
    if te is not None:
        params["te_name"] = te.name
    return params


def _can_unload(f: Facts) -> dict[str, object]:
    # Last among the params: its `when_can_unload` texts (the UI path and effect naming Unload TE)
    # give way to those of the flags before it (cached, drops_dropout).
    return {"can_unload": family(f).unload_te}


def check_text_encoder(f: Facts) -> Finding | None:
    fam = family(f)
    te = fam.text_encoder
    if f.says_te_not_released:
        # The user sees the encoder stay in VRAM. With caching already on that is the trainer's doing
        # (update AI Toolkit, quantize the encoder), not a setting to turn on.
        cached = f.cache_text_embeddings or f.says_te_cached
        return TEXT_ENCODER.finding(
            evidence=ev(f, "user_te", "user_te_cached", "cache_text_embeddings", "unload_text_encoder"),
            params={**_te_params(f, cached), **_can_unload(f)},
        )
    if not checks_config(f) or te is None:
        return None
    if f.unload_text_encoder or f.cache_text_embeddings or f.train_text_encoder:
        return None
    needed = vram(f) <= fam.te_offload_up_to
    unquantized_big = not f.quantize_te and te.gib >= _TE_BIG_GIB and vram(f) <= _TE_BIG_VRAM
    if not (needed or unquantized_big):
        return None
    # The proposed fix is caching (memory only); unloading, which ignores the captions, is only
    # mentioned as another way. Caching needs caption dropout 0, and dropping the dropout does change
    # what is trained, so the step says so when it has to.
    edits = _te_edits(f)
    drops_dropout = any(e.path[-1] == "caption_dropout_rate" for e in edits)
    return TEXT_ENCODER.finding(
        evidence=ev(f, "cache_text_embeddings", "unload_text_encoder", "quantize_te", "arch"),
        # Already quantized, the encoder has one change left: the fix does not offer quantizing it.
        params={
            **_te_params(f, False),
            "drops_dropout": drops_dropout,
            **({"te_quantized": True} if f.quantize_te else {}),
            **then_params(f, [CACHE_TE]),
            **_can_unload(f),
        },
        edits=edits,
        applicability=Applicability.CHANGES_RESULTS if drops_dropout else None,
    )


NO_QUANTIZE = RuleSpec(
    id="no_quantize_big_model",
    order=60,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("quantize", "qtype", "params_b", "family", "vram_gib", "phase"),
    rank=42,
    check=check_quantize,
)

NO_LOW_VRAM = RuleSpec(
    id="no_low_vram",
    order=70,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=("low_vram", "family", "params_b", "vram_gib", "phase"),
    rank=40,
    check=check_low_vram,
)

TEXT_ENCODER = RuleSpec(
    id="text_encoder_not_unloaded_or_cached",
    order=80,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=(
        "unload_text_encoder",
        "cache_text_embeddings",
        "train_text_encoder",
        "quantize_te",
        "family",
        "vram_gib",
        "caption_dropout_max",
        "says_te_not_released",
        "says_te_cached",
    ),
    rank=44,
    check=check_text_encoder,
)

SPECS: tuple[RuleSpec, ...] = (NO_QUANTIZE, NO_LOW_VRAM, TEXT_ENCODER)
