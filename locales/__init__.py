"""Message catalogues and reply templates, one folder per language (data shipped in the wheel).

The languages are the folders here that hold a reply catalogue, each with its line in `SCRIPTS`: a
third language is its folder of catalogues (`reply.yaml`, `rules.yaml`, `cli.yaml`, `bot.yaml`) plus
that one line.
"""

import os

# A plain path: pathlib's import (with urllib.parse and ipaddress) was a tenth of a CLI run's start-up.
LOCALES_DIR = os.path.dirname(os.path.realpath(__file__))

# The characters that mark a user's words as written in each language (a regular-expression character
# class), by language code. English has none: Latin words with no other script are English.
SCRIPTS: dict[str, str] = {
    "en": "",
    # Kana and half-width katakana only: kanji alone are shared with Chinese, whose posts are answered
    # in English (or the server's default), not in Japanese.
    "ja": "\u3040-\u30ff\uff66-\uff9f",
}

# The language of a reply when nothing else decides, and the one a missing message falls back to.
DEFAULT_LANGUAGE = "en"

LANGUAGES: tuple[str, ...] = tuple(
    code for code in SCRIPTS if os.path.isfile(os.path.join(LOCALES_DIR, code, "reply.yaml"))
)


def known_language(value: str | None) -> str | None:
    """The catalogue language a tag names ("ja", "ja-JP", "en_US", "ja_JP.UTF-8"), or None."""
    if not value:
        return None
    short = value.replace("_", "-").split("-")[0].lower()
    return short if short in LANGUAGES else None
