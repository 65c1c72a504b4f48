"""Which language a reply is written in."""

from __future__ import annotations

from locales import DEFAULT_LANGUAGE, known_language


def choose_language(
    explicit: str | None, user_locale: str | None, guild_default: str | None, text_hint: str | None
) -> str:
    """explicit choice > the Discord user's locale > the server's default > the text's script > English."""
    for candidate in (explicit, user_locale, guild_default, text_hint):
        known = known_language(candidate)
        if known:
            return known
    return DEFAULT_LANGUAGE
