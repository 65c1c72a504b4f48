"""The pipeline: intake → parse → facts → rules → report (placeholder until the rule engine lands)."""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.facts_model import Facts
from diagnosis.models import Report


def diagnose(
    inputs: Sequence[str | bytes],
    *,
    locale: str | None = None,
    gpu_vram_gib: float | None = None,
    sources: Sequence[str] | None = None,
) -> Report:
    facts = Facts()
    if gpu_vram_gib is not None:
        facts.vram_gib = gpu_vram_gib
        facts.vram_source = "user"
    return Report(findings=[], ladder=[], facts=facts, language=locale or "en", not_oom=False)
