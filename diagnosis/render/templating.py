"""Jinja2 templates shared by every language, filled from the catalogues for one target.

A target is where the text goes: `discord` (Discord and Markdown) or `text` (a terminal). Templates
run with autoescape off; every user-derived value reaches the output through the target's escaping,
either the `u` filter, `ic` (inline code), `code` (a block), or `t(...)`, which escapes its params.
Text that came from the catalogue is wrapped in `Trusted` so it is not escaped twice.

The templates are rendered by their Python translations (`diagnosis.render._compiled`, built by
`python -m diagnosis.precompile`), so a reply needs no Jinja2 import or template compilation; a
template whose translation is missing or out of date is rendered by Jinja2 itself.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from diagnosis.render import escape
from diagnosis.render.catalogue import can_fill, fill, lookup
from diagnosis.render.runtime import TRANSLATOR_VERSION
from locales import LOCALES_DIR

if TYPE_CHECKING:
    import jinja2

TEMPLATES_DIR = os.path.join(LOCALES_DIR, "_shared", "templates")
COMPILED_PACKAGE = "diagnosis.render._compiled"  # built by `python -m diagnosis.precompile`


class Trusted(str):
    """Text written by us (a catalogue message), safe to place without escaping."""

    __slots__ = ()


class Target(NamedTuple):
    """How one destination shows escaped text, inline code, code blocks and bold."""

    name: str
    escape: Callable[[str], str]
    inline_code: Callable[[str], str]
    code_block: Callable[[str, str], str]
    bold: Callable[[str], str]


def _fence(body: str, lang: str) -> str:
    return f"```{lang}\n{escape.discord_code_block(body).rstrip()}\n```"


def _indent_block(body: str, lang: str) -> str:
    return "\n".join("    " + line for line in escape.clean_block(body).rstrip().splitlines())


TARGETS = {
    "discord": Target(
        "discord",
        escape.discord_text,
        lambda v: f"`{escape.discord_inline_code(v)}`",
        _fence,
        lambda v: f"**{v}**" if v.strip() else v,
    ),
    "text": Target(
        "text",
        escape.terminal_text,
        lambda v: escape.terminal_text(v).replace("\n", " "),
        _indent_block,
        lambda v: v,
    ),
}


# The environment's options, also recorded in each translated module: a module built with others is
# not used. Missing values behave as jinja2.ChainableUndefined (runtime.Undefined mirrors it).
JINJA_OPTIONS: dict[str, Any] = {
    "autoescape": False,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": False,
}


def module_name(template: str) -> str | None:
    """`headline.j2` → `headline`; None for a name that cannot be a module."""
    stem = template.removesuffix(".j2")
    return stem if template.endswith(".j2") and stem.isidentifier() else None


Renderer = Callable[[dict[str, Any]], str]


@cache
def translated(name: str) -> Renderer | None:
    """The translated template's `render`, when its module was built from the template's current text
    with the current options and translator; else None (Jinja2 renders it)."""
    stem = module_name(name)
    if stem is None:
        return None
    try:
        module = importlib.import_module(f"{COMPILED_PACKAGE}.{stem}")
        with open(os.path.join(TEMPLATES_DIR, name), encoding="utf-8") as fh:
            source = fh.read()
    except (ImportError, OSError):
        return None
    current = (
        getattr(module, "SOURCE", None) == source
        and getattr(module, "OPTIONS", None) == JINJA_OPTIONS
        and getattr(module, "TRANSLATOR", None) == TRANSLATOR_VERSION
    )
    render: Renderer | None = getattr(module, "render", None) if current else None
    return render


def source_environment() -> jinja2.Environment:
    """Jinja2 itself over the templates folder: the reference the translations are built from and
    checked against, and the renderer of a template whose translation is missing or stale."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.ChainableUndefined,
        **JINJA_OPTIONS,
    )


@cache
def environment() -> jinja2.Environment:
    return source_environment()


def _number(value: float) -> str:
    return f"{round(value, 2):g}"


