"""About the case itself: `not_oom`, `input_incomplete`, `yaml_invalid`, `secret_in_input`,
`regression_after_update`."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Evidence, Finding, Severity
from diagnosis.rules.base import RuleSpec, ev


def check_not_oom(f: Facts) -> Finding | None:
    if f.not_oom_kind is None:
        return None
    return NOT_OOM.finding(
        evidence=ev(f, "not_oom"),
        params={"kind": f.not_oom_kind, "headline": f.not_oom_headline or ""},
    )


def check_input_incomplete(f: Facts) -> Finding | None:
    """Ask for exactly what is missing, when the case lacks the config or the log."""
    if f.not_oom_kind is not None:
        return None
    missing: list[str] = []
    if not f.has_config:
        missing.append("config")
    elif f.config_parsed and f.config_shape != "fragment" and f.family is None:
        # A job without its model section is a paste cut short: the model decides every threshold.
        # Asked as "the rest of the config", so the user does not read it as "you sent no config".
        missing.append("config_rest")
    if not f.has_log and (not f.has_config or f.says_oom):
        missing.append("log")
    elif f.has_log and f.log_cut and f.fatal is None and f.host_oom is None:
        missing.append("error_lines")
    if not missing:
        return None
    if f.vram_source == "assumed":
        missing.append("gpu")
    return INPUT_INCOMPLETE.finding(
        evidence=ev(f, "oom", "host_oom", "user_oom"),
        params={"missing": missing},
    )


def check_yaml_invalid(f: Facts) -> Finding | None:
    error = f.config_error
    if error is None:
        return None
    return YAML_INVALID.finding(
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


def check_secret(f: Facts) -> Finding | None:
    if f.secret_count <= 0:
        return None
    return SECRET.finding(
        evidence=ev(f, "secret"),
        params={"kinds": ", ".join(f.secret_kinds), "count": f.secret_count},
    )


def check_regression(f: Facts) -> Finding | None:
    if not f.says_regression:
        return None
    quote = f.evidence.get("user_regression")
    return REGRESSION.finding(evidence=[quote], params={"quote": quote.text if quote else ""})


NOT_OOM = RuleSpec(
    id="not_oom",
    order=220,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("not_oom_kind", "not_oom_headline"),
    rank=0,
    check=check_not_oom,
    oom_checklist=False,
)
INPUT_INCOMPLETE = RuleSpec(
    id="input_incomplete",
    order=230,
    severity=Severity.INFO,
    applicability=Applicability.ADVICE,
    reads=("has_config", "has_log", "log_cut", "fatal", "vram_source", "says_oom"),
    rank=95,
    check=check_input_incomplete,
)
YAML_INVALID = RuleSpec(
    id="yaml_invalid",
    order=240,
    severity=Severity.ERROR,
    applicability=Applicability.ADVICE,
    reads=("config_error",),
    rank=0,
    check=check_yaml_invalid,
    oom_checklist=False,
)
SECRET = RuleSpec(
    id="secret_in_input",
    order=250,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("secret_kinds", "secret_count"),
    rank=99,
    check=check_secret,
    oom_checklist=False,
)
REGRESSION = RuleSpec(
    id="regression_after_update",
    order=210,
    severity=Severity.WARNING,
    applicability=Applicability.ADVICE,
    reads=("says_regression",),
    rank=85,
    check=check_regression,
)

SPECS: tuple[RuleSpec, ...] = (REGRESSION, NOT_OOM, INPUT_INCOMPLETE, YAML_INVALID, SECRET)
