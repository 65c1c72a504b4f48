"""Intake's fast paths answer like the plain computations they replace."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis import intake
from diagnosis.config.keys import ALL_KEYS, JOB_KEYS, MIN_CONFIG_SCORE, SECTION_KEYS, key_score

_NAMES = st.sampled_from(sorted(JOB_KEYS | SECTION_KEYS) + sorted(ALL_KEYS)[:12] + ["foo", "bar_baz", "x.y"])
_YAML_LINE = st.builds(
    lambda indent, name, tail: f"{' ' * indent}{name}:{tail}",
    st.integers(0, 6),
    _NAMES,
    st.sampled_from(["", " 1", " x", "x"]),
)
_LINE = st.one_of(_YAML_LINE, st.sampled_from(["", "# job: x", "- a", "text", '"name": 1,', "{", "}"]))


@settings(max_examples=400)
@given(st.lists(_LINE, max_size=40))
def test_the_early_score_answers_like_the_score_of_every_name(lines: list[str]) -> None:
    yaml_text = "\n" + "\n".join(lines)
    expected = key_score(intake._KEY_NAME.findall(yaml_text)) >= MIN_CONFIG_SCORE
    assert intake._scores_as_config(intake._KEY_NAME, yaml_text) is expected
    json_text = "\n".join(lines)
    expected = key_score(intake._JSON_KEY_NAME.get().findall(json_text)) >= MIN_CONFIG_SCORE
    assert intake._scores_as_config(intake._JSON_KEY_NAME.get(), json_text) is expected


@given(st.lists(_NAMES, max_size=20), st.lists(_NAMES, max_size=20))
def test_the_score_only_grows_as_names_are_added(first: list[str], more: list[str]) -> None:
    # What the early score relies on: once the names read so far score, the rest cannot undo it.
    assert key_score(first) <= key_score(first + more)


def test_a_score_reached_only_after_many_names_is_still_found() -> None:
    lines = [f"unknown_{i}: 1" for i in range(37)] + ["sample_every: 1", "sample_steps: 1", "walk_seed: 1"]
    assert intake._yaml_scores(lines)
    assert not intake._yaml_scores(lines[:-1])
