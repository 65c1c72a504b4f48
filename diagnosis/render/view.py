"""Report → the plain data the reply templates read (no wording here: that lives in the catalogues).

The view decides *what* the reply says (which finding leads, which evidence, which step, which
lines of the corrected config); the templates decide *how* it is said in each language.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from diagnosis import linediff
from diagnosis.logger import get_logger
from diagnosis.models import (
    Applicability,
    ConfigShape,
    Effect,
    Finding,
    LadderStep,
    OomEvent,
    OomKind,
    Phase,
    Severity,
)
from diagnosis.report import Report
from diagnosis.rules import Role, spec
from diagnosis.rules.base import Verdict

if TYPE_CHECKING:
    from diagnosis.render.estimate_view import EstimateView

MAX_EVIDENCE = 6
MAX_EXCERPT_LINES = 40
MAX_DIFF_LINES = 30
MAX_DIFF_SOURCE_LINES = 3000  # beyond this a config is only attached, never diffed line by line
LONG_CONFIG_LINES = 30  # a corrected config longer than this is also attached as a whole file
ATTACH_PREFIX = "config"

_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_HOST_KINDS = {kind.value for kind in OomKind if kind.on_host}  # Facts.oom_kind is the value
_USER_MARKERS = ("/home/USER", "/Users/USER", "\\Users\\USER", "Users\\\\USER", ":/Users/USER")
EVIDENCE_MAX = 200
# How intake and the bot name a pasted message (models.Piece.source): the reply says it in its language.
_MESSAGE_SOURCE = re.compile(r"message (\d{1,4})")
# A text the bot or the CLI read from a screenshot by OCR: the reply marks it as read, not pasted.
_SCREENSHOT_PREFIX = "screenshot:"


def screenshot_source(name: str) -> str:
    """The source name of a text read from the screenshot `name` (see `EvidenceLine.screenshot`)."""
    return _SCREENSHOT_PREFIX + name


# The other names intake and the bot give a piece that is not a file (models.Piece.source).
_NAMED_SOURCES = frozenset({"message", "stdin"})


class EvidenceLine(NamedTuple):
    """One quoted line of the reply's evidence list."""

    source: str
    line: int | None
    text: str
    message: int | None = None  # N when the source is the Nth pasted message ("message N")
    named: str | None = None  # "message" or "stdin": a source the reply names in its own language
    screenshot: str | None = None  # the image's name when the text was read from a screenshot


class OomNumbers(NamedTuple):
    """The out-of-memory message's figures, formatted for the reply."""

    tried: str | None = None
    free: str | None = None
    total: str | None = None
    others: str | None = None
    process: str | None = None
    host: bool = False  # the figures are system RAM (an OOM killer's anon-rss, the CPU allocator), not VRAM
    screenshot: str | None = None  # the image's name when the figures were read from a screenshot


class StepView(NamedTuple):
    """One ladder step as the reply shows it."""

    number: int
    rule_id: str
    rule_ids: list[str]
    applicability: str
    params: dict[str, Any]
    has_edits: bool
    # The step's other rules (the same edit, e.g. the family-specific GC rule beside the plain one) with
    # their params: what they add to the step (a family-specific sentence) is said under it too.
    merged: tuple[tuple[str, dict[str, Any]], ...] = ()
    group: str | None = None  # the rule's group (RuleSpec.group): steps of a group share some advice
    effect: str = Effect.MEMORY.value  # what the fix lowers: memory, speed or both (models.Effect)


class ConfigView(NamedTuple):
    """The corrected config as the reply shows it."""

    lang_tag: str  # code-fence language: yaml / json
    excerpt: str | None  # the changed lines with their parents and neighbours
    diff: str | None  # a short unified diff (no file headers, no context)
    attachment_name: str | None  # set when the whole corrected file is offered as a file (privately)
    corrected: str | None
    user_placeholder: bool = False  # scrubbing put USER in place of the user's name in a path
    # The changed lines that keep the user's end-of-line comment, which may now be wrong: (comment, the
    # line without it).
    kept_comments: tuple[tuple[str, str], ...] = ()


