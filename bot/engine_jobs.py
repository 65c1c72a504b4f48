"""The engine work the bot hands out, as plain functions of an engine and picklable arguments.

Each runs wherever `ReplyService.engine_call` puts it: on the event loop (chat-sized inputs), on a
thread with the bot's own engine, or in a worker process with the worker's engine
(`bot.workers`), which is why they take the engine as their first argument instead of being
methods of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.diagnosis_port import DiagnosisEngine, DiscordReplyLike, EnginePort, InputKinds, is_real_case
from diagnosis.models import with_text
from diagnosis.record import replace
from diagnosis.report import Report


@dataclass(frozen=True)
class Diagnosis:
    """What one case asks of the engine."""

    inputs: tuple[str, ...]
    sources: tuple[str, ...]
    locale: str | None
    gpu_vram_gib: float | None
    steps: int
    default_language: str


@dataclass(frozen=True)
class Screened:
    report: Report
    language: str
    reply: DiscordReplyLike
    scrubbed: tuple[tuple[str, str], ...] | None = None  # the inputs as stored, when asked for


def diagnose(engine: EnginePort, case: Diagnosis) -> Report:
    return engine.diagnose(
        case.inputs,
        locale=case.locale,
        gpu_vram_gib=case.gpu_vram_gib,
        sources=case.sources,
        steps=case.steps,
        default_language=case.default_language,
    )


def diagnose_and_render(
    engine: EnginePort,
    case: Diagnosis,
    *,
    user_locale: str | None,
    lang: str | None,
    step: int,
    screen: bool,
    scrub: bool = False,
) -> Screened | None:
    """The report and its reply in one trip; with `screen`, None for inputs that hold no case (chat),
    which the engine rules out before diagnosing them when it can. With `scrub`, the reply comes with
    the scrubbed inputs that the store keeps for it (a big input then crosses to a worker once)."""
    if screen and not engine.may_be_case(case.inputs):
        return None
    report = diagnose(engine, case)
    if lang is None:
        # The report's language is the post's own, or the server's default when it has no words:
        # it comes before the default, which would otherwise answer an English post in Japanese.
        lang = engine.choose_language(case.locale, user_locale, None, report.language)
    if screen and not is_real_case(report):
        return None
    reply = engine.render(report, lang=lang, step=step)
    scrubbed = scrub_all(engine, list(zip(case.sources, case.inputs, strict=True))) if scrub else None
    return Screened(_travelling(report), lang, reply, scrubbed)


def _travelling(report: Report) -> Report:
    """The report without the log's text, which nothing reads once the reply is rendered (the bot
    looks at which pieces there are, the findings and the ladder): from a worker, a big log would
    otherwise cross back to the bot's process and be held there until the reply is stored."""
    if report.log is None:
        return report
    return replace(report, log=replace(report.log, piece=with_text(report.log.piece, "")))


def scrub_all(engine: EnginePort, inputs: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((source, engine.scrub(text, source)) for source, text in inputs)


def estimate_text(engine: EnginePort, inputs: Sequence[str], lang: str, gpu_vram_gib: float | None) -> str:
    return engine.estimate_text(inputs, lang=lang, gpu_vram_gib=gpu_vram_gib)


def kinds(engine: EnginePort, text: str) -> InputKinds:
    return engine.kinds(text)


def kinds_of_each(engine: EnginePort, texts: Sequence[str]) -> list[InputKinds]:
    return [engine.kinds(text) for text in texts]


_WARM_UP = (
    "job: extension\nconfig:\n  process:\n    - type: sd_trainer\n      train:\n"
    "        batch_size: 4\n        gradient_checkpointing: false\n",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 23.55 GiB of which 201.31 MiB is free.\n",
)


def warm(engine: EnginePort) -> None:
    """One small case through every stage, so a new worker's first real job pays no first-use
    costs (patterns compiled, data files read, templates loaded)."""
    case = Diagnosis(_WARM_UP, ("config.yaml", "log.txt"), None, None, 1, "en")
    for lang in ("en", "ja"):
        diagnose_and_render(engine, case, user_locale=None, lang=lang, step=1, screen=False)
    engine.may_be_case(["thanks, it works now"])  # the screen's word lists, read by chat alone
    scrub_all(engine, [("message", _WARM_UP[1])])


def real_engine() -> DiagnosisEngine:
    return DiagnosisEngine()
