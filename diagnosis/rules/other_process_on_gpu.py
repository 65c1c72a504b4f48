"""`other_process_on_gpu`: Another program is using the GPU."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, Finding, OtherProcess, Phase, Severity
from diagnosis.rules.base import (
    GIB,
    LOAD_PHASES,
    VRAM_ONLY,
    Placement,
    RuleSpec,
    all_phases_but,
    batch_one,
    ev,
    fmt_gib,
    then_params,
)

# The user's words this rule listens for (case-insensitive, one line at a time; keep them linear:
# no nested repetition). Each list is heard as `SPEC.heard(f, name)`.
WORDS: dict[str, tuple[str, ...]] = {
    # The user says other programs hold VRAM on the same card.
    "other_programs": (
        r"\bcomfy(?:ui)?\b[^.\n]{0,60}\b(?:open|running|loaded|in another|at the same time|idle)",
        r"\b(?:open|running|loaded)\b[^.\n]{0,30}\bcomfy(?:ui)?\b",
        r"\bwallpaper engine\b",
        r"\bbackground (?:apps?|applications?|processes|programs?)\b[^.\n]{0,60}\b(?:vram|gpu|memory)",
        r"\b(?:vram|gpu memory)\b[^.\n]{0,40}\b(?:used|taken|held|consumed) by (?:other|another|background)",
        r"\b(?:another|second|other) (?:training )?(?:run|job|instance|process|program|app)\b[^.\n]{0,40}\b(?:same gpu|gpu|vram)",  # noqa: E501 (a pattern reads best on one line)
        r"\bgpu is also driving\b|\bdriving (?:the |my )?(?:display|monitors?)\b",
        r"(?:ComfyUI|comfy)[^。\n]{0,20}(?:開いて|起動して|動かして)",
        r"(?:別の|他の)(?:アプリ|プログラム|プロセス)[^。\n]{0,30}(?:VRAM|GPU)",
    ),
    # The user says closing the other programs did not help (case 020): the advice is then to find what
    # still holds the card, not to close the programs again.
    "closed_others": (
        r"\bafter (?:\w+ ){0,2}clos(?:ing|ed)\b[^.\n]{0,60}\b(?:persists?|still|remains|same (?:error|oom|problem|issue)|no (?:luck|change|difference)|(?:didn't|did not|doesn't|does not|won't) help)",  # noqa: E501 (a pattern reads best on one line)
        r"\bclos(?:ing|ed) (?:all|every|the|those|these|them|other)\b[^.\n]{0,40}\b(?:didn't|did not|doesn't|does not|won't|wouldn't) (?:help|fix|change)",  # noqa: E501 (a pattern reads best on one line)
        r"\b(?:closed|killed|quit) (?:all|every|everything|them|those|these|the other)\b[^.\n]{0,60}\b(?:still|same (?:error|oom|problem|issue)|persists?)",  # noqa: E501 (a pattern reads best on one line)
        # Not 閉じてもいい / 大丈夫 ("may I close …?"), a question before trying.
        r"(?:閉じ|終了し|終了させ|kill ?し|キルし)(?:ても(?!(?:いい|良い|よい|大丈夫|平気|問題))|たのに|たけど)[^。\n]{0,30}(?:同じ|変わら|改善し|直ら|ダメ|だめ|OOM|エラー)",  # noqa: E501 (a pattern reads best on one line)
    ),
}


def _foreign(f: Facts) -> list[OtherProcess]:
    """Processes listed in the OOM message that are not the trainer itself."""
    return [] if f.fatal is None else f.fatal.trainer_and_others()[1]


def check_other_process(f: Facts) -> Finding | None:
    t = thresholds()
    event = f.fatal
    if event is not None and not event.kind.on_host:
        total = event.total_bytes or 0
        others = _foreign(f)
        held = sum(p.bytes for p in others)
        if others and held >= max(t.others_min_gib * GIB, t.others_min_fraction * total):
            return _finding(f, held, others, "other_pids")
        spill = event.allocated_bytes is not None and total and event.allocated_bytes > total
        if (
            not others
            and not spill
            and total
            and event.free_bytes is not None
            and event.process_bytes is not None
        ):
            unaccounted = total - event.free_bytes - event.process_bytes
            if unaccounted >= max(t.unaccounted_min_gib * GIB, t.unaccounted_min_fraction * total):
                return _finding(f, unaccounted, [], "unaccounted")
    if SPEC.heard(f, "other_programs") and (f.has_oom or f.fatal is not None):
        return SPEC.finding(
            evidence=[SPEC.heard(f, "other_programs"), *ev(f, "oom"), SPEC.heard(f, "closed_others")],
            # Nothing measured: no size and no PIDs to quote.
            params={"reason": "user_says", **_next_by_phase(f), **batch_one(f), **_tried_closing(f)},
            severity=Severity.WARNING,
        )
    return None


def _finding(f: Facts, held: int, procs: list[OtherProcess], reason: str) -> Finding:
    return SPEC.finding(
        # The user's "closing them did not help" picks the step's wording: it is quoted as its reason.
        evidence=[
            *ev(f, "oom"),
            SPEC.heard(f, "other_programs"),
            SPEC.heard(f, "closed_others"),
        ],
        params=_params(held, procs, reason) | _next_by_phase(f) | batch_one(f) | _tried_closing(f),
        severity=Severity.ERROR,
    )


def _tried_closing(f: Facts) -> dict[str, object]:
    """`tried_closing` when the user says closing the programs did not help (case 020): the step then
    asks to find what still holds the card instead of to close the programs again."""
    return {"tried_closing": True} if SPEC.heard(f, "closed_others") else {}


def _next_by_phase(f: Facts) -> dict[str, object]:
    """What to lower once the card is free depends on the phase that failed (RULES.md "Phase changes
    the order"): while loading, the model's low-memory options; while caching latents, the buckets."""
    if f.phase in LOAD_PHASES:
        return then_params(f, prefix="load_")
    if f.phase == Phase.LATENT_CACHING:
        return {"then": "caching"}
    return {}


def _params(held: int, procs: list[OtherProcess], reason: str) -> dict[str, object]:
    params: dict[str, object] = {"reason": reason}
    if held > 0:
        params["others_gib"] = fmt_gib(held / GIB)
    pids = [p.pid for p in procs if p.pid is not None]
    if pids:
        params["pids"] = pids
    return params


SPEC = RuleSpec(
    id="other_process_on_gpu",
    order=150,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("fatal", "other_processes", "said"),
    rank=2,
    check=check_other_process,
    params=frozenset({"reason", "others_gib", "pids", "tried_closing", "then", "paths_off", "batch_one"}),
    # Whatever the phase, a card already half full is the first thing to rule out.
    placement=Placement(phases=dict.fromkeys(all_phases_but(), 0), ruled_out_by=VRAM_ONLY),
    words=WORDS,
)
