"""Render shortcuts (issue #8, bot round trip): each answers as the plain path does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from diagnosis.render.catalogue import DEFAULT_LANGUAGE, known_language, normalise_language

LANGS = st.one_of(
    st.none(),
    st.sampled_from(["en", "ja", "JA", "ja-JP", "en_US", "fr", "", "j", "jap"]),
    st.text(max_size=8),
)


@given(LANGS)
def test_a_language_normalises_as_the_full_look_up_says(lang: str | None) -> None:
    assert normalise_language(lang) == (known_language(lang) or DEFAULT_LANGUAGE)
