"""The prefixed-token detector's literal screen lets through every text its pattern finds a token in."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.scrub import _PREFIXED, _has_prefix, _lower, scrub

_BODY = "Ab3dEf6hIj9kLm2nOp5qRs8t"
_PIECES = st.sampled_from(
    [
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "ghx_",
        "GHP_",
        "gh",
        "p_",
        "rpa_",
        "RPA_",
        "r8_",
        "R8_",
        "rpa",
        "_",
        "height",
        "high_",
        _BODY,
        "x",
        " ",
        "\n",
        "é",
    ]
)


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=12).map("".join))
@example("".join(f"{prefix}_{_BODY} " for prefix in ("ghp", "gho", "ghu", "ghs", "ghr", "rpa", "r8")))
def test_the_screen_passes_every_text_with_a_prefixed_token(text: str) -> None:
    low = _lower(text)
    # _find_prefixed reads the pattern's matches only past the screen.
    assert _has_prefix(low) or next(_PREFIXED.finditer(text), None) is None


def test_each_prefix_is_redacted() -> None:
    for prefix in ("ghp", "gho", "ghu", "ghs", "ghr", "rpa", "r8"):
        out, hits = scrub(f"key: {prefix}_{_BODY}\n", "m")
        assert _BODY not in out and len(hits) == 1, prefix
