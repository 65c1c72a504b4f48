"""Which language a reply is written in."""

from __future__ import annotations

from diagnosis.render.catalogue import DEFAULT_LANGUAGE
from locales import LANGUAGES


def _known(value: str | None) -> str | None:
    if not value:
        return None
    short = value.replace("_", "-").split("-")[0].lower()
    return short if short in LANGUAGES else None


def choose_language(
    explicit: str | None, user_locale: str | None, guild_default: str | None, text_hint: str | None
) -> str:
    """explicit choice > the Discord user's locale > the server's default > the text's script > English."""
    for candidate in (explicit, user_locale, guild_default, text_hint):
        known = _known(candidate)
        if known:
            return known
    return DEFAULT_LANGUAGE