class Wording:
    """The functions a template calls, bound to one language and one target."""

    def __init__(self, lang: str, target: Target) -> None:
        self.lang = lang
        self.target = target

    def value(self, value: Any) -> str:
        if isinstance(value, Trusted):
            return value
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float):
            return _number(value)
        if isinstance(value, int):
            return str(value)
        if isinstance(value, list | tuple | set):
            # A list param (buckets, PIDs, option names) is joined as the language lists things.
            separator = lookup("reply.list_separator", self.lang)
            return (separator if isinstance(separator, str) else ", ").join(self.value(v) for v in value)
        return self.target.escape(str(value)[:500])

    def t(self, key: str, **params: Any) -> Trusted:
        entry = lookup(key, self.lang)
        if entry is None:
            return Trusted(key)
        safe = {k: self.value(v) for k, v in params.items()} if params else params
        if isinstance(entry, list):
            return Trusted("\n".join(fill(item, safe) for item in entry))
        return Trusted(fill(entry, safe))

    def can(self, key: str, params: dict[str, Any] | None = None) -> bool:
        return can_fill(key, self.lang, params or {})

    def _rule_key(self, rule_id: str, field: str, params: dict[str, Any]) -> str:
        """`rules.<id>.when_<flag>.<field>` when a true flag param has its own wording (or
        `when_<param>_<value>` for a token value such as `reason: device_mismatch`), else the plain one."""
        for name, value in params.items():
            if value is True:
                situation = name
            elif isinstance(value, str) and re.fullmatch(r"[a-z0-9_]{1,40}", value):
                situation = f"{name}_{value}"
            else:
                continue
            key = f"rules.{rule_id}.when_{situation}.{field}"
            if lookup(key, self.lang) is not None:
                return key
        return f"rules.{rule_id}.{field}"

    def rt(self, rule_id: str, field: str, params: dict[str, Any] | None = None) -> Trusted | None:
        params = params or {}
        key = self._rule_key(rule_id, field, params)
        return self.t(key, **params) if self.can(key, params) else None

    def first(self, rule_id: str, fields: tuple[str, ...], params: dict[str, Any] | None = None) -> Trusted:
        """The first of `fields` whose placeholders all have values (`action`, then `action_plain`…)."""
        for name in fields:
            text = self.rt(rule_id, name, params)
            if text is not None:
                return text
        return Trusted("")

    def action(self, rule_id: str, params: dict[str, Any] | None = None) -> Trusted:
        # Rules may offer narrower actions (only the size, only the steps) for when one value is unknown.
        fields = ("action", "action_size", "action_steps", "action_plain", "title")
        return self.first(rule_id, fields, params)

    def cause(self, rule_id: str, params: dict[str, Any] | None = None) -> Trusted | None:
        return self.first(rule_id, ("cause", "cause_plain"), params) or None

    def rt_list(self, rule_id: str, field: str, params: dict[str, Any] | None = None) -> list[Trusted]:
        params = params or {}
        entry = lookup(self._rule_key(rule_id, field, params), self.lang)
        if entry is None:
            return []
        items = entry if isinstance(entry, list) else [entry]
        safe = {k: self.value(v) for k, v in params.items()}
        return [Trusted(fill(item, safe)) for item in items]

    def variants(self, rule_id: str, params: dict[str, Any]) -> list[Trusted]:
        """Extra sentences chosen by a param's value: `rules.<id>.variant.<param>.<value>`."""
        out: list[Trusted] = []
        for name, value in params.items():
            if isinstance(value, bool):
                token = str(value).lower()
            elif isinstance(value, str | int) and re.fullmatch(r"[A-Za-z0-9_]{1,40}", str(value)):
                token = str(value)
            else:
                continue
            key = f"rules.{rule_id}.variant.{name}.{token}"
            if self.can(key, params):
                out.append(self.t(key, **params))
        return out

    def details(
        self, rule_id: str, params: dict[str, Any], merged: tuple[tuple[str, dict[str, Any]], ...] = ()
    ) -> list[Trusted]:
        """What a checklist step says about this input: its rule's detail and variant sentences, then
        those of each rule merged into the same step (they make the same edit), in that order."""
        out: list[Trusted] = []
        for rid, p in ((rule_id, params), *merged):
            detail = self.first(rid, ("detail", "detail_short"), p)
            if detail:
                out.append(detail)
            out += self.variants(rid, p)
        return out

    def globals(self) -> dict[str, Any]:
        return {
            "t": self.t,
            "can": self.can,
            "rt": self.rt,
            "rt_list": self.rt_list,
            "variants": self.variants,
            "details": self.details,
            "action": self.action,
            "first": self.first,
            "cause": self.cause,
            "code": lambda body, lang="": Trusted(self.target.code_block(str(body), str(lang))),
            "b": lambda text: Trusted(self.target.bold(str(text))),
            "ic": lambda value: Trusted(self.target.inline_code(str(value))),
            "trusted": Trusted,
            "u": self.value,
        }


_FENCE = re.compile(r"^\s*```")


def tidy(text: str) -> str:
    """Collapse runs of blank lines outside code blocks and trim the ends."""
    out: list[str] = []
    in_fence = False
    blank = 0
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        if not in_fence and not line.strip():
            blank += 1
            if blank > 1 or not out:
                continue
            out.append("")
            continue
        blank = 0
        out.append(line.rstrip() if not in_fence else line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


def render_template(name: str, lang: str, target: str, **context: Any) -> str:
    wording = Wording(lang, TARGETS[target])
    variables = dict(**wording.globals(), **context)
    render = translated(name)
    if render is not None:
        return tidy(render(variables))
    return tidy(environment().get_template(name).render(variables))
