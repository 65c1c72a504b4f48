"""Characters that draw nothing or reorder a line never reach a reply, whatever the target."""

from __future__ import annotations

import pytest

from diagnosis.render.escape import (
    clean_block,
    discord_code_block,
    discord_inline_code,
    discord_text,
    terminal_text,
)

# The Arabic letter mark, left-to-right and right-to-left marks, an embedding, an override, isolates,
# tag characters (U+E0000–E007F: an invisible copy of ASCII), the Hangul fillers, the halfwidth one,
# the blank Braille pattern and the Mongolian vowel separator.
HIDDEN = (
    "\u061c\u200e\u200f\u202a\u202e\u2066\u2069\U000e0001\U000e0041\U000e007f"
    "\u115f\u1160\u3164\uffa0\u2800\u180e"
)


@pytest.mark.parametrize(
    "escape", [discord_text, discord_inline_code, terminal_text, discord_code_block, clean_block]
)
def test_hidden_characters_are_removed_in_every_target(escape: object) -> None:
    assert callable(escape)
    out = escape(f"gradient{HIDDEN}_checkpointing: false")
    assert not set(out) & set(HIDDEN)
    assert "checkpointing" in out
