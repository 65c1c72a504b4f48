"""`yaml_invalid`: The config does not parse."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Evidence, Finding, Severity
from diagnosis.rules.base import Placement, Role, RuleSpec, Verdict


def check_yaml_invalid(f: Facts) -> Finding | None:
    error = f.config_error
    if error is None:
        return None
    return SPEC.finding(
        evidence=[
            Evidence(source=f.config_source or "", line=f.config_error_line, text=error.line_text.strip())
        ],
        params={
            "line": error.line,
            "column": error.column,
            "problem": error.problem,
            "line_text": error.line_text,
            "tab": error.tab_indent,
        },
    )


SPEC = RuleSpec(
    id="yaml_invalid",
    order=240,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("config_error",),
    rank=0,
    check=check_yaml_invalid,
    params=frozenset({"line", "column", "problem", "line_text", "tab"}),
    oom_checklist=False,
    role=Role.VERDICT,
    # The line and column help more than the trainer's echo of the error.
    placement=Placement(first=0),
    verdict=Verdict(
        quote="line_text", quote_lang="yaml", before=("problem",), evidence=False, context=True, always=False
    ),
)