class ReplyView(NamedTuple):
    """Everything the templates read, computed from a report for one language and step."""

    lang: str
    kind: str  # "diagnosis", "verdict", "question", "clean"
    has_oom: bool
    host_oom: bool
    phase: str
    step: int | None
    where_key: str | None
    primary: str | None  # rule id of the most likely cause
    primary_group: str | None  # its group
    context: dict[str, Any]
    oom: OomNumbers | None
    evidence: list[EvidenceLine]
    steps: list[StepView]
    extra: list[StepView]  # findings outside the ladder (advice, tips)
    findings: dict[str, Finding]
    verdict: Finding | None  # the finding the reply is about when kind is "verdict"
    verdict_shape: Verdict | None  # how the reply shows it
    verdict_params: dict[str, Any]  # its params as a sentence may quote them
    gc_involved: bool
    notes: list[tuple[str, dict[str, Any]]]
    # A direct answer to the user's question that heads a reply which otherwise only asks for more.
    answer: tuple[str, dict[str, Any]] | None
    secret: Finding | None
    regression: Finding | None
    question: list[str]
    question_rule: str | None  # the rule that asks it
    question_params: dict[str, Any]  # its params as a sentence may quote them
    config: ConfigView | None
    shown_step: int  # 1-based ladder step the reply is about
    total_steps: int
    step_view: StepView | None
    has_config: bool  # a config was read (pasted or echoed in the log)
    secret_kinds: list[str]
    rule_params: dict[str, dict[str, Any]]
    # A clean config's changes still due after an out-of-memory in a training step (Report.if_oom).
    if_oom: tuple[StepView, ...] = ()
    estimate: EstimateView | None = None  # the memory estimate, in a diagnosis reply at its first step
    # Steps left out because the estimate fits with its margin before them (issue #20: the ladder
    # stops adding steps once the job fits); 0 when every step is listed.
    steps_dropped: int = 0


def size_text(n: int | None) -> str | None:
    """Bytes the way PyTorch prints them: 2.00 GiB, 40.00 MiB."""
    if n is None or n < 0:
        return None
    if n == 0:
        return "0 MiB"  # PyTorch prints "0 bytes"; "0.00 MiB" reads like a rounding
    if n >= 1024**3:
        return f"{n / 1024**3:.2f} GiB"
    return f"{n / 1024**2:.2f} MiB"


def _fatal(report: Report) -> OomEvent | None:
    if report.log is not None and report.log.fatal is not None:
        return report.log.fatal
    if report.facts.fatal is not None:
        return report.facts.fatal
    if report.log is not None and report.log.events:
        return report.log.events[-1]
    return None


def _screenshot_name(source: str) -> str | None:
    return source.removeprefix(_SCREENSHOT_PREFIX) if source.startswith(_SCREENSHOT_PREFIX) else None


def _oom_numbers(event: OomEvent | None, source: str) -> OomNumbers | None:
    if event is None:
        return None
    # The reply counts as others what other_process_on_gpu counts as foreign (the same function).
    process, foreign = event.trainer_and_others()
    others = sum(p.bytes for p in foreign) if foreign else None
    numbers = OomNumbers(
        tried=size_text(event.tried_bytes),
        free=size_text(event.free_bytes),
        total=size_text(event.total_bytes),
        others=size_text(others),
        process=size_text(process),
        host=event.kind.on_host,
        screenshot=_screenshot_name(source),
    )
    if not any((numbers.tried, numbers.free, numbers.total, numbers.others, numbers.process)):
        return None
    return numbers


def _rank(f: Finding) -> tuple[int, int]:
    return (_SEVERITY_ORDER.get(f.severity, 3), f.ladder_rank)


def _aside(rule_id: str) -> bool:
    """Said beside the diagnosis (a notice, a question), never its cause."""
    return spec(rule_id).role in (Role.NOTICE, Role.QUESTION)


def _with_verdict(rule_id: str) -> bool:
    return spec(rule_id).role == Role.VERDICT


def _with_role(report: Report, role: Role) -> Finding | None:
    return next((f for f in report.findings if spec(f.rule_id).role == role), None)


