"""What every rule shares: its spec, and small readers of the situation (phase, card, family)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.families import Family, table
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
