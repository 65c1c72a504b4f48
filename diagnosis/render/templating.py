"""Jinja2 templates shared by every language, filled from the catalogues for one target.

A target is where the text goes: `discord` (Discord and Markdown) or `text` (a terminal). Templates
run with autoescape off; every user-derived value reaches the output through the target's escaping,
either the `u` filter, `ic` (inline code), `code` (a block), or `t(...)`, which escapes its params.
Text that came from the catalogue is wrapped in `Trusted` so it is not escaped twice.

Importing Jinja2 and compiling a template cost more than the rest of a CLI run, so templates are
rendered by their Python translations (`diagnosis.render.translate`). A translation is made the first
time its template is rendered and kept in the user's cache folder (`cache_dir`), under a name derived
from everything it depends on: the template's text, the environment's options and the translator's
own source. An edited template or translator therefore gets a new translation, never a stale one; a
cache folder that cannot be written only means translating again on the next run. A template the
translator does not cover is rendered by Jinja2 itself.
"""

from __future__ import annotations

import binascii
import os
import re
from collections.abc import Callable
from functools import cache
from importlib.machinery import SourceFileLoader
from types import CodeType
from typing import TYPE_CHECKING, Any, NamedTuple

from diagnosis.render import escape
from diagnosis.render.catalogue import can_fill, fill, lookup
from locales import LOCALES_DIR

if TYPE_CHECKING:
    import jinja2

TEMPLATES_DIR = os.path.join(LOCALES_DIR, "_shared", "templates")
# What a translation is made by: a change to either file makes every cached translation obsolete.
TRANSLATOR_FILES = tuple(os.path.join(os.path.dirname(__file__), n) for n in ("translate.py", "runtime.py"))


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


# The environment's options; part of a translation's name, so one made with others is not used. Missing
# values behave as jinja2.ChainableUndefined (runtime.Undefined mirrors it).
JINJA_OPTIONS: dict[str, Any] = {
    "autoescape": False,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": False,
}

Renderer = Callable[[dict[str, Any]], str]


def cache_dir() -> str:
    """Where translations are kept: `$XDG_CACHE_HOME/oomcheck/templates`, by default under `~/.cache`
    (`%LOCALAPPDATA%` on Windows)."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser(r"~\AppData\Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "oomcheck", "templates")


@cache
def _translator_key() -> int:
    key = binascii.crc32(repr(JINJA_OPTIONS).encode("utf-8"))
    for path in TRANSLATOR_FILES:
        with open(path, "rb") as fh:
            key = binascii.crc32(fh.read(), key)
    return key


def translation_path(name: str, source: str) -> str:
    """The cache file of the translation of template `name` whose text is `source`."""
    key = binascii.crc32(source.encode("utf-8"), _translator_key())
    return os.path.join(cache_dir(), f"{name.removesuffix('.j2')}-{key:08x}.py")


@cache
def translated(name: str) -> Renderer | None:
    """The `render` of the template's translation, made now if the cache has none; None when the
    translator does not cover the template (Jinja2 renders it)."""
    try:
        with open(os.path.join(TEMPLATES_DIR, name), encoding="utf-8") as fh:
            source = fh.read()
        path = translation_path(name, source)
    except OSError:
        return None
    return _cached(name, path, source) or _translate(name, path, source)


def _cached(name: str, path: str, source: str) -> Renderer | None:
    # The standard loader reads the bytecode _save wrote to __pycache__ (and remakes it if stale).
    try:
        code = SourceFileLoader(name, path).get_code(name)
    except (OSError, ImportError, SyntaxError, ValueError, EOFError):
        return None  # not made yet, or unreadable: made again
    return _render_function(code, source) if code is not None else None


def _render_function(code: CodeType, source: str) -> Renderer | None:
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    # The name holds a checksum of the text; comparing the text itself rules out a collision.
    render: Renderer | None = namespace.get("render") if namespace.get("SOURCE") == source else None
    return render


def _translate(name: str, path: str, source: str) -> Renderer | None:
    from diagnosis.render.translate import Unsupported, module_text  # imports Jinja2

    try:
        text = module_text(source_environment(), name, source)
    except Unsupported:
        return None
    _save(path, text)
    return _render_function(compile(text, path, "exec"), source)


def _save(path: str, text: str) -> None:
    """Write the file whole or not at all, so a run started meanwhile never reads half of one, and
    its bytecode beside it."""
    import contextlib
    import py_compile
    import tempfile

    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=folder, prefix=".", suffix=".partial")
    except OSError:
        return  # a read-only home or container: the translation serves this run only
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        return
    # Written explicitly: with PYTHONDONTWRITEBYTECODE set (CI, container images) the loader would
    # never write it, and every run would compile the translation again.
    py_compile.compile(path, quiet=2)


def source_environment() -> jinja2.Environment:
    """Jinja2 itself over the templates folder: what the translations are made from and checked
    against, and the renderer of a template the translator does not cover."""
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