def _primary(report: Report, by_id: dict[str, Finding]) -> str | None:
    for step in report.ladder:
        for rid in step.rule_ids:
            if rid in by_id and not _aside(rid):
                return rid
    ranked = sorted((f for f in report.findings if not _aside(f.rule_id)), key=_rank)
    return ranked[0].rule_id if ranked else None


def _where_key(phase: str, step: int | None) -> str | None:
    if phase in ("", Phase.UNKNOWN.value):
        return None
    if phase == Phase.TRAINING_STEP.value and step == 0:
        return "reply.where.training_step_first"  # the trainer counts from 0
    if phase in (Phase.TRAINING_STEP.value, Phase.SAMPLING.value) and step is not None:
        return f"reply.where.{phase}_n"
    return f"reply.where.{phase}"


def _evidence(report: Report, primary: str | None) -> list[EvidenceLine]:
    ordered = sorted(report.findings, key=lambda f: (f.rule_id != primary, _rank(f)))
    seen: set[tuple[str, int | None, str]] = set()
    out: list[EvidenceLine] = []
    for finding in ordered:
        if spec(finding.rule_id).role == Role.NOTICE:
            continue  # the line holding a secret is never quoted, even scrubbed
        for ev in finding.evidence:
            key = (ev.source, ev.line, ev.text.strip())
            if key in seen or not ev.text.strip():
                continue
            seen.add(key)
            text = shorten(ev.text.strip().strip("`").strip())
            pasted = _MESSAGE_SOURCE.fullmatch(ev.source)
            number = int(pasted.group(1)) if pasted else None
            named = ev.source if ev.source in _NAMED_SOURCES else None
            out.append(EvidenceLine(ev.source, ev.line, text, number, named, _screenshot_name(ev.source)))
    return [e for e in out if e.text][:MAX_EVIDENCE]


def shorten(text: str, limit: int = EVIDENCE_MAX) -> str:
    """`text` within `limit` characters, cut at a word boundary when there is one near the end."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit * 2 // 3:
        head = head[:space]
    return head.rstrip(" ,;:") + "…"


def usable_params(rule_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """The params a sentence may quote: an unknown value (None, "", a size of 0) counts as missing,
    so the reply falls back to a sentence without it instead of printing "None×None" or "0 GiB"."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        if isinstance(value, int | float) and not isinstance(value, bool) and value <= 0:
            continue
        out[name] = value
    quotable = spec(rule_id).quotable if rule_id else None
    return quotable(out) if quotable is not None else out


def _step_view(step: LadderStep, by_id: dict[str, Finding]) -> StepView:
    rid = next((r for r in step.rule_ids if r in by_id), step.rule_ids[0] if step.rule_ids else "")
    finding = by_id.get(rid)
    applicability = finding.applicability.value if finding else Applicability.ADVICE.value
    params = usable_params(rid, dict(finding.params)) if finding else {}
    others = [r for r in step.rule_ids if r != rid and r in by_id]
    merged = tuple((r, usable_params(r, dict(by_id[r].params))) for r in others)
    group = spec(rid).group if rid else None
    effect = finding.effect.value if finding else Effect.MEMORY.value
    return StepView(
        step.number, rid, list(step.rule_ids), applicability, params, bool(step.edits), merged, group, effect
    )


