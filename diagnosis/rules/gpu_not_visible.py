"""`gpu_not_visible`: PyTorch does not see the GPU, so the run is on the CPU or does not start."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Evidence, Finding, Severity
from diagnosis.rules.base import Placement, RuleSpec, ev

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # The user sees the run on the CPU, or the GPU idle, or WSL without the card.
    "no_gpu": (
        r"\b(?:training|runs?|running|it (?:is )?(?:using|uses))\b[^.\n]{0,30}\bon (?:the |my )?cpu\b",
        r"\b(?:not|isn't|is not|doesn't|does not|never) (?:using|use|see|seeing|detect|detecting|find|finding) (?:the |my )?(?:gpu|cuda|graphics card)\b",  # noqa: E501 (a pattern reads best on one line)
        r"\bgpu (?:usage|utili[sz]ation|load) (?:is |stays |at )?0 ?%",
        r"\bwsl\b[^.\n]{0,40}\b(?:no|not|doesn't|does not|can't|cannot) (?:see|find|detect)\b[^.\n]{0,20}\b(?:gpu|cuda)",  # noqa: E501 (a pattern reads best on one line)
        r"\bcuda(?:\.is_available\(\))? (?:is )?(?:not available|returns? false|false)\b",
        r"GPU ?(?:が|を)? ?(?:使われていない|使われてない|認識されない|認識しない|使っていない)|CPU ?で(?:学習|動いて)",  # noqa: E501 (a pattern reads best on one line)
    ),
}


def check_gpu_not_visible(f: Facts) -> Finding | None:
    if f.error_kind == "no_cuda":  # the log reader's kind of the error (logreader/errors.py)
        evidence: list[Evidence | None] = [*ev(f, "not_oom", "error")]
        return SPEC.finding(evidence=evidence, params={"seen": "error"}, severity=Severity.ERROR)
    said = SPEC.heard(f, "no_gpu")
    if said is not None:
        return SPEC.finding(evidence=[said], params={"seen": "user_says"})
    return None


SPEC = RuleSpec(
    id="gpu_not_visible",
    order=157,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("error_kind", "said"),
    rank=1,
    check=check_gpu_not_visible,
    params=frozenset({"seen"}),
    # Said whatever else the input shows: with no GPU, no memory setting matters yet.
    oom_checklist=False,
    placement=Placement(first=46),
    words=WORDS,
)
