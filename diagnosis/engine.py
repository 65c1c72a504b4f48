"""The pipeline: intake → parse → facts → rules → ranked findings → fix ladder → Report.

`diagnose()` never raises on user input: every stage is tolerant on its own, a failing rule is
reported as a note while the others still run, and a last guard turns anything unexpected into a
report that asks for the config and the log, with a note.
"""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.config.parse import parse_config
from diagnosis.facts import (
    build_facts,
    choose_config,
    choose_log,
    read_config_facts,
    usable_vram,
)
from diagnosis.facts_model import Facts
from diagnosis.facts_prose import read_prose
from diagnosis.intake import read_case
from diagnosis.ladder import build_ladder, drop_ruled_out, rank_findings
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.logger import get_logger
from diagnosis.logreader import read_log
from diagnosis.models import ConfigDoc, Finding, Intake, LadderStep, LogFacts, Note, Phase, PieceKind
from diagnosis.record import replace
from diagnosis.report import Report
from diagnosis.rules import Role, catalogue, ends_checklist, role, run_rules, spec, spec_of, with_role
from diagnosis.rules.base import sizes_by_estimate
from locales import DEFAULT_LANGUAGE, known_language

_log = get_logger(__name__)

_CONFIG_KINDS = frozenset({PieceKind.CONFIG_YAML, PieceKind.CONFIG_JSON})


def _language(locale: str | None, intake: Intake | None, default: str = DEFAULT_LANGUAGE) -> str:
    for choice in (locale, intake.language_hint if intake else None, default):
        known = known_language(choice)
        if known:
            return known
    return DEFAULT_LANGUAGE


def _parse_pieces(intake: Intake, limits: Limits) -> tuple[list[ConfigDoc], list[LogFacts]]:
    configs = [parse_config(p, limits) for p in intake.pieces if p.kind in _CONFIG_KINDS]
    logs = [read_log(p, limits) for p in intake.pieces if p.kind == PieceKind.LOG]
    return configs, logs


def _config_from_log(logs: Sequence[LogFacts], limits: Limits) -> ConfigDoc | None:
    """The process JSON a trainer echoes into its log, when the user pasted no config."""
    for log in reversed(logs):
        if log.echoed_config is not None:
            doc = parse_config(log.echoed_config, limits)
            if doc.ok:
                return doc
    return None


def _gives_memory_advice(findings: Sequence[Finding]) -> bool:
    """Does the reply give memory advice? Only then is an assumed card size worth mentioning (not
    beside a YAML error or an error that is not an out-of-memory)."""
    for finding in findings:
        spec = spec_of(finding.rule_id)
        if spec is not None and spec.oom_checklist:
            return True
    return False


def _answers(facts: Facts) -> list[Note]:
    """One-line answers to the user's direct questions, where the facts can answer them: can this
    model train on this card, is the card failing."""
    answers: list[Note] = []
    family, vram = facts.family_info, facts.vram_gib
    known_card = vram is not None and facts.vram_source not in (None, "assumed")
    if "words.asks_fit" in facts.said and family is not None and family.min_vram:
        params = {"family_label": facts.family_label or family.label, "min": f"{family.min_vram:g}"}
        if known_card and vram:
            params["vram"] = f"{vram:g}"
            answers.append(Note("answer_fits" if vram >= family.min_vram else "answer_too_small", params))
        else:  # "what is the lowest VRAM for FLUX?": what the model needs, for any card
            answers.append(Note("answer_min", params))
    if "words.asks_card_dying" in facts.said:
        answers.append(Note("answer_card_ok"))
    return answers


def _asked(facts: Facts, ranked: Sequence[Finding], ladder: Sequence[LadderStep]) -> list[Note]:
    """Direct answers to "do I need to <this rule's fix>?" (RuleSpec.asked_by): the step that makes the
    change when the ladder has one, else none (the reply then says no, and why)."""
    answers: list[Note] = []
    found = {f.rule_id for f in ranked}
    for rule in catalogue():
        if rule.asked_by is None or f"{rule.id}.{rule.asked_by}" not in facts.said:
            continue
        step = next((s.number for s in ladder if rule.id in s.rule_ids), None) if rule.id in found else None
        answers.append(Note("answer_rule", {"rule_id": rule.id, "step": step}))
    return answers


def _notes(
    intake: Intake,
    configs: Sequence[ConfigDoc],
    logs: Sequence[LogFacts],
    facts: Facts,
    findings: Sequence[Finding],
    limits: Limits,
) -> list[Note]:
    notes: list[Note] = _answers(facts)  # they answer the user's own question: first
    if intake.truncated:
        notes.append(Note("input_truncated", {"limit_mib": round(limits.max_input_bytes / (1024 * 1024), 2)}))
    hit: list[str] = list(intake.limits_hit)
    for doc in configs:
        hit += doc.limits_hit
    for log in logs:
        hit += log.limits_hit
    for limit in dict.fromkeys(hit):
        notes.append(Note("limit_hit", {"limit": limit}))
    if facts.config_from_log:
        notes.append(Note("config_from_log"))
    assumed = facts.vram_source == "assumed" and (facts.has_config or facts.has_oom)
    if assumed and _gives_memory_advice(findings):
        notes.append(Note("vram_assumed", {"gib": int(facts.vram_gib or 24)}))
    return notes


