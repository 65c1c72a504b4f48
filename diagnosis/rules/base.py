"""What every rule shares: its spec, and small readers of the situation (phase, card, family)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any, NamedTuple

from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.families import Family, table, thresholds
from diagnosis.models import Applicability, ConfigEdit, Effect, Evidence, Finding, KeyPath, Phase, Severity

GIB = 1024**3

LOAD_PHASES = frozenset({Phase.MODEL_LOAD, Phase.QUANTIZE})
SAMPLING_PHASES = frozenset({Phase.FIRST_SAMPLE, Phase.SAMPLING})
CACHING_PHASES = frozenset({Phase.LATENT_CACHING, Phase.TEXT_EMBEDDING_CACHING})


# The phases the ladder orders by; a run with no known phase is ordered as a training step.
LADDER_PHASES = frozenset(p.value for p in Phase if p not in (Phase.UNKNOWN, Phase.CONFIG_PARSE))


def in_phases(*phases: Phase) -> frozenset[str]:
    return frozenset(p.value for p in phases)


def all_phases_but(*phases: Phase) -> frozenset[str]:
    return LADDER_PHASES - in_phases(*phases)


class Role(StrEnum):
    """What a finding is in the reply: the ladder, the headline and the templates work from this."""

    # A change to make: a step of the fix ladder, and the headline's cause when it leads.
    CAUSE = "cause"
    # Worth a line under "also worth checking", never a step nor the headline's cause; left out when it
    # is the only finding (a config that only lacks it is not "likely to run out of memory").
    TIP = "tip"
    # Said beside the reply in its own block (a pasted secret): no step, no cause, its lines never quoted.
    NOTICE = "notice"
    # What is missing to tell more: asked at the end of the reply, never a step nor a cause.
    QUESTION = "question"
    # Decides what the reply is about (the error is not an OOM, the config does not parse): it leads the
    # ladder, and the reply shows it in the shape its `Verdict` describes instead of a checklist.
    VERDICT = "verdict"

    @property
    def on_ladder(self) -> bool:
        return self in (Role.CAUSE, Role.VERDICT)


class Placement(NamedTuple):
    """Where a finding goes on the fix ladder (DESIGN.md "The fix ladder"; RULES.md "Phase changes the
    order"). The ladder sorts: the `first` findings by their place; then, in the phase where the run
    died, the errors that can break that phase by their place in `phases`; then the other errors,
    warnings and tips by `RuleSpec.rank`; the findings the phase rules out as the cause (`last_in`) go
    after everything else. Phases are `Phase` values; a run with no known phase counts as a training
    step."""

    # Before every other finding (the config does not parse, the error is not an OOM, the host ran out):
    # the place among them, lower first.
    first: int | None = None
    # Phase → place among the errors that can break that phase (lower first).
    phases: Mapping[str, int] = {}
    # Phases in which this finding is not what broke the run: it goes last.
    last_in: frozenset[str] = frozenset()
    # Evidence that rules the finding out entirely: "load" (the OOM came while loading or quantizing the
    # model, before this could matter), "host" (the host ran out of RAM, not the card).
    ruled_out_by: frozenset[str] = frozenset()
    # A flag param that marks the finding as a trainer default the config never shows (a missing key)
    # and that costs more than the generic fixes (no `dtype`: fp32 weights, twice bf16). A finding that
    # carries it goes before the phase's errors, in every phase but `last_in`: nothing in the config
    # points at it, so the user would try every generic fix first.
    leads_when: str | None = None


# `ruled_out_by` of the fixes that lower only the card's memory: after the host ran out of RAM (or the
# Windows page file), the next steps stay host-side.
VRAM_ONLY = frozenset({"host"})


# The place of a finding that `Placement.leads_when` lifts, among a phase's errors: after what the log
# itself blames (place 0: another program holds the card), before the fixes the phase orders (10 and up).
LEADS_PLACE = 1


class Verdict(NamedTuple):
    """How the reply shows a verdict: the rule's own `headline` (catalogue), then these catalogue
    fields and the quoted param, then its variant sentences and its fix steps."""

    quote: str  # the param quoted in a code block (the error line, the line that does not parse)
    quote_lang: str  # its code-fence language
    before: tuple[str, ...] = ()  # catalogue fields said before the quote
    after: tuple[str, ...] = ()  # catalogue fields said after it
    evidence: bool = True  # the reply lists the evidence lines too
    context: bool = False  # the headline's context line (model, batch, card) is shown
    # A conditional verdict (`always=False`) leads only when no cause does: a config that does not parse
    # matters less than a GPU out of memory already explained by the log.
    always: bool = True
    # The input shows no out-of-memory at all: the OOM checklist is left out (findings whose spec has
    # `oom_checklist=False` stay). A finding may say otherwise for its case (`RuleSpec.finding`).
    ends_checklist: bool = False


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
    # Every param a finding of the rule may carry, and those `quotable` adds: what its catalogue texts
    # may name as placeholders, `when_<param>` and `variant.<param>`. Declared here so that a new rule
    # needs no list kept elsewhere; the tests hold the findings and the catalogues to it.
    params: frozenset[str] = frozenset()
    # Suppressed when the input shows an error that is not an out-of-memory.
    oom_checklist: bool = True
    role: Role = Role.CAUSE
    placement: Placement = Placement()
    # Rules whose steps the reply treats alike (e.g. "gc": the retry-first advice and the GC one-liner).
    group: str | None = None
    # False: the finding alone does not make a diagnosis (an update may be the cause, but the reply
    # still needs the error); when no checklist lists it, the reply says it as a notice.
    standalone: bool = True
    verdict: Verdict | None = None
    # The finding's params as the reply's sentences may quote them, given the usable ones (unknown values
    # already left out): a rule adds what its wording needs or drops what would read wrong.
    quotable: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # The user's words the rule listens for: named lists of patterns (Python regular expressions,
    # case-insensitive, tried one line at a time on the user's own words, never on a log or a config).
    # The facts stage hears every rule's lists in one pass (diagnosis/facts_prose.py).
    words: Mapping[str, tuple[str, ...]] = {}
    # What the fix lowers, as the reply marks it: memory (most rules), speed, or both. A finding may say
    # otherwise for its case (`finding(effect=…)`).
    effect: Effect = Effect.MEMORY
    # The list in `words` with which the user asks whether this fix is needed ("do I need to drop a
    # bucket?"): the reply answers it directly, yes with the step and why (catalogue `answer_yes`), or
    # no and why (`answer_no`).
    asked_by: str | None = None
    # A fix whose size the memory estimate chooses (how many frames, which buckets, which batch): the
    # finding again for the config as the ladder leaves it before the rule's step (the second Facts:
    # that config alone), so that a cut after an earlier step (GC, then the batch) goes no further
    # than the card needs. None keeps the finding as it is.
    resize: Callable[[Facts, Facts], Finding | None] | None = None

    def heard(self, f: Facts, name: str) -> Evidence | None:
        """The user's line that one of this rule's word lists matched, as evidence; None if none did."""
        quote = f.said.get(f"{self.id}.{name}")
        return Evidence(source="user", line=None, text=quote) if quote else None

    def finding(
        self,
        *,
        evidence: Iterable[Evidence | None] = (),
        params: dict[str, Any] | None = None,
        edits: Iterable[ConfigEdit] = (),
        severity: Severity | None = None,
        applicability: Applicability | None = None,
        ends_checklist: bool | None = None,
        effect: Effect | None = None,
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
            ends_checklist=(self.verdict is not None and self.verdict.ends_checklist)
            if ends_checklist is None
            else ends_checklist,
            effect=effect or self.effect,
        )


def said(f: Facts, name: str) -> Evidence | None:
    """The user's line that a shared word list (`words:` in data/prose.yaml: slow, stuck, exits,
    no_error) matched, as evidence; None if none did."""
    quote = f.said.get(f"words.{name}")
    return Evidence(source="user", line=None, text=quote) if quote else None


def slowdown(f: Facts) -> Evidence | None:
    """What shows the run got slower: the log's step times several-fold slower, else the user's words."""
    measured = f.evidence.get("step_slowdown") if f.step_slowdown else None
    return measured or said(f, "slow")


def no_oom_seen(f: Facts) -> bool:
    """Neither a log nor the user's words show an out-of-memory of the card or of the host."""
    return not (f.has_oom or f.gpu_oom or f.fatal is not None or f.host_oom is not None)


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


