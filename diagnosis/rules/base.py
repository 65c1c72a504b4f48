"""What every rule shares: its spec, and small readers of the situation (phase, card, family)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.families import Family, table, thresholds
from diagnosis.models import Applicability, ConfigEdit, Evidence, Finding, KeyPath, Phase, Severity

GIB = 1024**3

LOAD_PHASES = frozenset({Phase.MODEL_LOAD, Phase.QUANTIZE})
SAMPLING_PHASES = frozenset({Phase.FIRST_SAMPLE, Phase.SAMPLING})
CACHING_PHASES = frozenset({Phase.LATENT_CACHING, Phase.TEXT_EMBEDDING_CACHING})


class RuleSpec(NamedTuple):
    """A rule: its data and its check (a named tuple, like the engine's other immutable values; see
    diagnosis/models.py)."""

    id: str
    # Place in the catalogue and the order rules run (RULE_IDS): unique, gaps left for new rules.
    order: int
    severity: Severity  # the usual severity; a rule may raise or lower it for the case at hand
    applicability: Applicability
    reads: tuple[str, ...]  # the Facts fields the rule reads
    rank: int  # base place on the fix ladder (lower first), before the phase reorders it
    check: Callable[[Facts], Finding | None]
    # Suppressed when the input shows an error that is not an out-of-memory.
    oom_checklist: bool = True

    def finding(
        self,
        *,
        evidence: Iterable[Evidence | None] = (),
        params: dict[str, Any] | None = None,
        edits: Iterable[ConfigEdit] = (),
        severity: Severity | None = None,
        applicability: Applicability | None = None,
    ) -> Finding:
        seen: list[Evidence] = []
        for ev in evidence:
            if ev is not None and ev not in seen:
                seen.append(ev)
        return Finding(
            rule_id=self.id,
            severity=severity or self.severity,
            applicability=applicability or self.applicability,
            evidence=seen,
            params=dict(params or {}),
            edits=list(edits),
            ladder_rank=self.rank,
        )


def family(f: Facts) -> Family:
    return f.family_info or table().unknown


def vram(f: Facts) -> float:
    return f.vram_gib if f.vram_gib is not None else 24.0


def path(f: Facts, fact: str, default: KeyPath) -> KeyPath:
    """The key to edit for a fact: where the config has it, else the canonical place (inside a bare
    fragment of that section, without the section key)."""
    if fact in f.paths:
        return f.paths[fact]
    if f.bare_section is not None and default[:1] == (f.bare_section,):
        return default[1:]
    return default


def ev(f: Facts, *names: str) -> list[Evidence | None]:
    return [f.evidence.get(n) for n in names]


def ds_ev(f: Facts, datasets: Iterable[DatasetFacts], *keys: str) -> list[Evidence | None]:
    """The lines of these keys in each of these datasets (facts.py notes them as `datasets[i].key`)."""
    return [f.evidence.get(f"datasets[{ds.index}].{key}") for ds in datasets for key in keys]


def gpu_oom(f: Facts) -> bool:
    """An out-of-memory of the card: in a log, or in the user's words with nothing host-side seen."""
    return f.gpu_oom or (f.says_oom and f.host_oom is None and not f.says_host_killed)


def step_oom(f: Facts) -> bool:
    return gpu_oom(f) and f.phase == Phase.TRAINING_STEP


def load_oom(f: Facts) -> bool:
    return gpu_oom(f) and f.phase in LOAD_PHASES


def checks_config(f: Facts) -> bool:
    """Config rules need a parsed config; a bare fragment only answers for the keys it holds."""
    return f.config_parsed


def whole_config(f: Facts) -> bool:
    """Rules that read a missing key as the trainer's default need more than a fragment."""
    return f.config_parsed and f.config_shape != "fragment"


def fmt_gib(value: float) -> float:
    return round(value, 2)


def big_model(f: Facts) -> bool:
    """A model large enough that quantizing it and low_vram matter (`thresholds.big_model_b`)."""
    return (f.params_b or 0) >= thresholds().big_model_b


# The model's low-memory options, by the names the UI gives them (the same in every language).
QUANTIZE, LOW_VRAM, CACHE_TE, QUANTIZE_TE, LAYER_OFFLOADING = (
    "Quantize",
    "Low VRAM",
    "Cache Text Embeddings",
    "Quantize Text Encoder",
    "Layer Offloading",
)


def batch_one(f: Facts) -> dict[str, Any]:
    """`batch_one` when the config trains with batch size 1 already: the "still out of memory?" line
    then has a `when_batch_one` wording without "lower Batch Size". Flag only; a rule puts it after
    `then`, whose wording wins where both have one."""
    known = "batch_size" in f.paths or whole_config(f)
    return {"batch_one": True} if known and f.batch_size <= 1 else {}


def options_off(f: Facts, skip: Iterable[str] = (), offload: bool = False) -> list[str] | None:
    """The model's low-memory options that apply to its family and are still off, in the order they are
    usually tried; None when the config does not show them (no whole config, or an unknown model)."""
    if not whole_config(f) or f.family_info is None:
        return None
    fam = family(f)
    te = fam.text_encoder is not None and not f.train_text_encoder
    off = {
        QUANTIZE: not f.quantize and big_model(f),
        LOW_VRAM: fam.low_vram and not f.low_vram,
        CACHE_TE: te and not (f.cache_text_embeddings or f.unload_text_encoder),
        # SD 1.5 and SDXL: the UI has no quantization section, and their CLIP encoders are small.
        QUANTIZE_TE: te and fam.ui_quantize and not f.quantize_te,
        LAYER_OFFLOADING: offload and fam.layer_offloading and not f.layer_offloading,
    }
    skipped = set(skip)
    return [_ui_name(fam, name) for name, is_off in off.items() if is_off and name not in skipped]


def _ui_name(fam: Family, option: str) -> str:
    # The Model panel does not show Low VRAM or Layer Offloading for every family: there the key
    # itself is the way in, named as the UI paths name it (the same in both languages).
    if option == LOW_VRAM and not fam.ui_low_vram:
        return "Show Advanced → low_vram"
    if option == LAYER_OFFLOADING and not fam.ui_layer_offloading:
        return "Show Advanced → layer_offloading"
    return option


def then_params(
    f: Facts, skip: Iterable[str] = (), prefix: str = "", offload: bool = False
) -> dict[str, Any]:
    """What the "still out of memory?" line can say from the config: the options still off
    (`then: <prefix>paths`, `paths_off`) or that all are on (`then: <prefix>all_on`). The catalogue
    has a `when_then_<value>.next` for each; without a config the rule's plain `next` is used, or
    `when_then_<prefix>unknown` when the prefix names a phase."""
    off = options_off(f, skip, offload)
    if off is None:
        return {"then": f"{prefix}unknown"} if prefix else {}
    if not off:
        return {"then": f"{prefix}all_on"}
    return {"then": f"{prefix}paths", "paths_off": off}
