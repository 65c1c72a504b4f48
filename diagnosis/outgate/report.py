"""A report's outgoing form, gated, with the reply's count of secrets agreeing with what was replaced."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from diagnosis.engine import with_secrets
from diagnosis.outgate.gate import Found, gate_all
from diagnosis.report import Report

T = TypeVar("T")


def gated(report: Report, make: Callable[[Report], T]) -> T:
    """`make(report)` (a reply, a JSON document, a text) through the gate. When the gate replaced a
    credential that intake had not counted, the output is made again from the report with it counted,
    so that "I found 2 (…)" names what was really left out, and gated again."""
    found = Found()
    out = gate_all(make(report), found)
    extra = found.credentials()
    if not extra:
        return out
    return gate_all(make(with_secrets(report, extra)))
