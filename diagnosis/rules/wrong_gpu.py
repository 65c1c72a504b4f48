"""`wrong_gpu`: The run is on another GPU than the one meant."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.rules.base import Placement, RuleSpec, ev, gpu_oom

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # The user says the run lands on another card than the one chosen (case 023: "trying to use 'GPU 2'
    # which then in fact uses GPU 0"): an index named as chosen and another as used, or "the wrong card".
    "wrong_gpu": (
        # Not "using the wrong GPU for Flux": a card not suited to the model, not a run on another card.
        r"\b(?:runs?|running|ran|uses?|using|used|lands?|landing|loads?|loaded|trains?|training|goes|going|ends? up)(?: on| to)? (?:the )?wrong (?:gpu|card|device)\b(?!,? for (?!(?:some|no|whatever) reason|example|instance)|,? to (?:train|run)\b)",  # noqa: E501 (a pattern reads best on one line)
        # The second card must differ from the first and follow a verb of running on it: "I set GPU 0 … it
        # actually OOMed on GPU 0" or "I use GPU 0 …, actually GPU 1 is my 3090" name no other card in use.
        r"\b(?:use|using|told|set|asked|selected|chose|chosen|picked)\b[^.\n]{0,20}\bgpu ?(\d)\b[^.\n]{0,40}\b(?:actually|in fact|instead)\b[^.\n]{0,30}\b(?:uses?|using|used|runs?|running|ran|trains?|training|loads?|loaded|lands?|goes|going|went|on)\b[^.\n]{0,15}\bgpu ?(?!\1\b)\d",  # noqa: E501 (a pattern reads best on one line)
        r"\b(?:using|uses|runs? on|running on)\W{1,3}gpu ?\d\b[^.\n]{0,20}\bwhen (?:it is |it's )?(?:told|set|asked) to use\b",  # noqa: E501 (a pattern reads best on one line)
        r"\bgpu ?\d\W{0,3} is actually gpu ?\d",
        r"(?:違う|別の|間違った) ?(?:GPU|カード) ?(?:で(?:動|学習|実行)|が使われ|を使って(?:しま|います))",
        r"GPU ?(\d)[^。\n]{0,20}(?:指定|選択|選ん)[^。\n]{0,20}(?:のに|けど)[^。\n]{0,30}GPU ?(?!\1(?!\d))\d",
    ),
    # The GPU choice is not honoured: CUDA_VISIBLE_DEVICES (or the device setting) is ignored, or the
    # job takes every card (case 213).
    "not_honoured": (
        r"\bcuda_visible_devices\b[^.\n]{0,60}\b(?:not|n't|ignor(?:ed|es|ing)|no effect|honou?r|respect)",
        r"\b(?:not|n't|never) (?:honou?r|respect)(?:s|ed|ing)? (?:the |setting )?(?:cuda_visible_devices|device setting|gpu (?:choice|selection|setting))",  # noqa: E501 (a pattern reads best on one line)
        r"\b(?:uses?|using|grabs?|takes?|occupies|loads? (?:onto|on)) (?:all|every|both) (?:of )?(?:the |my )?(?:gpus|cards)\b",  # noqa: E501 (a pattern reads best on one line)
        r"CUDA_VISIBLE_DEVICES[^。\n]{0,30}(?:効かない|無視|反映されない)",
    ),
}


def _device_mismatch(f: Facts) -> bool:
    """The config (or the user) names another card than the one that ran out: the device setting did
    not take, whatever else is on the card that failed."""
    event = f.fatal
    if event is None or event.kind.on_host or event.device_index is None:
        return False
    device = f.device_index
    if "device" not in f.paths and f.prose_device_index is not None:
        device = f.prose_device_index
    return device is not None and device != event.device_index


def check_wrong_gpu(f: Facts) -> Finding | None:
    if _device_mismatch(f):
        event = f.fatal
        ran = event.device_index if event is not None else None
        return SPEC.finding(
            evidence=ev(f, "oom", "device", "user_device"),
            # A string: GPU 0 is a card, not a missing value.
            params={"reason": "device_mismatch", "ran_on": str(ran)},
            severity=Severity.ERROR,
        )
    said = SPEC.heard(f, "wrong_gpu")
    if said is not None:
        # The user's words: the job runs on another card than the one chosen (case 023).
        return SPEC.finding(
            evidence=[said, *ev(f, "oom")],
            params={"reason": "user_says"},
            severity=Severity.WARNING if gpu_oom(f) or f.fatal is not None else Severity.INFO,
        )
    ignored = SPEC.heard(f, "not_honoured")
    if ignored is not None:
        return SPEC.finding(evidence=[ignored], params={"reason": "not_honoured"}, severity=Severity.WARNING)
    return None


SPEC = RuleSpec(
    id="wrong_gpu",
    order=155,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("fatal", "device_index", "prose_device_index", "said"),
    rank=1,
    check=check_wrong_gpu,
    params=frozenset({"reason", "ran_on"}),
    # Said whatever the input shows: an error that is not an OOM does not make it moot.
    oom_checklist=False,
    # Before any change of the config: on the wrong card, every memory figure is the wrong card's, and
    # a card that looks too small for the model may just be the other one.
    placement=Placement(first=45),
    words=WORDS,
)
