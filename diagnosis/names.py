"""File names as a reply or a terminal shows them: every character that is invisible, blank-looking,
reorders text or drives a terminal is written as its escape (`\\u202e`, `\\x1b`), so a name reads as
what it is and cannot move the cursor, flip the line after it or pass for another name."""

from __future__ import annotations

import unicodedata

# Letters and symbols that draw nothing: the Hangul fillers and the blank Braille pattern.
BLANK_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Controls (C0, C1: ANSI escapes start with ESC), format characters (bidi marks, embeddings, overrides
# and isolates, zero-width characters, tag characters, the soft hyphen), line and paragraph
# separators, unassigned and private-use code points.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cn", "Co", "Cs"})


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def display_name(name: str) -> str:
    """`name` with every hidden character escaped; a backslash already in it stays as it is, so the
    escapes read as such only where something was hidden (Windows paths keep their backslashes)."""
    if name.isascii() and name.isprintable():
        return name
    return "".join(
        _escape(ch) if ch in BLANK_FILLERS or unicodedata.category(ch) in _HIDDEN_CATEGORIES else ch
        for ch in name
    )
