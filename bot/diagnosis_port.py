"""The engine as the bot sees it: one small port, so the adapter holds no diagnosis logic.

`EnginePort` is what the Discord code calls; `DiagnosisEngine` forwards every call to `diagnosis`.
Diagnosis is CPU-bound (a megabyte log is parsed line by line), so the bot runs the engine on big
inputs in worker processes (`bot.workers`, through `ReplyService.run_engine`; a thread pool only where
the engine cannot be rebuilt in another process): the event loop keeps serving the gateway and other
members meanwhile, and a slow input is stopped at the time limit. A chat-sized input
(`INLINE_INPUT_CHARS`) is cheaper to diagnose than to hand to a worker (`ReplyService.engine_call`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from diagnosis import diagnose, render
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS
from diagnosis.screen import is_case, may_be_case
from diagnosis.scrub import scrub
from locales import DEFAULT_LANGUAGE

# Inputs up to this many characters are diagnosed, rendered and scrubbed on the event loop. That
# covers any chat message (2000 characters, 4000 with Nitro) and small files. Diagnosing and rendering
# a paste of that size costs a fraction of a hop to a worker process and back (`make bench` measures
# both); the limits of the engine bound the worst inputs (tests/hostile: alias bombs and the like) so
# that they cannot hold the loop.
INLINE_INPUT_CHARS = 4096


class ReplyFileLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def data(self) -> bytes: ...


class DiscordReplyLike(Protocol):
    @property
    def content(self) -> str: ...
    @property
    def embeds(self) -> Sequence[dict[str, Any]]: ...
    @property
    def files(self) -> Sequence[ReplyFileLike]: ...
    @property
    def whole_config(self) -> ReplyFileLike | None: ...


@dataclass(frozen=True)
class InputKinds:
    """What one message holds, as the engine reads it."""

    config: bool
    log: bool


class EnginePort(Protocol):
    rule_ids: tuple[str, ...]

    def diagnose(
        self,
        inputs: Sequence[str],
        *,
        locale: str | None,
        gpu_vram_gib: float | None,
        sources: Sequence[str],
        steps: int = 1,
        default_language: str = DEFAULT_LANGUAGE,
    ) -> Report: ...

    def render(self, report: Report, *, lang: str, step: int) -> DiscordReplyLike: ...

    def message(self, key: str, lang: str, **params: object) -> str: ...

    def choose_language(
        self, explicit: str | None, user_locale: str | None, guild_default: str | None, text_hint: str | None
    ) -> str: ...

    def scrub(self, text: str, source: str) -> str: ...

    def may_be_case(self, inputs: Sequence[str]) -> bool: ...

    def kinds(self, text: str) -> InputKinds: ...

    def rules_text(self, lang: str) -> str: ...

    def explain(self, rule_id: str, lang: str) -> str | None: ...

    def estimate_text(self, inputs: Sequence[str], *, lang: str, gpu_vram_gib: float | None) -> str: ...


def kinds_of_report(report: Report) -> InputKinds:
    config = report.config is not None and not report.config.piece.from_log
    return InputKinds(config=config, log=report.log is not None)


# The engine decides what is a case (`diagnosis.screen`); the bot's name for it.
is_real_case = is_case


class DiagnosisEngine:
    """The real engine (`diagnosis` + `diagnosis.render`)."""

    rule_ids = RULE_IDS

    def diagnose(
        self,
        inputs: Sequence[str],
        *,
        locale: str | None,
        gpu_vram_gib: float | None,
        sources: Sequence[str],
        steps: int = 1,
        default_language: str = DEFAULT_LANGUAGE,
    ) -> Report:
        # `steps`: the ladder steps whose corrected config the reply may show (step N builds on N-1).
        # `default_language`: the reply's language when the post has no words of its own to tell.
        return diagnose(
            list(inputs),
            locale=locale,
            gpu_vram_gib=gpu_vram_gib,
            sources=list(sources),
            steps=steps,
            default_language=default_language,
        )

    def render(self, report: Report, *, lang: str, step: int) -> DiscordReplyLike:
        return render.render_discord(report, lang=lang, step=step)

    def message(self, key: str, lang: str, **params: object) -> str:
        return render.message(key, lang, **params)

    def choose_language(
        self, explicit: str | None, user_locale: str | None, guild_default: str | None, text_hint: str | None
    ) -> str:
        return render.choose_language(explicit, user_locale, guild_default, text_hint)

    def scrub(self, text: str, source: str) -> str:
        return scrub(text, source)[0]

    def may_be_case(self, inputs: Sequence[str]) -> bool:
        """False only for inputs that `diagnose` would find no case in (auto mode's chat), told for a
        fraction of a diagnosis' cost."""
        return may_be_case(inputs)

    def kinds(self, text: str) -> InputKinds:
        # Only what the text holds matters here: no step needs its corrected config written.
        report = self.diagnose([text], locale=None, gpu_vram_gib=None, sources=["message"], steps=0)
        return kinds_of_report(report)

    def rules_text(self, lang: str) -> str:
        return render.render_rules(lang)

    def explain(self, rule_id: str, lang: str) -> str | None:
        return render.render_explain(rule_id, lang)

    def estimate_text(self, inputs: Sequence[str], *, lang: str, gpu_vram_gib: float | None) -> str:
        """/oom-estimate's answer: the estimate's table in a code block, or why there is none."""
        from diagnosis.estimate.reply import reply_estimate
        from diagnosis.render.estimate_table import render_estimate_text, render_no_estimate

        report = self.diagnose(inputs, locale=lang, gpu_vram_gib=gpu_vram_gib, sources=["text"])
        estimate = reply_estimate(report)
        if estimate is None:
            return render_no_estimate(report, lang)
        return "```\n" + render_estimate_text(estimate, lang) + "```"