def _finding_view(number: int, f: Finding) -> StepView:
    params = usable_params(f.rule_id, dict(f.params))
    return StepView(
        number,
        f.rule_id,
        [f.rule_id],
        f.applicability.value,
        params,
        bool(f.edits),
        group=spec(f.rule_id).group,
        effect=f.effect.value,
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _ancestors(lines: list[str], index: int) -> list[int]:
    """Indexes of the parent keys of line `index` (nearest line above with less indentation, repeated)."""
    out: list[int] = []
    level = _indent(lines[index]) if index < len(lines) else 0
    for i in range(min(index, len(lines)) - 1, -1, -1):
        if level == 0:
            break
        if _is_content(lines[i]) and _indent(lines[i]) < level:
            out.append(i)
            level = _indent(lines[i])
    return out


class LineDiff(NamedTuple):
    """The lines of a config before and after a step, and how they align (`linediff.opcodes`): worked
    out once, read by the excerpt, the short diff and the kept comments."""

    old: list[str]
    new: list[str]
    codes: list[linediff.Opcode]


def line_diff(original: str, corrected: str) -> LineDiff | None:
    """None for a config too long to diff line by line (`MAX_DIFF_SOURCE_LINES`)."""
    old, new = original.splitlines(), corrected.splitlines()
    if max(len(old), len(new)) > MAX_DIFF_SOURCE_LINES:
        return None
    return LineDiff(old, new, linediff.opcodes(old, new))


def excerpt(diff: LineDiff, lang_tag: str) -> str | None:
    """The changed lines of the corrected config with one neighbour each side and their parent keys."""
    new = diff.new
    keep: set[int] = set()
    for tag, _i1, _i2, j1, j2 in diff.codes:
        if tag == "equal":
            continue
        changed = range(j1, j2) if j2 > j1 else range(max(0, j1 - 1), min(len(new), j1 + 1))
        for j in changed:
            keep.update(k for k in (j - 1, j, j + 1) if 0 <= k < len(new))
            keep.update(_ancestors(new, j))
            if len(keep) > MAX_EXCERPT_LINES:
                break  # only the first lines are shown; the rest is in the diff and the file
        if len(keep) > MAX_EXCERPT_LINES:
            break
    if not keep:
        return None
    out: list[str] = []
    previous = -1
    for j in sorted(keep):
        if previous >= 0 and j > previous + 1:
            gap_indent = " " * _indent(new[j])
            out.append(gap_indent + ("# …" if lang_tag == "yaml" else "…"))
        out.append(new[j])
        previous = j
        if len(out) >= MAX_EXCERPT_LINES:
            break
    return "\n".join(out)


_HUNK = re.compile(r"@@ -(\d+)((?:,\d+)?) \+(\d+)((?:,\d+)?) @@")


def _shift_hunk(line: str, offset: int) -> str:
    m = _HUNK.fullmatch(line)
    if m is None or not offset:
        return line
    old, new = int(m.group(1)) + offset, int(m.group(3)) + offset
    return f"@@ -{old}{m.group(2)} +{new}{m.group(4)} @@"


def short_diff(diff: LineDiff, offset: int = 0) -> str | None:
    """Changed lines only; hunk headers count from `offset`, so they match the evidence's line numbers."""
    lines = [
        _shift_hunk(ln, offset)
        for ln in linediff.hunks(diff.old, diff.new, diff.codes, context=0, lineterm="")
        if not ln.startswith(("---", "+++"))
    ]
    return "\n".join(lines[:MAX_DIFF_LINES]) or None


def trailing_comment(line: str) -> str | None:
    """The end-of-line YAML comment of `line` (from its `#`), or None: a `#` counts only outside quotes
    and after a space or tab (`a#b` and `"x # y"` hold none). An apostrophe in a plain value (`don't`)
    hides a comment after it: then the reply says nothing rather than something wrong."""
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1] in " \t":
            return line[i:].rstrip()
    return None


# The changed lines whose kept comment the reply offers to drop, at most.
MAX_KEPT_COMMENTS = 3


def _kept_comments(diff: LineDiff) -> tuple[tuple[str, str], ...]:
    """The changed lines that still carry the comment the user wrote on the line they replace, as
    (comment, the line without it): the comment was written for the old value and may now say the
    opposite, so the reply offers the line without it as a choice of its own. The corrected config
    keeps it (a fix changes only what it needs)."""
    old, new = diff.old, diff.new
    kept: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in diff.codes:
        if tag != "replace":
            continue
        before = {c for c in map(trailing_comment, old[i1:i2]) if c}
        for line in new[j1:j2]:
            comment = trailing_comment(line)
            if comment in before and comment is not None:
                kept.append((comment, line[: line.rindex(comment)].strip()))
    return tuple(kept[:MAX_KEPT_COMMENTS])


def _added_lines(before: str, after: str) -> set[str]:
    old = set(before.splitlines())
    return {line for line in after.splitlines() if line not in old}


