"""A stand-in for the engine in the bot's unit tests (the adapter is tested, not the diagnosis).

Markers in the text decide the report: "CUDA out of memory" makes a log with one OOM event,
"train:" a parsed config; "steps=N" sets the ladder length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.engine import InputKinds, kinds_of_report
from diagnosis.facts_model import Facts
from diagnosis.models import (
    Applicability,
    ConfigDoc,
    ConfigShape,
    Finding,
    LadderStep,
    LogFacts,
    LogLine,
    OomEvent,
    OomKind,
    Piece,
    PieceKind,
    Report,
    Severity,
)


@dataclass
class FakeReplyFile:
    name: str
    data: bytes


@dataclass
class FakeReply:
    content: str
    embeds: list[dict[str, Any]] = field(default_factory=list)
    files: list[FakeReplyFile] = field(default_factory=list)


class FakeEngine:
    rule_ids = ("gc_off", "batch_too_large", "not_oom")

    def __init__(self) -> None:
        self.diagnosed: list[list[str]] = []
        self.steps_asked: list[int] = []  # how many ladder steps each diagnosis was asked to write

    def diagnose(
        self,
        inputs: Sequence[str],
        *,
        locale: str | None,
        gpu_vram_gib: float | None,
        sources: Sequence[str],
        steps: int = 1,
    ) -> Report:
        self.diagnosed.append(list(inputs))
        self.steps_asked.append(steps)
        text = "\n".join(inputs)
        config = log = None
        findings: list[Finding] = []
        if "train:" in text:
            piece = Piece(PieceKind.CONFIG_YAML, text, sources[0] if sources else "x", 0, 0)
            config = ConfigDoc(piece, "yaml", ConfigShape.FULL_JOB, {"train": {}}, (), {})
            findings.append(Finding("gc_off", Severity.ERROR, Applicability.MEMORY_ONLY))
        if "CUDA out of memory" in text:
            piece = Piece(PieceKind.LOG, text, "log", 0, 0)
            log = LogFacts(piece, events=[OomEvent(OomKind.CUDA_ALLOC, LogLine(1, "oom"))])
            findings.append(Finding("batch_too_large", Severity.ERROR, Applicability.MEMORY_ONLY))
        count = re.search(r"steps=(\d)", text)
        ladder = [LadderStep(n, ["gc_off"], []) for n in range(1, int(count.group(1)) + 1)] if count else []
        language = locale or ("ja" if re.search(r"[ぁ-ん]", text) else "en")
        return Report(findings, ladder, Facts(), language, False, config=config, log=log)

    def render(self, report: Report, *, lang: str, step: int) -> FakeReply:
        ids = ",".join(f.rule_id for f in report.findings) or "none"
        return FakeReply(
            content=f"[{lang}] step {step}: {ids}",
            embeds=[{"title": "oomcheck", "description": "d"}],
            files=[FakeReplyFile("fixed.yaml", b"train: {}\n")] if report.config else [],
        )

    def message(self, key: str, lang: str, **params: object) -> str:
        args = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
        return f"{lang}:{key}" + (f"({args})" if args else "")

    def choose_language(
        self, explicit: str | None, user_locale: str | None, guild_default: str | None, text_hint: str | None
    ) -> str:
        for value in (explicit, user_locale, guild_default, text_hint):
            if value and value[:2] in ("ja", "en"):
                return value[:2]
        return "en"

    def scrub(self, text: str, source: str) -> str:
        return re.sub(r"hf_[A-Za-z0-9]{10,}", "hf_REDACTED", text)

    def kinds(self, text: str) -> InputKinds:
        return kinds_of_report(self.diagnose([text], locale=None, gpu_vram_gib=None, sources=["m"]))

    def rules_text(self, lang: str) -> str:
        return "\n".join(self.rule_ids)

    def explain(self, rule_id: str, lang: str) -> str | None:
        return f"{rule_id} explained" if rule_id in self.rule_ids else None
