"""The languages a reply can be written in: the list the message catalogues are loaded by."""

from __future__ import annotations

import locales


def reply_languages() -> tuple[str, ...]:
    """`locales.LANGUAGES`, read at each call rather than bound at import: the catalogue's list is
    the one place that says which languages exist."""
    return locales.LANGUAGES
