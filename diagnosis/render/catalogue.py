"""Message catalogues: every `locales/<lang>/*.yaml` is one namespace named after its file.

Nested mappings are flattened to dotted keys (`rules.gc_off.title`); lists keep their items under
numeric keys as well (`rules.gc_off.fix.0`) and as a whole, so a template can loop over fix steps.
"""

from __future__ import annotations

import os
import string
from functools import cache
from typing import Any

from diagnosis.datafile import load_data_file
from locales import DEFAULT_LANGUAGE, LANGUAGES, LOCALES_DIR, known_language

Entry = str | list[str]


def _flatten(prefix: str, node: Any, out: dict[str, Entry]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            _flatten(f"{prefix}.{key}", value, out)
    elif isinstance(node, list):
        items = [str(item) for item in node]
        out[prefix] = items
        for i, item in enumerate(items):
            out[f"{prefix}.{i}"] = item
    elif node is not None:
        out[prefix] = str(node)


@cache
def catalogue(lang: str) -> dict[str, Entry]:
    """All messages of one language, keyed `<file stem>.<dotted path>` (loaded once per process)."""
    out: dict[str, Entry] = {}
    folder = os.path.join(LOCALES_DIR, lang)
    if not os.path.isdir(folder):
        return out  # a language named but not shipped: every message falls back to English
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".yaml")):
        _flatten(name.removesuffix(".yaml"), load_data_file(os.path.join(folder, name)) or {}, out)
    return out


def normalise_language(lang: str | None) -> str:
    if lang in LANGUAGES:
        return lang  # already a catalogue language: what a reply asks for dozens of times
    return known_language(lang) or DEFAULT_LANGUAGE


def lookup(key: str, lang: str) -> Entry | None:
    """The entry in `lang`, else in English, else None."""
    found = catalogue(normalise_language(lang)).get(key)
    if found is None:
        found = catalogue(DEFAULT_LANGUAGE).get(key)
    return found


class _KeepMissing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, params: dict[str, Any]) -> str:
    """`str.format_map` that leaves unknown placeholders visible instead of raising."""
    try:
        return template.format_map(_KeepMissing(params))
    except (ValueError, IndexError, AttributeError, KeyError):
        return template


def placeholders(template: str) -> set[str]:
    names: set[str] = set()
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            names.add(name.split(".")[0].split("[")[0])
    return names


def message(key: str, lang: str, **params: Any) -> str:
    """The catalogue text for `key` with `{name}` placeholders filled; the key itself when unknown."""
    entry = lookup(key, lang)
    if entry is None:
        return key
    if isinstance(entry, list):
        return "\n".join(fill(item, params) for item in entry)
    return fill(entry, params)


def can_fill(key: str, lang: str, params: dict[str, Any]) -> bool:
    """True when the catalogue entry exists and every placeholder it uses has a value."""
    entry = lookup(key, lang)
    if entry is None:
        return False
    texts = entry if isinstance(entry, list) else [entry]
    return all(placeholders(t) <= params.keys() for t in texts)