def _if_oom(facts: Facts, ranked: Sequence[Finding]) -> list[Finding]:
    """What the ladder would still change after an out-of-memory in a training step, for a config
    checked alone that shows no risk of its own (Report.if_oom). Advice alone (dropping a bucket the
    card usually holds) does not count: a shipped example stays clean."""
    quiet = not (facts.has_log or facts.has_oom)  # has_oom covers a fatal error and either OOM (build_facts)
    if not (facts.config_parsed and quiet) or any(role(f.rule_id).on_ladder for f in ranked):
        return []
    oom = replace(facts, has_oom=True, gpu_oom=True, phase=Phase.TRAINING_STEP)
    found = [f for f in run_rules(oom)[0] if role(f.rule_id) == Role.CAUSE]
    steps = rank_findings(drop_ruled_out(found, oom), oom)
    return steps if any(f.edits for f in steps) else []


def _diagnose(
    inputs: Sequence[str | bytes],
    locale: str | None,
    gpu_vram_gib: float | None,
    sources: Sequence[str] | None,
    limits: Limits,
    steps: int | None,
    default_language: str = "en",
) -> Report:
    intake = read_case(inputs, sources, limits)
    configs, logs = _parse_pieces(intake, limits)
    if not configs:
        echoed = _config_from_log(logs, limits)
        if echoed is not None:
            configs = [echoed]
    # The user's words are read once: the ladder re-checks every step against the same account.
    hints = read_prose(intake.prose)
    doc = choose_config(configs)
    # The config as pasted is read once, for the diagnosis and for the ladder's first re-check.
    read = read_config_facts(doc) if doc is not None else None
    facts = build_facts(intake, configs, logs, gpu_vram_gib, hints=hints, config_read=read)
    findings, failed = run_rules(facts)
    ranked = rank_findings(drop_ruled_out(findings, facts), facts)

    def recheck(edited: ConfigDoc) -> list[Finding]:
        # The log and the user's account describe the config before the fix: re-check the config
        # alone, on the same card. The evidence that the pasted config's reading carries changes no
        # rule's verdict (tests/test_speed_lead_facts.py).
        config_only = build_facts(
            intake,
            [edited],
            [],
            facts.vram_gib,
            situational=False,
            hints=hints,
            with_evidence=False,
            config_read=read if edited is doc else None,
        )
        return run_rules(config_only)[0]

    def resize(finding: Finding, edited: ConfigDoc) -> Finding | None:
        # Sized by the memory estimate, which needs the model and the card; the config as the earlier
        # steps leave it is read only for a finding that the estimate can size.
        hook = spec(finding.rule_id).resize
        if hook is None or not sizes_by_estimate(facts):
            return None
        return hook(facts, read_config_facts(edited))

    ladder = build_ladder(ranked, doc, recheck, limits, steps, resize)
    notes = _asked(facts, ranked, ladder) + _notes(intake, configs, logs, facts, ranked, limits)
    notes += [Note("rule_failed", {"rule_id": rule_id}) for rule_id in failed]
    return Report(
        findings=ranked,
        ladder=ladder,
        facts=facts,
        language=_language(locale, intake, default_language),
        not_oom=ends_checklist(ranked),
        config=doc,
        log=choose_log(logs),
        notes=notes,
        # The facts counted the same secrets (build_facts): not screened for a second time.
        secrets_found=facts.secret_count,
        if_oom=_if_oom(facts, ranked),
    )


_SECRET_FACTS = frozenset({"secret_kinds", "secret_count"})


def with_secrets(report: Report, kinds: Sequence[str]) -> Report:
    """The report with more secrets counted: those the output gate replaced in what was about to
    leave, which the input scrubber had not seen (a token split by an invisible character, a key of a
    service it does not know). The rules that read the count run again; nothing else changes."""
    if not kinds:
        return report
    facts = report.facts.copy()
    facts.secret_kinds = sorted({*facts.secret_kinds, *kinds})
    facts.secret_count += len(kinds)
    # Only the rules that read the count run again: the others would give the findings the report
    # already holds. A verdict that ends the OOM checklist still leaves out the checklist's rules.
    readers = [s for s in catalogue() if _SECRET_FACTS & set(s.reads)]
    kept = [f for f in report.findings if f.rule_id not in {s.id for s in readers}]
    redone = [
        found
        for s in readers
        if not (report.not_oom and s.oom_checklist) and (found := s.check(facts)) is not None
    ]
    return replace(
        report,
        facts=facts,
        findings=rank_findings(kept + redone, facts),
        secrets_found=facts.secret_count,
    )


def _fallback(locale: str | None, gpu_vram_gib: float | None, default_language: str = "en") -> Report:
    facts = Facts()
    stated = usable_vram(gpu_vram_gib)
    if stated is not None:
        facts.vram_gib, facts.vram_source = stated, "user"
    # Whatever failed, the user is asked for the config and the log rather than left without a reply.
    finding = spec(with_role(Role.QUESTION)[0]).finding(params={"missing": ["config", "log"]})
    return Report(
        findings=[finding],
        ladder=[],
        facts=facts,
        language=_language(locale, None, default_language),
        not_oom=False,
        notes=[Note("rule_failed", {"rule_id": "engine"})],
    )


def diagnose(
    inputs: Sequence[str | bytes],
    *,
    locale: str | None = None,
    gpu_vram_gib: float | None = None,
    sources: Sequence[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    steps: int | None = 1,
    default_language: str = "en",
) -> Report:
    """Texts in (a message, attachments, a thread's recent messages), a Report out; never raises.

    The reply's language: `locale` when given, else the language of the user's own words, else
    `default_language` (a bare config or log has no words to tell).

    `steps`: how many ladder steps get a written, verified corrected config (None: every step). A
    reply shows step 1 (the default); the bot's "next step" asks for N, the JSON output for all. The
    ladder itself (which steps, in which order) is the same whatever the number.
    """
    try:
        return _diagnose(inputs, locale, gpu_vram_gib, sources, limits, steps, default_language)
    except Exception:
        _log.exception("diagnosis failed; answering with a request for the config and the log")
        return _fallback(locale, gpu_vram_gib, default_language)
