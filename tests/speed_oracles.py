"""Shared pieces of the fast-path oracle tests (tests/test_speed_*): the bundled inputs, data trees for
hypothesis, and the check that a shortcut reader agrees with the general one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hypothesis import strategies as st

from diagnosis.config.parse import _Parsed
from diagnosis.limits import DEFAULT_LIMITS, Limits

Reader = Callable[[str, Limits, bool], "_Parsed | None"]

TESTS = Path(__file__).parent


def bundled_inputs(examples: str, hostile: str | None = None) -> list[Path]:
    """Every corpus case's input, the examples matching the glob `examples` and, with `hostile`, the
    hostile fixtures matching it."""
    paths = sorted(TESTS.glob("corpus/*/*/input.txt")) + sorted((TESTS.parent / "examples").glob(examples))
    if hostile is not None:
        paths += sorted((TESTS / "hostile" / "fixtures").glob(hostile))
    return paths


def input_id(path: Path) -> str:
    """A bundled input's test id: its folder and name."""
    return f"{path.parent.name}/{path.name}"


def data_scalars(
    *, extra_scalars: Sequence[str] = (), int_bound: int = 10**30, text_size: int = 5
) -> st.SearchStrategy[object]:
    """The scalars a config holds, and `extra_scalars`: texts that read as something else in YAML."""
    scalars: list[st.SearchStrategy[object]] = [
        st.integers(-int_bound, int_bound),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.none(),
        st.text(max_size=text_size),
    ]
    if extra_scalars:
        scalars.append(st.sampled_from(list(extra_scalars)))
    return st.one_of(scalars)


def data_trees(
    keys: Sequence[str],
    *,
    extra_scalars: Sequence[str] = (),
    int_bound: int = 10**30,
    text_size: int = 5,
    max_leaves: int = 20,
) -> st.SearchStrategy[object]:
    """Nested lists and mappings of `data_scalars`, with mapping keys drawn from `keys`."""
    key = st.sampled_from(list(keys))
    return st.recursive(
        data_scalars(extra_scalars=extra_scalars, int_bound=int_bound, text_size=text_size),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(key, children, max_size=4),
        max_leaves=max_leaves,
    )


def parsed_view(parsed: _Parsed) -> tuple[str, list[tuple[object, object]], list[str], bool, object]:
    # repr keeps types apart (True vs 1, 1 vs 1.0), shows NaN equal to itself, and keeps key order.
    return repr(parsed.data), list(parsed.source_map.items()), parsed.hits, parsed.stale, parsed.error


def shortcut_agrees(
    shortcut: Reader,
    general: Callable[[str, Limits, bool], _Parsed],
    text: str,
    limits: Limits = DEFAULT_LIMITS,
) -> bool:
    """True when `shortcut` took the text (with and without a source map), asserting that it then
    read exactly what `general` reads."""
    taken = False
    for mapped in (True, False):
        simple = shortcut(text, limits, mapped)
        if simple is None:
            continue
        taken = True
        assert parsed_view(simple) == parsed_view(general(text, limits, mapped)), (text, mapped)
    return taken
