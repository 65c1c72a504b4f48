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
from bot.store import pack_inputs
from bot.textfile import RawText, as_text, texts_hash
from diagnosis.models import with_text
from diagnosis.record import replace
from diagnosis.report import Report


@dataclass(frozen=True)
class Diagnosis:
    """What one case asks of the engine."""

    inputs: tuple[str | RawText, ...]  # a big file's bytes are decoded here, where the job runs
    sources: tuple[str, ...]
    locale: str | None
    gpu_vram_gib: float | None
    steps: int
    default_language: str


@dataclass(frozen=True)
class StoredInputs:
    """What the store keeps of a case's inputs, made where the inputs are: a big input never
    travels back to the bot's process, only its compressed tail (a few dozen KB) does."""

    packed: bytes  # scrubbed, each input's tail, compressed (`bot.store.pack_inputs`)
    digest: str  # `texts_hash` of the inputs as read (an edit is compared with it)


@dataclass(frozen=True)
class Screened:
    report: Report
    language: str
    reply: DiscordReplyLike
    stored: StoredInputs | None = None  # the inputs as stored, when asked for


def diagnose(engine: EnginePort, case: Diagnosis, texts: Sequence[str] | None = None) -> Report:
    """`texts`: the case's inputs already decoded, if they are."""
    return engine.diagnose(
        tuple(as_text(content) for content in case.inputs) if texts is None else texts,
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
    which the engine rules out before diagnosing them when it can. With `scrub`, a rendered reply
    comes with what the store keeps of its inputs (`StoredInputs`): a big input crosses to a worker
    once, and only one way."""
    texts = tuple(as_text(content) for content in case.inputs)
    if screen and not engine.may_be_case(texts):
        return None
    report = diagnose(engine, case, texts)
    if lang is None:
        # The report's language is the post's own, or the server's default when it has no words:
        # it comes before the default, which would otherwise answer an English post in Japanese.
        lang = engine.choose_language(case.locale, user_locale, None, report.language)
    if screen and not is_real_case(report):
        return None
    reply = engine.render(report, lang=lang, step=step)
    stored = stored_inputs(engine, case.sources, texts) if scrub else None
    return Screened(_travelling(report), lang, reply, stored)


def _travelling(report: Report) -> Report:
    """The report without the log's text, which nothing reads once the reply is rendered (the bot
    looks at which pieces there are, the findings and the ladder): from a worker, a big log would
    otherwise cross back to the bot's process and be held there until the reply is stored."""
    if report.log is None:
        return report
    return replace(report, log=replace(report.log, piece=with_text(report.log.piece, "")))


def scrub_all(engine: EnginePort, inputs: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((source, engine.scrub(text, source)) for source, text in inputs)


def stored_inputs(
    engine: EnginePort, sources: Sequence[str], contents: Sequence[str | RawText]
) -> StoredInputs:
    texts = [as_text(content) for content in contents]
    pairs = list(zip(sources, texts, strict=True))
    return StoredInputs(pack_inputs(scrub_all(engine, pairs)), texts_hash(pairs))


def inputs_digest(engine: EnginePort, sources: Sequence[str], contents: Sequence[str | RawText]) -> str:
    """`texts_hash` of the inputs, decoded where the job runs (`StoredInputs.digest`)."""
    return texts_hash(zip(sources, (as_text(content) for content in contents), strict=True))


def estimate_text(
    engine: EnginePort, inputs: Sequence[str | RawText], lang: str, gpu_vram_gib: float | None
) -> str:
    return engine.estimate_text([as_text(i) for i in inputs], lang=lang, gpu_vram_gib=gpu_vram_gib)


def kinds(engine: EnginePort, text: str) -> InputKinds:
    return engine.kinds(text)


def kinds_of_each(engine: EnginePort, messages: Sequence[Sequence[str | RawText]]) -> list[InputKinds]:
    """What each message holds, from its inputs read as one text."""
    return [engine.kinds("\n".join(as_text(content) for content in inputs)) for inputs in messages]


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
