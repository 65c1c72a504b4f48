"""Command names and descriptions in the member's language, read from `locales/<lang>/bot.yaml`.

Every localizable string is a `locale_str` whose `key` extra names its catalogue entry; the English
text is the default that Discord shows when no translation applies.
"""

from __future__ import annotations

from collections.abc import Callable

import discord
from discord import app_commands

from diagnosis.render.catalogue import message
from locales import DEFAULT_LANGUAGE, known_language

Lookup = Callable[[str, str], str | None]


def catalogue_lookup(key: str, lang: str) -> str | None:
    """The catalogue's text of `key` in `lang`, or None when it has none of its own."""
    text = message(key, lang)
    return text if text and text != key else None


def key_str(lookup: Lookup, key: str) -> app_commands.locale_str:
    """The default (English) text of `key`, carrying the key for the translator."""
    return app_commands.locale_str(lookup(key, "en") or key, key=key)


class CatalogueTranslator(app_commands.Translator):
    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        # Discord's locale tag names a catalogue language ("ja", "en-US"); English is the default text.
        lang = known_language(locale.value)
        if lang == DEFAULT_LANGUAGE:
            lang = None
        if not isinstance(key, str) or lang is None:
            return None
        return self._lookup(key, lang)