def _base_text(original: str, previous: str | None, corrected: str) -> str:
    """What step N is compared with: the previous step's config when step N builds on it."""
    if not previous or previous == original:
        return original
    cumulative = _added_lines(original, previous) <= set(corrected.splitlines())
    return previous if cumulative else original


def _config_view(report: Report, shown: LadderStep | None, previous: LadderStep | None) -> ConfigView | None:
    if report.config is None or shown is None or not shown.corrected_config:
        return None
    corrected = shown.corrected_config
    piece = report.config.piece
    original = _base_text(
        report.config.piece.text, previous.corrected_config if previous else None, corrected
    )
    if corrected == original:
        return None
    lang_tag = "json" if report.config.format == "json" else "yaml"
    long = corrected.count("\n") + 1 > LONG_CONFIG_LINES
    suffix = ".json" if lang_tag == "json" else ".yaml"
    name = f"{ATTACH_PREFIX}.step{shown.number}.fixed{suffix}" if long else None
    diff = line_diff(original, corrected)
    return ConfigView(
        lang_tag,
        excerpt(diff, lang_tag) if diff else None,
        # The evidence quotes lines of the user's input, so the hunks count from there too; a config
        # rebuilt from a log's echo has no lines of its own in the input.
        short_diff(diff, 0 if piece.from_log else piece.line_offset) if diff else None,
        name,
        corrected,
        any(marker in corrected for marker in _USER_MARKERS),
        _kept_comments(diff) if diff and lang_tag == "yaml" else (),
    )


def _gc_on_by_default(report: Report) -> bool:
    """The user asks about (or names) gradient checkpointing, and their whole config leaves the key out:
    the trainer's default is on, so they need not add it (and should not change a second thing)."""
    f = report.facts
    whole = f.config_parsed and f.config_shape != ConfigShape.FRAGMENT.value
    return f.says_gc and whole and not f.gc_explicit


def _with_finding(report: Report, params: dict[str, Any]) -> dict[str, Any]:
    """A note about one rule (a direct answer) says what that rule's finding says: its params too."""
    rid = params.get("rule_id")
    finding = next((f for f in report.findings if f.rule_id == rid), None)
    if finding is None or not isinstance(rid, str):
        return params
    return {**usable_params(rid, dict(finding.params)), **params}


# The notes that answer a question about the model and the card (diagnosis.engine._answers).
_ANSWERS = frozenset({"answer_fits", "answer_too_small", "answer_min"})


def _notes(report: Report, question: list[str]) -> list[tuple[str, dict[str, Any]]]:
    notes = [(n.id, _with_finding(report, dict(n.params))) for n in report.notes]
    if _gc_on_by_default(report):
        notes.insert(0, ("gc_default_on", {}))  # it answers the user's own question: first
    if "gpu" in question:
        # The reply already asks which GPU it is; "tell me your GPU" would ask twice.
        notes = [n for n in notes if n[0] != "vram_assumed"]
    return notes[:10]


def _context(report: Report, primary_group: str | None) -> dict[str, Any]:
    ctx: dict[str, Any] = {}
    label = report.facts.family_label
    if label:
        ctx["family_label"] = label
    if report.facts.config_parsed:
        # "GC is off" is context beside another cause; when GC leads, the headline says it already.
        if report.facts.gc_explicit and not report.facts.gradient_checkpointing and primary_group != "gc":
            ctx["gc_disabled"] = True
        if report.facts.batch_size > 1:
            ctx["batch_size"] = report.facts.batch_size
        if report.facts.max_bucket is not None:
            ctx["max_bucket"] = report.facts.max_bucket
    vram = report.facts.vram_gib
    if vram is not None and report.facts.vram_source not in (None, "assumed"):
        ctx["vram"] = f"{vram:g}"
    return ctx


_ASKABLE = ("config", "config_rest", "config_cut", "log", "log_until_stop", "error_lines", "gpu")


def _question(report: Report) -> list[str]:
    incomplete = _with_role(report, Role.QUESTION)
    if incomplete is None:
        return []
    missing = incomplete.params.get("missing")
    if isinstance(missing, str):
        items = [m.strip() for m in missing.split(",")]
    elif isinstance(missing, list | tuple):
        items = [str(m) for m in missing]
    else:
        items = []
    asked = [item for item in _ASKABLE if item in items]
    return asked or ["config", "error_lines"]


