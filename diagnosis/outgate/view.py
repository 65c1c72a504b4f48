"""The text as the detectors read it, and the way back to the text that leaves.

A token hidden from a pattern by an invisible character, an escape or a look-alike letter is still
whole for whoever reads the reply (a client drops the invisible character, a YAML or JSON reader
joins the escape). So the detectors read a *view*: Markdown escapes (`\\_`) undone, invisible and bidi
characters removed, JSON `\\uXXXX` and URL `%XX` escapes decoded, YAML `\\` line continuations
joined, compatibility forms (fullwidth letters) and look-alike Cyrillic and Greek letters folded to
ASCII. Every character of the view remembers the span of the original it came from, so a secret found
in the view is replaced in the original, hidden characters and escapes included.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from diagnosis.lazyre import LazyPattern
from diagnosis.names import BLANK_FILLERS

# The characters that need work: invisible ones (format characters, fillers, variation selectors),
# letters that fold (Greek, Cyrillic, fullwidth, mathematical), escapes. Everything else, ASCII and
# the scripts of a reply (kana, kanji), is copied through in runs.
_SPECIAL = LazyPattern(
    "[\u00ad\u034f\u0370-\u04ff\u0500-\u052f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180b-\u180f\u1d00-\u1dbf\u2000-\u200f\u2028-\u202f\u205f-\u206f"
    "\u2070-\u209f\u2100-\u214f\u2460-\u24ff\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uff00-\uffef"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U0001d400-\U0001d7ff\U0001f100-\U0001f1ff\U000e0000-\U000e01ef]{1,1024}"
    r"|\\u[0-9A-Fa-f]{4}|\\\r?\n[ \t]{0,256}|%[0-9A-Fa-f]{2}"
)
# Markdown escapes, undone first: a reply escapes `_` in hf_… as `\_`, and `\u0068` as `\\u0068`.
_MARKDOWN_ESCAPE = LazyPattern(r"\\[\\*_~|`\[\]<>#+.!(){}-]")
# Not format characters, but shown as nothing: the letters that draw nothing (`names.BLANK_FILLERS`),
# the Khmer inherent vowels, variation selectors and the combining grapheme joiner.
_BLANK = (
    BLANK_FILLERS
    | frozenset("\u034f\u17b4\u17b5")
    | frozenset(chr(c) for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), *range(0x180B, 0x1810)))
)
# Letters that look like ASCII ones in most fonts (Unicode's confusables, the common part).
_LOOK_ALIKE = str.maketrans(
    "аеорсхуіјѕһԁԛԝүкмнтвАВЕКМНОРСТХІЈЅҮԜΑΒΕΖΗΙΚΜΝΟΡΤΥΧοινρτυχ",
    "aeopcxyijshdqwykmhtbABEKMHOPCTXIJSYWABEZHIKMNOPTYXoivptux",
)


def invisible(char: str) -> bool:
    """Shown as nothing: a format character (zero-width, bidi, tags, soft hyphen) or a blank one."""
    return char in _BLANK or unicodedata.category(char) == "Cf"


def _fold(char: str) -> str:
    folded = unicodedata.normalize("NFKC", char).translate(_LOOK_ALIKE)
    return "" if all(invisible(c) for c in folded) else folded


class View(NamedTuple):
    """`text` as the detectors read it. Runs of it map to the original: run k starts at `at[k]` in the
    view and at `origin[k]` in the original; a copied run maps one to one, a replaced one (an escape, a
    folded letter) maps every character to the whole of `origin[k]:origin_end[k]`."""

    text: str
    at: list[int]
    origin: list[int]
    origin_end: list[int]  # -1: a copied run

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span that view[start:end] (not empty) was made from."""
        return self._start(start), self._end(end - 1)

    def _start(self, pos: int) -> int:
        k = bisect.bisect_right(self.at, pos) - 1
        return self.origin[k] + (pos - self.at[k]) if self.origin_end[k] < 0 else self.origin[k]

    def _end(self, last: int) -> int:
        k = bisect.bisect_right(self.at, last) - 1
        return self.origin[k] + (last - self.at[k]) + 1 if self.origin_end[k] < 0 else self.origin_end[k]


@lru_cache(maxsize=4096)  # a long hostile text repeats a few characters
def _char(char: str) -> str:
    return "" if invisible(char) else _fold(char)


def _decoded(token: str) -> str:
    """What an escape or a run of special characters reads as ("" for invisible ones or a joined
    line). A run is replaced as one: a secret found in it is replaced with all of the run, which keeps
    a megabyte of zero-width spaces to one step instead of a million."""
    if token.startswith("\\u"):
        char = chr(int(token[2:], 16))
        return "" if invisible(char) else _fold(char) if not 0xD800 <= ord(char) <= 0xDFFF else token
    if token.startswith("\\"):
        return ""  # a YAML line continuation: the lines are one string
    if token.startswith("%"):
        value = int(token[1:], 16)
        return chr(value) if 0x20 <= value < 0x7F else token
    return "".join(map(_char, token))


class Layers(NamedTuple):
    """Views made one over the other: `text` is the last one's."""

    views: tuple[View, ...]

    @property
    def text(self) -> str:
        return self.views[-1].text

    def span(self, start: int, end: int) -> tuple[int, int]:
        for view in reversed(self.views):
            start, end = view.span(start, end)
        return start, end


def make_view(text: str) -> Layers:
    """The text with Markdown escapes undone, then with the rest of the work done (`_view`)."""
    if "\\" not in text:
        if text.isascii() and "%" not in text:
            return Layers((View(text, [0], [0], [-1]),))  # nothing to decode: most of a reply
        return Layers((_view(text, _SPECIAL, _decoded),))
    unescaped = _view(text, _MARKDOWN_ESCAPE, lambda token: token[1])
    return Layers((unescaped, _view(unescaped.text, _SPECIAL, _decoded)))


def _view(text: str, special: LazyPattern[str], decoded: Callable[[str], str]) -> View:
    """The view of `text` where each match of `special` reads as `decoded(match)`; the text itself
    (one copied run) when nothing in it needs work."""
    parts: list[str] = []
    at: list[int] = []
    origin: list[int] = []
    origin_end: list[int] = []
    length = 0
    copied = 0  # the original up to here is in the view

    def add(chunk: str, start: int, end: int) -> None:
        nonlocal length
        if chunk:
            parts.append(chunk)
            at.append(length)
            origin.append(start)
            origin_end.append(end)
            length += len(chunk)

    for m in special.finditer(text):
        token = m.group()
        replaced = decoded(token)
        if replaced == token:
            continue  # stays as it is: part of the copied run
        add(text[copied : m.start()], copied, -1)
        add(replaced, m.start(), m.end())
        copied = m.end()
    if not at:
        return View(text, [0], [0], [-1])
    add(text[copied:], copied, -1)
    return View("".join(parts), at, origin, origin_end)
