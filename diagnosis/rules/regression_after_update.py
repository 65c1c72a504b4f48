"""`regression_after_update`: It broke after an update."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.rules.base import RuleSpec

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # The user says the run worked before an update of the trainer, PyTorch or the drivers.
    "regression": (
        r"\bafter (?:the |an |a |this |last |latest |recent )?(?:git )?(?:update|upgrade)s?\b",
        r"\bafter (?:updating|upgrading)\b",
        r"\bfollowing (?:the |an |a |this |last |latest |recent )?(?:git )?(?:update|upgrade)s?\b",
        r"\b(?:after|since) (?:i |we )?(?:updated|upgraded)\b",
        r"\bsince (?:the |an |a |this |last |latest |recent )?(?:update|upgrade|updating|upgrading)\b",
        r"\b(?:updated|upgraded|updating|upgrading) (?:ai[- ]?toolkit|the toolkit|toolkit|torch|pytorch|cuda|(?:the |my |nvidia )?drivers?|the trainer)\b",  # noqa: E501 (a pattern reads best on one line)
        r"\bthe (?:latest |recent |new )?update\b",
        r"\bregression\b",
        r"\bworked (?:fine |well )?(?:in|on|with) (?:commit |version |v)?[0-9a-f]{7,40}\b",
        r"\bgit pull\b",
        # "New version is 14x slower" (case 203): the newer build against the older one.
        r"\b(?:new|newer|newest|latest) (?:version|update|build|commit)\b[^.\n]{0,60}\b(?:slower|slow|oom|ooms|crash(?:es)?|broke|broken|worse)\b",  # noqa: E501 (a pattern reads best on one line)
        r"\b(?:slower|worse|ooms?)\b[^.\n]{0,40}\bthan (?:the |in the )?(?:old|older|previous|last) (?:version|build|commit)\b",  # noqa: E501 (a pattern reads best on one line)
        r"アップデート(?:後|したら|してから|以降|で)",
        r"更新(?:後|したら|してから|以降)",
        r"バージョン(?:アップ|を上げ)",
    ),
    # "It worked before" counts as a regression only together with "same settings": on its own it is
    # usually about a change the user made (a bigger batch, GC switched off).
    "worked_before": (
        r"\bworked (?:fine |well |perfectly )?(?:before|last week|yesterday)\b",
        r"\bused to work\b",
        r"\bwas working (?:fine |well )?(?:before|until)\b",
        r"(?:前|以前|昨日|先週)は(?:普通に)?(?:動いて|回って|学習できて)",
    ),
    "same_settings": (
        r"\bsame (?:settings|config|configuration|options|dataset and settings)\b",
        r"\b(?:nothing|no settings?) (?:was |were |has been )?changed\b",
        r"\b(?:didn't|did not|haven't|have not) change (?:anything|a thing|the (?:settings|config))\b",
        r"\bno changes\b",
        r"設定は(?:同じ|変えて|そのまま)|何も変えて",
    ),
}


def check_regression(f: Facts) -> Finding | None:
    quote = SPEC.heard(f, "regression")
    if quote is None and SPEC.heard(f, "same_settings"):
        quote = SPEC.heard(f, "worked_before")
    if quote is None:
        return None
    return SPEC.finding(evidence=[quote], params={"quote": quote.text})


SPEC = RuleSpec(
    id="regression_after_update",
    order=210,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("said",),
    rank=85,
    check=check_regression,
    # Said whatever the input shows: an error that is not an OOM does not make it moot.
    oom_checklist=False,
    params=frozenset({"quote"}),
    standalone=False,
    words=WORDS,
)
