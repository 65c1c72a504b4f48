"""`vram_spill_to_shared_memory`: Training crawls because VRAM spills into shared system memory."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Effect, Evidence, Finding, Phase, Severity
from diagnosis.rules.base import Placement, RuleSpec, ev, no_oom_seen, said, slowdown

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # What a spill looks like from outside: shared GPU memory in use, the card idle while VRAM is full.
    "spill_signs": (
        r"\bshared (?:gpu )?memory\b",
        r"\b(?:gpu )?(?:power|wattage|watts?|temperature|temp)\b[^.\n]{0,40}\b(?:drops?|dropp(?:ed|ing)|goes down|low)\b",  # noqa: E501 (a pattern reads best on one line)
        r"\b(?:drops?|dropp(?:ed|ing)) (?:down )?to \d{1,3} ?(?:w|watts)\b",
        r"\bgpu (?:usage|utili[sz]ation|load)\b[^.\n]{0,30}\b(?:low|drops?|dropp(?:ed|ing)|\d{1,2} ?%)",
        r"\bvram\b[^.\n]{0,30}\b(?:full|maxed|at (?:the )?max|100 ?%)",
        r"共有 ?GPU ?メモリ|共有メモリ",
    ),
    # The card works hard while nothing moves: a run stuck at a preview or a step with the GPU busy.
    "gpu_busy": (
        r"\bgpu (?:is |was )?(?:still )?(?:being )?(?:utili[sz]ed|busy|working|at 100 ?%)",
        r"\bgpu (?:usage|utili[sz]ation|load) (?:is |stays |at )?(?:high|100 ?%|9\d ?%)",
        r"GPU(?:使用率)?(?:は|が)?(?:100 ?%|フル|動いて|使われて)",
    ),
}

# Where a run that hangs with the card busy is most likely crawling through shared memory.
_BUSY_PHASES = frozenset({Phase.FIRST_SAMPLE, Phase.SAMPLING, Phase.TRAINING_STEP})

# The NVIDIA driver's fallback to system memory is a Windows driver feature (WSL 2 runs on it too).
_FALLBACK_OS = frozenset({"windows", "wsl"})
# Large cards rarely spill at the settings people train with; above this, a slowdown has other causes.
_MAX_SPILL_VRAM = 32.0


def _stalled_with_the_gpu_busy(f: Facts) -> Evidence | None:
    """A run that stops moving at a preview or a training step while the user says the GPU is busy:
    on Windows that is the same crawl as a slowdown, only slower."""
    busy = SPEC.heard(f, "gpu_busy")
    if busy is None:
        return None
    stalled = f.ends_without_error and f.last_phase in _BUSY_PHASES
    return busy if stalled or said(f, "stuck") is not None else None


def check_spill(f: Facts) -> Finding | None:
    if not no_oom_seen(f) or f.os not in _FALLBACK_OS:
        return None
    measured = slowdown(f)
    slow = measured or _stalled_with_the_gpu_busy(f)
    if slow is None or (f.vram_source != "assumed" and (f.vram_gib or 0) > _MAX_SPILL_VRAM):
        return None
    signs = SPEC.heard(f, "spill_signs")
    params: dict[str, object] = {"signs": signs is not None}
    if measured is None:
        params["stalled"] = True
    if f.vram_source not in (None, "assumed") and f.vram_gib:
        params["vram"] = f"{f.vram_gib:g}"
    return SPEC.finding(
        evidence=[slow, signs, *ev(f, "os", "step_times")],
        params=params,
        severity=Severity.ERROR if signs is not None or f.step_slowdown else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="vram_spill_to_shared_memory",
    order=205,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=(
        "os",
        "step_slowdown",
        "said",
        "vram_gib",
        "vram_source",
        "has_oom",
        "ends_without_error",
        "last_phase",
    ),
    rank=4,
    check=check_spill,
    params=frozenset({"signs", "vram", "stalled"}),
    # A slowdown is not an OOM: this stays beside the verdict that says so.
    oom_checklist=False,
    # Before any change of the config: the crawl hides whether the job fits at all.
    placement=Placement(first=55),
    words=WORDS,
    # The run stops crawling; it needs no less memory (that is what the error it then shows is for).
    effect=Effect.SPEED,
)