def sizes_by_estimate(f: Facts) -> bool:
    """Whether the memory estimate may be asked about this case: the model and the card are known,
    and it is not one of the ladder's re-checks of a corrected config (`Facts.sizes_fixes`)."""
    return f.sizes_fixes and f.family is not None and f.params_b is not None and f.vram_gib is not None


def model_cut(
    f: Facts,
    at: Facts | None,
    field: str,
    candidates: Iterable[int],
    tied: Callable[[int], Mapping[str, int]] | None = None,
    cut_only: bool = False,
) -> int | None:
    """The largest of `candidates` for `field` ("frames", "bucket", "batch") at which the memory
    estimate fits the card with the margin, never below what an OOM message proves; `at`: the config
    as the ladder leaves it before the rule's step (None: as pasted). None when the estimate cannot
    say (no family or card, a family the model does not hold, nothing fits): the rule keeps its table.

    The memory model is imported here and only asked for a family and a card, and not on the ladder's
    re-checks (`Facts.sizes_fixes`): a case whose rules cut nothing, or cut for a model nobody named,
    never loads it. `cut_only`: only the phases a cut changes must fit (the training step, latent
    caching), not the model's load, which no cut lowers."""
    values = list(candidates)
    if not (values and sizes_by_estimate(f)):
        return None
    from diagnosis.estimate.fit import largest_that_fits_on_card

    return largest_that_fits_on_card(f, field, values, at, tied, cut_only)


