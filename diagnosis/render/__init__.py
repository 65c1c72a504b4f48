"""Rendering of reports: the Discord reply, the CLI text and Markdown, rule lists and explanations.

Every sentence comes from `locales/<lang>/*.yaml`; the layout comes from the shared Jinja2 templates
in `locales/_shared/templates/`. The CLI's Markdown is the same reply the bot posts, unsplit.
"""

from __future__ import annotations

import unicodedata

from diagnosis.models import Applicability
from diagnosis.render.catalogue import message, normalise_language
from diagnosis.render.discord import DiscordReply, ReplyFile, Section, pack
from diagnosis.render.language import choose_language
from diagnosis.render.templating import render_template
from diagnosis.render.view import ReplyView, build_view
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS, Role, spec
from diagnosis.rules import catalogue as rule_catalogue

__all__ = [
    "DiscordReply",
    "ReplyFile",
    "choose_language",
    "cli_message",
    "message",
    "render_cli",
    "render_discord",
    "render_explain",
    "render_rules",
]


def _sections(
    view: ReplyView, target: str, channel: str, paths_restored: bool = False
) -> tuple[str, list[Section]]:
    """The reply's parts; `channel` ("discord", "cli", "cli_fixing") changes how the full file is offered
    and how a pasted secret is spoken of (a local file was not posted anywhere)."""
    lang = view.lang
    headline = render_template("headline.j2", lang, target, v=view, channel=channel)
    sections: list[Section] = []
    if view.shown_step > 1:
        key = "reply.section.step" if view.step_view is not None else "reply.section.beyond"
        title = message(key, lang, number=view.shown_step, total=view.total_steps)
        sections.append(Section(title, render_template("step.j2", lang, target, v=view)))
    else:
        body = render_template("diagnosis.j2", lang, target, v=view)
        if body:
            sections.append(Section(message("reply.section.diagnosis", lang), body))
    if view.config is not None and (view.config.excerpt or view.config.diff):
        title = message("reply.section.config", lang, number=view.shown_step)
        fix = render_template("fix.j2", lang, target, v=view, channel=channel, paths_restored=paths_restored)
        sections.append(Section(title, fix))
    return headline, sections


def _markdown(headline: str, sections: list[Section]) -> str:
    parts = [headline] + [f"### {s.title}\n\n{s.body}" for s in sections]
    return "\n\n".join(p for p in parts if p) + "\n"


def _text(headline: str, sections: list[Section]) -> str:
    parts = [headline] + [f"{s.title}\n{'-' * min(60, display_width(s.title))}\n{s.body}" for s in sections]
    return "\n\n".join(p for p in parts if p) + "\n"


def display_width(text: str) -> int:
    """Terminal columns: East Asian Wide and Fullwidth characters take two, the rest one."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _language(report: Report, lang: str | None) -> str:
    return normalise_language(lang or report.language)


def render_discord(report: Report, *, lang: str | None = None, step: int = 1) -> DiscordReply:
    """The reply the bot posts; `step=N` shows ladder step N ("still out of memory → next step")."""
    view = build_view(report, _language(report, lang), step)
    headline, sections = _sections(view, "discord", "discord")
    files: list[ReplyFile] = []
    if view.config is not None and view.config.attachment_name and view.config.corrected:
        files.append(ReplyFile(view.config.attachment_name, view.config.corrected.encode("utf-8")))
    continued = message("reply.continued", view.lang)
    return pack(headline, sections, files, _markdown(headline, sections), continued)


def render_cli(
    report: Report,
    *,
    fmt: str = "text",
    lang: str | None = None,
    step: int = 1,
    fixing: bool = False,
    paths_restored: bool = False,
) -> str:
    """`markdown` is the bot's reply in one piece; `text` is the same reply for a terminal.

    `fixing`: the command is writing the corrected file itself (--fix), so the reply does not offer it.
    `paths_restored`: the file it writes has the user's own home paths back, where the reply shows USER.
    """
    view = build_view(report, _language(report, lang), step)
    channel = "cli_fixing" if fixing else "cli"
    restored = fixing and paths_restored
    if fmt == "markdown":
        return _markdown(*_sections(view, "discord", channel, restored))
    return _text(*_sections(view, "text", channel, restored))


def _list_labels() -> dict[str, str]:
    """What each rule's line in the list says of it: a change's effect on results, or, for a rule that
    changes nothing (a verdict, a question, a notice), what it does instead."""
    labels = {}
    for rule in rule_catalogue():
        if rule.role in (Role.CAUSE, Role.TIP):
            labels[rule.id] = f"reply.applicability.{rule.applicability.value}"
        else:
            labels[rule.id] = f"reply.rule_role.{rule.role.value}"
    return labels


def _target(fmt: str) -> str:
    return "text" if fmt == "text" else "discord"


def render_rules(lang: str, *, fmt: str = "markdown") -> str:
    """Every rule with its title; Markdown by default (the bot posts it), `fmt="text"` for a terminal."""
    lang = normalise_language(lang)
    text = render_template("rules.j2", lang, _target(fmt), rule_ids=RULE_IDS, labels=_list_labels())
    return text + "\n"


def render_explain(rule_id: str, lang: str, *, fmt: str = "markdown") -> str | None:
    if rule_id not in RULE_IDS:
        return None
    # A rule with nothing to edit names where to look, not where to change something.
    look = spec(rule_id).applicability == Applicability.ADVICE
    text = render_template("explain.j2", normalise_language(lang), _target(fmt), rid=rule_id, look=look)
    return text + "\n"


def cli_message(key: str, lang: str, **params: object) -> str:
    return message(key, lang, **params)
