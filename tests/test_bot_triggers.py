from __future__ import annotations

from bot.diagnosis_port import is_real_case, kinds_of_report
from bot.triggers import (
    AutoScope,
    auto_enabled,
    complements,
    in_auto_scope,
    may_be_forum_starter,
    mentions_bot,
    within_edit_window,
)
from diagnosis.facts_model import Facts
from diagnosis.models import (
    Applicability,
    ConfigDoc,
    ConfigError,
    ConfigShape,
    Finding,
    LogFacts,
    LogLine,
    OomEvent,
    OomKind,
    Piece,
    PieceKind,
    Severity,
)
from diagnosis.report import Report

SCOPE = AutoScope(help_channel_ids={10, 11}, forum_channel_ids={20})


def test_auto_scope() -> None:
    assert in_auto_scope(10, None, SCOPE)
    assert in_auto_scope(500, 20, SCOPE)  # a forum post
    assert in_auto_scope(501, 11, SCOPE)  # a thread under a help channel
    assert not in_auto_scope(20, None, SCOPE)  # the forum itself never has messages
    assert not in_auto_scope(30, None, SCOPE)
    assert not in_auto_scope(502, 30, SCOPE)


def test_guild_choice_overrides_the_deployment_default() -> None:
    assert auto_enabled(True, None) and not auto_enabled(False, None)
    assert not auto_enabled(True, False) and auto_enabled(False, True)


def test_only_written_mentions_count() -> None:
    assert mentions_bot([1, 42], 42)
    assert not mentions_bot([1], 42)
    assert not mentions_bot([42], None)
    assert mentions_bot([], 42, [77], 77)  # the bot's own role, picked from the autocomplete
    assert not mentions_bot([], 42, [78], 77)
    assert not mentions_bot([], 42, [77], None)


def test_forum_starter_has_the_thread_id() -> None:
    assert may_be_forum_starter(5, 5) and not may_be_forum_starter(5, 6)


def test_edit_window() -> None:
    assert within_edit_window(1000.0, 1000.0 + 15 * 60, 15)
    assert not within_edit_window(1000.0, 1000.0 + 15 * 60 + 1, 15)
    assert not within_edit_window(1000.0, 999.0, 15)


def _report(
    *, config: ConfigDoc | None = None, log: LogFacts | None = None, rules: tuple[str, ...] = ()
) -> Report:
    findings = [Finding(r, Severity.WARNING, Applicability.ADVICE) for r in rules]
    return Report(findings, [], Facts(), "en", False, config=config, log=log)


def _config(*, ok: bool = True, from_log: bool = False) -> ConfigDoc:
    piece = Piece(PieceKind.CONFIG_YAML, "train: {}", "message", 0, 0, from_log=from_log)
    error = None if ok else ConfigError(1, 1, "bad", "x")
    return ConfigDoc(piece, "yaml", ConfigShape.FULL_JOB, {"train": {}} if ok else None, (), {}, error=error)


def _log(*, oom: bool) -> LogFacts:
    piece = Piece(PieceKind.LOG, "log", "message", 0, 0)
    events = [OomEvent(OomKind.CUDA_ALLOC, LogLine(1, "CUDA out of memory"))] if oom else []
    return LogFacts(piece, events=events)


def test_chat_is_not_a_case() -> None:
    assert not is_real_case(_report())
    assert not is_real_case(_report(rules=("input_incomplete",)))


def test_configs_and_oom_logs_are_cases() -> None:
    assert is_real_case(_report(config=_config()))
    assert is_real_case(_report(config=_config(ok=False)))  # a broken YAML deserves the line and column
    assert is_real_case(_report(log=_log(oom=True)))
    assert not is_real_case(_report(log=_log(oom=False), rules=("input_incomplete",)))
    assert is_real_case(_report(log=_log(oom=False), rules=("not_oom",)))


def test_kinds_ignore_a_config_echoed_in_a_log() -> None:
    kinds = kinds_of_report(_report(config=_config(from_log=True), log=_log(oom=True)))
    assert (kinds.config, kinds.log) == (False, True)
    kinds = kinds_of_report(_report(config=_config()))
    assert (kinds.config, kinds.log) == (True, False)


def test_complements() -> None:
    from bot.diagnosis_port import InputKinds

    config, log, both, none = (
        InputKinds(True, False),
        InputKinds(False, True),
        InputKinds(True, True),
        InputKinds(False, False),
    )
    assert complements(config, log) and complements(log, config)
    assert not complements(config, config) and not complements(log, log)
    assert not complements(both, log) and not complements(config, both) and not complements(none, log)


def test_the_real_engine_tells_configs_logs_and_chat_apart() -> None:
    from bot.diagnosis_port import DiagnosisEngine, InputKinds
    from tests.conftest import EXAMPLES

    engine = DiagnosisEngine()
    config = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    log = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
    cases = {
        config: InputKinds(True, False),
        log: InputKinds(False, True),
        config + "\n" + log: InputKinds(True, True),
        "thanks, it trains fine now": InputKinds(False, False),
    }
    for text, kinds in cases.items():
        assert engine.kinds(text) == kinds
        # The kinds come from a diagnosis that writes no corrected config; a full one agrees.
        full = engine.diagnose([text], locale=None, gpu_vram_gib=None, sources=["message"])
        assert kinds_of_report(full) == kinds
