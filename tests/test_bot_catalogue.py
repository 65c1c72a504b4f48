"""bot.yaml: both languages complete, every key the code uses exists, nothing unused, Discord limits."""

from __future__ import annotations

import ast
import string
from pathlib import Path
from typing import Any

import discord
import pytest
import yaml
from discord import app_commands

from bot.translator import CatalogueTranslator, key_str
from oomcheck.botcmd import PROBLEM_FALLBACK, PROBLEM_KEYS, TOKEN_PROBLEM_KEYS

ROOT = Path(__file__).resolve().parent.parent
CODE = [*sorted((ROOT / "bot").glob("*.py")), ROOT / "oomcheck" / "botcmd.py"]
CALLS = {"t", "k", "say", "_say"}


def _flat(node: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in node.items():
        assert isinstance(key, str), f"key {key!r} under {prefix!r} is not a string (YAML on/off/yes/no?)"
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            assert isinstance(value, str), f"{prefix}{key} is not a string"
            out[f"{prefix}{key}"] = value
    return out


def _catalogue(lang: str) -> dict[str, str]:
    with (ROOT / "locales" / lang / "bot.yaml").open(encoding="utf-8") as fh:
        return _flat(yaml.safe_load(fh))


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _keys_used() -> set[str]:
    used: set[str] = set()
    for path in CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in CALLS:
                continue
            first = node.args[0]
            options = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
            used.update(o.value for o in options if isinstance(o, ast.Constant) and isinstance(o.value, str))
    # Keys chosen by a pydantic error type are built in a table, not written at a call.
    used.update(PROBLEM_KEYS.values(), {PROBLEM_FALLBACK}, TOKEN_PROBLEM_KEYS.values())
    return used


EN, JA = _catalogue("en"), _catalogue("ja")


def test_same_keys_and_placeholders_in_both_languages() -> None:
    assert EN.keys() == JA.keys()
    for key in EN:
        assert _fields(EN[key]) == _fields(JA[key]), key


def test_every_key_the_code_uses_exists_and_none_is_unused() -> None:
    used = _keys_used()
    assert used, "the scan found no catalogue calls"
    assert used - EN.keys() == set()
    assert EN.keys() - used == set()


def test_texts_fit_discord_limits() -> None:
    for catalogue in (EN, JA):
        for key, text in catalogue.items():
            if key.startswith(("command.", "option.")) and key.endswith(("description", "text", "file")):
                assert 1 <= len(text) <= 100, key
            if key.startswith("option."):
                assert 1 <= len(text) <= 100, key
        assert 1 <= len(catalogue["command.context_menu.name"]) <= 32
        assert len(catalogue["button.next_step"]) <= 80


def test_japanese_is_polite() -> None:
    sentences = [JA[k] for k in ("apology", "cooldown", "not_moderator", "feedback_thanks", "deleted")]
    assert all(s.rstrip("。").endswith(("ます", "です", "ません", "ください", "した")) for s in sentences)


def lookup(key: str, lang: str) -> str | None:
    table = {"en": {"bot.x": "Check"}, "ja": {"bot.x": "確認"}}
    return table[lang].get(key)


async def test_translator_answers_japanese_and_leaves_the_default_otherwise() -> None:
    translator = CatalogueTranslator(lookup)
    string_ = key_str(lookup, "bot.x")
    assert string_.message == "Check" and string_.extras["key"] == "bot.x"
    context = app_commands.TranslationContext(app_commands.TranslationContextLocation.other, None)
    assert await translator.translate(string_, discord.Locale.japanese, context) == "確認"
    assert await translator.translate(string_, discord.Locale.american_english, context) is None
    assert await translator.translate(string_, discord.Locale.french, context) is None
    plain = app_commands.locale_str("no key")
    assert await translator.translate(plain, discord.Locale.japanese, context) is None
    missing = key_str(lookup, "bot.missing")
    assert missing.message == "bot.missing"
    assert await translator.translate(missing, discord.Locale.japanese, context) is None


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_catalogue_files_parse_as_utf8(lang: str) -> None:
    raw = (ROOT / "locales" / lang / "bot.yaml").read_bytes()
    raw.decode("utf-8")