def _secret_kinds(secret: Finding | None) -> list[str]:
    if secret is None:
        return []
    kinds = secret.params.get("kinds") or ""
    items = list(kinds) if isinstance(kinds, list | tuple) else str(kinds).split(",")
    return list(dict.fromkeys(str(k).strip() for k in items if str(k).strip()))[:8]


def _verdict(report: Report, primary: str | None) -> Finding | None:
    """The verdict the reply is about: in ladder order, the first that leads always, or leads because
    no cause does."""
    no_cause = primary is None or spec(primary).role == Role.VERDICT
    verdicts = [f for f in report.findings if spec(f.rule_id).role == Role.VERDICT]
    for finding in sorted(verdicts, key=lambda f: spec(f.rule_id).placement.first or 0):
        shape = spec(finding.rule_id).verdict
        if shape is not None and (shape.always or no_cause):
            return finding
    return None


def _kind(report: Report, verdict: Finding | None, has_oom: bool) -> str:
    if verdict is not None:
        return "verdict"
    causes = [f for f in report.findings if not _aside(f.rule_id) and spec(f.rule_id).standalone]
    if _with_role(report, Role.QUESTION) is not None and not causes:
        return "question"
    if not causes and not has_oom:
        return "clean"  # e.g. only a pasted token: nothing about memory to say
    return "diagnosis"


def _unlisted(partial: Finding | None, kind: str, listed: set[str]) -> Finding | None:
    if partial is None or (kind == "diagnosis" and partial.rule_id in listed):
        return None
    return partial


def _estimate(report: Report, kind: str, shown_index: int, oom_kind: str | None) -> EstimateView | None:
    """The memory estimate, worked out only where the reply shows it: memory advice at its first step,
    on a config whose family and card are known (or assumed), not an OOM of system RAM."""
    f = report.facts
    if kind != "diagnosis" or shown_index != 1 or oom_kind in _HOST_KINDS:
        return None
    if not (f.config_parsed and f.family and f.vram_gib):
        return None
    # Imported here: a reply without the estimate does not pay for the memory model's modules.
    from diagnosis.render.estimate_view import estimate_view

    try:
        return estimate_view(report)
    except Exception:
        # A bug in the memory model costs the reply its estimate line, not the reply.
        get_logger(__name__).exception("memory estimate failed; the reply goes without it")
        return None


