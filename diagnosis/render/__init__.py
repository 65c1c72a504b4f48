"""Rendering of reports (placeholder until the locales and templates land)."""

from __future__ import annotations

from diagnosis.models import Report
from diagnosis.rules import RULE_IDS


def render_cli(report: Report, *, fmt: str = "text") -> str:
    lines = [f"- {f.rule_id} ({f.severity.value})" for f in report.findings]
    return "\n".join(lines) + "\n"


def render_rules(lang: str) -> str:
    return "\n".join(RULE_IDS) + "\n"


def render_explain(rule_id: str, lang: str) -> str | None:
    return rule_id + "\n" if rule_id in RULE_IDS else None


def cli_message(key: str, lang: str, **params: object) -> str:
    return key + " " + " ".join(f"{k}={v}" for k, v in params.items())
