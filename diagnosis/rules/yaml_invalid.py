"""`yaml_invalid`: The config does not parse."""

from __future__ import annotations

import re

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Evidence, Finding, Severity
from diagnosis.rules.base import Placement, Role, RuleSpec, Verdict

# PyYAML's English problem, read into a kind the reply explains in the reader's language (the original
# stays in the reply for whoever wants to search it). First match wins; a tab has its own variant.
_PROBLEM_KINDS = (
    (re.compile(r"mapping values are not allowed"), "mapping_values"),
    (
        re.compile(r"expected <block end>|did not find expected (?:key|'-')|block sequence entries are not"),
        "indentation",
    ),
    (re.compile(r"could not find expected ':'"), "missing_colon"),
    (re.compile(r"escape (?:sequence|character)|hexdecimal number"), "escape"),
    (re.compile(r"found unexpected end of stream"), "unclosed_quote"),
    (re.compile(r"expected ',' or '[\]}]'"), "unclosed_brackets"),
    (re.compile(r"found undefined alias"), "undefined_alias"),
    (re.compile(r"(?:special|control) characters are not allowed"), "control_char"),
    (re.compile(r"found character '[^\t]' that cannot start any token"), "reserved_char"),
)


def problem_kind(problem: str) -> str | None:
    for pattern, kind in _PROBLEM_KINDS:
        if pattern.search(problem):
            return kind
    return None


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
            "problem_kind": problem_kind(error.problem),
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
    params=frozenset({"line", "column", "problem", "line_text", "tab", "problem_kind"}),
    oom_checklist=False,
    role=Role.VERDICT,
    # The line and column help more than the trainer's echo of the error.
    placement=Placement(first=0),
    verdict=Verdict(
        quote="line_text", quote_lang="yaml", before=("problem",), evidence=False, context=True, always=False
    ),
)
