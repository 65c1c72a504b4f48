"""`no_quantize_big_model`: A large model is loaded without quantization."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.lazyre import LazyPattern
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    QUANTIZE,
    Placement,
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

# Compiled on first use: only a big model's quantize step reads a qtype, and start-up is a README figure.
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
    return SPEC.finding(
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


SPEC = RuleSpec(
    id="no_quantize_big_model",
    order=60,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("quantize", "qtype", "params_b", "family", "vram_gib", "phase"),
    rank=42,
    check=check_quantize,
    params=frozenset({"family_label", "params_b", "qtype", "low_bit", "then", "paths_off"}),
    placement=Placement(
        phases={
            Phase.MODEL_LOAD: 10,
            Phase.QUANTIZE: 20,
            Phase.LATENT_CACHING: 40,
            Phase.TEXT_EMBEDDING_CACHING: 30,
        }
    ),
)
