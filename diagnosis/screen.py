"""Is there a case in these inputs? Auto mode answers a config, a log or a training problem told in
words, never chat; `is_case` decides it from a report, and `may_be_case` rules chat out before any
diagnosis is made.

`may_be_case` is sound: it answers False only when `is_case(diagnose(inputs))` would be False. It
reads the inputs as intake does (decoded and scrubbed by the same functions) and asks the questions
that decide `is_case`, with the engine's own tests and word lists: no config or log piece can be cut
from the inputs, and the user's words, which are then the whole text, report no problem
(`facts_prose.may_report_problem`, from the same patterns as the prose pass). A text with a code fence
is not screened: a fence cuts lines, and a fenced block is read apart from its surroundings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from diagnosis.config.keys import ALL_KEYS, MIN_CONFIG_SCORE, key_score
from diagnosis.decode import decode
from diagnosis.facts_prose import may_report_problem
from diagnosis.intake import prefix_tree
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.logreader.detect import WHOLE_CHARS, is_log_text
from diagnosis.report import Report
from diagnosis.rules import Role, role
from diagnosis.scrub import scrub_screening


def is_case(report: Report) -> bool:
    """Auto mode answers a config, a log, or a training problem told in words, never chat: the engine
    must have found one of them."""
    if report.config is None and report.log is None:
        return report.facts.reports_problem
    if report.log is not None and (report.log.events or report.log.non_oom_error or report.log.has_traceback):
        return True
    if report.config is not None and (report.config.ok or report.config.error is not None):
        return True
    return any(role(f.rule_id) != Role.QUESTION for f in report.findings)


@cache
def _config_key() -> re.Pattern[str]:
    """A known key name before a colon (in YAML `key:`, `"key":`; in JSON `"key" :`), at every place
    where one starts: intake's config regions are found from such names, and score as a config only
    when the names do (`key_score`)."""
    return re.compile("(?=(" + prefix_tree(ALL_KEYS) + r")[\"']?\s*:)")


def _may_hold_config(text: str) -> bool:
    if ":" not in text:
        return False
    return key_score({match.group(1) for match in _config_key().finditer(text)}) >= MIN_CONFIG_SCORE


def may_be_case(inputs: Sequence[str | bytes], limits: Limits = DEFAULT_LIMITS) -> bool:
    """False only when `diagnose(inputs)` would find no case (`is_case`); True for anything that may
    hold one. A few microseconds on a chat line, where a diagnosis costs hundreds."""
    texts: list[str] = []
    for data in inputs:
        decoded = decode(data, limits.max_input_bytes)
        text = scrub_screening(decoded.text, "", decoded.utf8)[0]
        if "```" in text or "~~~" in text or len(text) > WHOLE_CHARS:
            return True
        if is_log_text(text) or _may_hold_config(text):
            return True
        texts.append(text)
    # Neither a config nor a log: each text is one region of the user's words, as intake keeps them.
    return may_report_problem("\n".join(text.strip("\n") for text in texts if text.strip()))