def build_view(report: Report, lang: str, step: int = 1) -> ReplyView:
    by_id: dict[str, Finding] = {}
    for f in report.findings:
        by_id.setdefault(f.rule_id, f)
    fatal = _fatal(report)
    oom_kind = report.facts.oom_kind or (fatal.kind.value if fatal else None)
    has_oom = report.facts.has_oom or fatal is not None
    phase = report.facts.phase.value
    step_no = report.facts.step
    primary = _primary(report, by_id)
    primary_group = spec(primary).group if primary else None

    # Asking for more input or reporting a non-OOM error is said elsewhere in the reply, not as a fix.
    skipped = {
        f.rule_id for f in report.findings if _aside(f.rule_id) or spec(f.rule_id).role == Role.VERDICT
    }
    steps = [_step_view(s, by_id) for s in report.ladder if s.rule_ids and not set(s.rule_ids) <= skipped]
    in_ladder = {rid for s in report.ladder for rid in s.rule_ids}
    rest = sorted((f for f in report.findings if f.rule_id not in in_ladder | skipped), key=_rank)
    if not steps:
        steps = [_finding_view(i + 1, f) for i, f in enumerate(rest)]
        rest = []
    extra = [_finding_view(len(steps) + i + 1, f) for i, f in enumerate(rest)]
    listed = {rid for s in steps + extra for rid in s.rule_ids}

    total = len(report.ladder)
    shown_index = min(max(step, 1), total) if total else 1
    shown = report.ladder[shown_index - 1] if total else None
    # A later ladder step with nothing to change (e.g. "paste what is missing") has no step view:
    # the reply says the steps end there instead of showing another step under its number.
    first = steps[0] if steps and shown_index == 1 else None
    step_view = next((s for s in steps if s.number == shown_index), first)
    verdict = _verdict(report, primary)
    shape = spec(verdict.rule_id).verdict if verdict is not None else None
    kind = _kind(report, verdict, has_oom)
    if verdict is not None:
        # Beside a verdict, the steps are what still applies to it (the run on another card, VRAM
        # spilling into RAM); a finding that is no diagnosis on its own is said as a notice instead.
        # Numbered from 1: the verdict itself is no step to take.
        standalone = [s for s in steps if spec(s.rule_id).standalone]
        steps = [s._replace(number=number) for number, s in enumerate(standalone, start=1)]
    question = _question(report)
    evidence = _evidence(report, primary)
    # The figures come from the log when it holds the event, else from the user's words.
    log = report.log
    oom = _oom_numbers(fatal, log.piece.source if log is not None and fatal in log.events else "")
    if oom is not None and oom.tried:
        # The OOM line already gives these numbers; the raw message would say them a second time.
        evidence = [e for e in evidence if f"Tried to allocate {oom.tried}" not in e.text]
    if verdict is not None and shape is not None:
        # The error line is quoted in its own block; listing it again as evidence only repeats it.
        quoted = str(verdict.params.get(shape.quote) or "").strip()
        evidence = [e for e in evidence if e.text.removesuffix("…") not in quoted]
    notice = _with_role(report, Role.NOTICE)
    asking = _with_role(report, Role.QUESTION)
    # A finding that is no diagnosis on its own (an update may be the cause) is said as a notice when
    # no checklist lists it: a reply with only a question still says it.
    partial = next((f for f in report.findings if not spec(f.rule_id).standalone), None)
    estimate = _estimate(report, kind, shown_index, oom_kind)
    dropped = 0
    if estimate is not None and estimate.enough_after and estimate.enough_after < len(steps):
        # The list stops at the step after which the job fits with the margin, by the high end of the
        # range; "still out of memory" then means the estimate was wrong, and the new log decides.
        dropped = len(steps) - estimate.enough_after
        steps = [s for s in steps if s.number <= estimate.enough_after]

    notes = _notes(report, question)
    # "What is the lowest VRAM for FLUX?" with nothing else: the answer is the headline, the request
    # for a config and a log comes after it.
    only_asks = kind == "question" and not has_oom
    answer = next((n for n in notes if n[0] in _ANSWERS), None) if only_asks else None
    return ReplyView(
        lang=lang,
        kind=kind,
        has_oom=has_oom,
        host_oom=oom_kind in _HOST_KINDS,
        phase=phase,
        step=step_no,
        where_key=_where_key(phase, step_no) if has_oom else None,
        primary=primary,
        primary_group=primary_group,
        context=_context(report, primary_group),
        oom=oom,
        evidence=evidence,
        steps=steps,
        extra=extra,
        findings=by_id,
        verdict=verdict,
        verdict_shape=shape,
        verdict_params=usable_params(verdict.rule_id, dict(verdict.params)) if verdict is not None else {},
        gc_involved=any(spec(rid).group == "gc" for rid in by_id),
        notes=[n for n in notes if n is not answer],
        answer=answer,
        secret=notice,
        regression=partial
        if partial is not None and (kind != "diagnosis" or partial.rule_id not in listed)
        else None,
        question=question,
        question_rule=asking.rule_id if asking is not None else None,
        question_params=usable_params(asking.rule_id, dict(asking.params)) if asking is not None else {},
        config=_config_view(report, shown, report.ladder[shown_index - 2] if shown_index > 1 else None),
        shown_step=shown_index,
        total_steps=total,
        step_view=step_view,
        has_config=report.config is not None or report.facts.config_parsed,
        secret_kinds=_secret_kinds(notice),
        rule_params={rid: usable_params(rid, dict(f.params)) for rid, f in by_id.items()},
        if_oom=tuple(_finding_view(i, f) for i, f in enumerate(report.if_oom, start=1))
        if kind == "clean"
        else (),
        estimate=estimate,
        steps_dropped=dropped,
    )
