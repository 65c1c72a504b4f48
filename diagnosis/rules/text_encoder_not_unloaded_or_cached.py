"""`text_encoder_not_unloaded_or_cached`: The text encoder stays on the GPU."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    CACHE_TE,
    VRAM_ONLY,
    Placement,
    RuleSpec,
    checks_config,
    ev,
    family,
    path,
    then_params,
    vram,
)

# A text encoder this big (bf16 GiB) kept unquantized on a 24 GB card crowds out the transformer.
_TE_BIG_GIB = 8.0


_TE_BIG_VRAM = 24.0


# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # The user says the text encoder stays on the GPU although it should have been cached or unloaded.
    "te_not_released": (
        r"text encoder[^.\n]{0,30}\bnot (?:being )?(?:unloaded|released|freed|offloaded|removed)",
        r"text encoder[^.\n]{0,30}\b(?:stays|remains|still) (?:in|on) (?:the )?(?:vram|gpu)",
        r"nothing is (?:discharged|unloaded|released) from the text encoder",
        r"テキストエンコーダー?[^。\n]{0,20}(?:解放|アンロード|オフロード)されない",
    ),
    # The user says text-embedding caching is already on (then the advice is not "turn it on").
    "te_cached": (
        r"\b(?:select(?:ed)?|enabled?|turn(?:ed)? on|checked|using|use|set)\b[^.\n]{0,20}\bcache[_ ]text[_ ]embeddings\b",  # noqa: E501 (a pattern reads best on one line)
        r"\bcache[_ ]text[_ ]embeddings\b[^.\n]{0,10}(?::\s*true|\bis (?:on|enabled|true|checked))",
        r"(?:Cache Text Embeddings|cache_text_embeddings|テキスト埋め込み(?:の)?キャッシュ)[^。\n]{0,20}(?:オン|有効|true|入れて|にして)",  # noqa: E501 (a pattern reads best on one line)
    ),
}


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


# Layer offloading of at least this share of the text encoder keeps it off the GPU between uses.
_TE_OFFLOADED = 0.9


def _can_unload(f: Facts) -> dict[str, object]:
    # Last among the params: its `when_can_unload` texts (the UI path and effect naming Unload TE)
    # give way to those of the flags before it (cached, drops_dropout).
    return {"can_unload": family(f).unload_te}


def check_text_encoder(f: Facts) -> Finding | None:
    fam = family(f)
    te = fam.text_encoder
    if SPEC.heard(f, "te_not_released"):
        # The user sees the encoder stay in VRAM. With caching already on that is the trainer's doing
        # (update AI Toolkit, quantize the encoder), not a setting to turn on.
        cached = f.cache_text_embeddings or SPEC.heard(f, "te_cached") is not None
        return SPEC.finding(
            evidence=[
                SPEC.heard(f, "te_not_released"),
                SPEC.heard(f, "te_cached"),
                *ev(f, "cache_text_embeddings", "unload_text_encoder"),
            ],
            params={**_te_params(f, cached), **_can_unload(f)},
        )
    if not checks_config(f) or te is None:
        return None
    if f.unload_text_encoder or f.cache_text_embeddings or f.train_text_encoder:
        return None
    if f.layer_offloading and f.te_offload_share >= _TE_OFFLOADED:
        return None  # the encoder's layers live in host RAM and stream in: caching frees little VRAM
    needed = vram(f) <= fam.te_offload_up_to
    unquantized_big = not f.quantize_te and te.gib >= _TE_BIG_GIB and vram(f) <= _TE_BIG_VRAM
    if not (needed or unquantized_big):
        return None
    # The proposed fix is caching (memory only); unloading, which ignores the captions, is only
    # mentioned as another way. Caching needs caption dropout 0, and dropping the dropout does change
    # what is trained, so the step says so when it has to.
    edits = _te_edits(f)
    drops_dropout = any(e.path[-1] == "caption_dropout_rate" for e in edits)
    return SPEC.finding(
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


SPEC = RuleSpec(
    id="text_encoder_not_unloaded_or_cached",
    order=80,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=(
        "unload_text_encoder",
        "cache_text_embeddings",
        "train_text_encoder",
        "quantize_te",
        "layer_offloading",
        "te_offload_share",
        "family",
        "vram_gib",
        "caption_dropout_max",
        "said",
    ),
    rank=44,
    check=check_text_encoder,
    params=frozenset(
        {
            "te_name",
            "cached",
            "can_unload",
            "drops_dropout",
            "te_quantized",
            "then",
            "paths_off",
        }
    ),
    placement=Placement(
        phases={Phase.MODEL_LOAD: 30, Phase.QUANTIZE: 30, Phase.TEXT_EMBEDDING_CACHING: 10},
        # Unloading moves the text encoder into system RAM: it costs the host what it saves the card.
        ruled_out_by=VRAM_ONLY,
    ),
    words=WORDS,
)
