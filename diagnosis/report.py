"""The engine's answer for one case. It holds the facts (diagnosis.facts_model), which are made from
the types in diagnosis.models, so it lives in a module of its own: no import cycle between the two."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import ConfigDoc, Finding, LadderStep, LogFacts, Note
from diagnosis.record import Record, field


class Report(Record):
    """The engine's answer for one case: findings, the fix ladder, facts, notes."""

    findings: list[Finding]
    ladder: list[LadderStep]
    facts: Facts
    language: str  # "ja" or "en": what the reply should be written in
    not_oom: bool
    config: ConfigDoc | None = None
    log: LogFacts | None = None
    notes: list[Note] = field(default_factory=list)
    secrets_found: int = 0
    # A config checked alone that shows no risk, but whose ladder after an out-of-memory in a training
    # step would still change it (a config that passes only because step 1 of an earlier reply was
    # applied): those findings, in ladder order. Empty otherwise.
    if_oom: list[Finding] = field(default_factory=list)

    @property
    def corrected_config(self) -> str | None:
        return self.ladder[0].corrected_config if self.ladder else None

    @property
    def diff(self) -> str | None:
        return self.ladder[0].diff if self.ladder else None