def model_over(f: Facts) -> bool:
    """Whether the memory estimate says the job as pasted does not fit the card at all (a reason for a
    cutting rule to fire that its table alone misses: batch 4 is a safe start for FLUX.1 on 24 GB, not
    at 1536 px). False where `model_cut` would not ask (no family or card, the ladder's re-checks)."""
    if not sizes_by_estimate(f):
        return False
    from diagnosis.estimate.fit import over_on_card

    return over_on_card(f)


def model_load_over(f: Facts) -> bool:
    """Whether the memory estimate says loading or quantizing the model as pasted does not fit the card
    even at the low end (what no cut lowers). False where `model_cut` would not ask."""
    if not sizes_by_estimate(f):
        return False
    from diagnosis.estimate.fit import load_over_on_card

    return load_over_on_card(f)


def sized_params(f: Facts, sized: bool, flag: str = "sized") -> dict[str, Any]:
    """What the wording of a cut the estimate chose needs: its flag (`<flag>`, or `<flag>_assumed` on
    a card the reply assumes) and the card's class in GB (`card_gb`)."""
    if not sized:
        return {}
    assumed = f.vram_source == "assumed"
    return {f"{flag}_assumed" if assumed else flag: True, "card_gb": f.vram_gib}


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


# Gradient checkpointing, read alike by the rules of the "gc" group.


def gc_edit(f: Facts) -> ConfigEdit:
    return ConfigEdit(path(f, "gradient_checkpointing", ("train", "gradient_checkpointing")), True)


def gc_is_off(f: Facts) -> bool:
    return checks_config(f) and f.gc_explicit and not f.gradient_checkpointing


def gc_severity(f: Facts) -> Severity:
    # GC only shapes training-step activations: an OOM while loading, caching or sampling, or one of
    # the host, is not caused by it, so it stays a warning there.
    if f.host_oom is not None or f.phase in LOAD_PHASES | SAMPLING_PHASES | CACHING_PHASES:
        return Severity.WARNING
    return Severity.ERROR if gpu_oom(f) else Severity.WARNING
