"""search_from_word (the version searches of env.py, tried only where their word occurs) answers like
the pattern's own search."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader import env
from diagnosis.logreader.env import search_from_word

PIECES = st.sampled_from(
    [
        "torch",
        "Torch",
        "TORCH",
        "pytorch",
        "PyTorch",
        "py",
        "-",
        "_",
        " ",
        "  ",
        "==",
        "=",
        ":",
        "v",
        "2.1",
        ".0",
        "+cu121",
        " version",
        "/",
        "site-packages/",
        "ai",
        "AI",
        "ai-",
        "ai_",
        "ai ",
        "toolkit",
        "Toolkit",
        " UI",
        "version:",
        "0.7.3",
        "1",
        "x",
        "\u0131",
        "\u017f",
        "\u212a",
        "\u0130",
        "a\u0131",
        "too\u212ait",
        "\u00e9",
        "\t",
        "\x0b",
        "\x1c",
        "\x1f",
        "UI",
        "V1.2",
        ",",
        ".",
    ]
)


def _span(found: re.Match[str] | None) -> tuple[tuple[int, int], str] | None:
    return (found.span(), found.group(1)) if found is not None else None


@settings(max_examples=500)
@given(st.lists(PIECES, max_size=14).map("".join))
@example("see pytorch 2.1.0 and ai-toolkit v0.7.3, torch==2.4 / AI Toolkit version: 1.2")
@example("xtorch 2.1 -torch 2.2 torch 2.3")
@example("torch/ " * 9 + "torch 2.1")  # past the occurrences tried one by one
@example("pytorch, " * 8 + "PyTorch 2.1 and ai-toolkit/ " * 9 + "ai toolkit v1.2")
@example("torch\x0b2.1")
@example("torch\x1c2.2")
@example("torch:2.3")
@example("torch=2.4")
@example("torch\t2.5")
@example("ai toolkit\x1f1.2")
@example("ai-toolkitUI v1.3")
@example("ai_toolkitv1.4")
@example("aitoolkit:1.5")
@example("ai toolkit version 1.6")
@example("\u0130\u0130 torch 2.1")  # lower-casing makes each of these two characters
@example("a\u0131 too\u212ait v1.2")  # IGNORECASE folds the dotless i and the Kelvin sign
def test_the_version_searches_find_what_search_finds(line: str) -> None:
    torch = search_from_word(env._TORCH_VERSION, line, "torch", env._TORCH_HEADS, env._TORCH_FOLLOW)
    assert _span(torch) == _span(env._TORCH_VERSION.search(line))
    trainer = search_from_word(env._TRAINER_VERSION, line, "toolkit", env._TRAINER_HEADS, env._TRAINER_FOLLOW)
    assert _span(trainer) == _span(env._TRAINER_VERSION.search(line))


def test_the_heads_are_what_the_patterns_allow_before_the_word() -> None:
    # Every head is a match's start in lower case; a missing head would hide these versions.
    assert _span(
        search_from_word(env._TORCH_VERSION, "PyTorch 2.1", "torch", env._TORCH_HEADS, env._TORCH_FOLLOW)
    ) == (
        (0, 11),
        "2.1",
    )
    for line in ("ai-toolkit v1.2", "AI Toolkit: 1.2", "ai_toolkit version 1.2", "aitoolkit v1.2"):
        found = search_from_word(
            env._TRAINER_VERSION, line, "toolkit", env._TRAINER_HEADS, env._TRAINER_FOLLOW
        )
        assert _span(found) == ((0, len(line)), "1.2")


_PLAIN_WINDOWS_PATH = re.compile(r"(?<![\w/])[A-Za-z]:[\\/]{1,2}[\w.$~-]")
_PATH_PIECES = st.sampled_from(
    [
        "C",
        "c",
        "d",
        "x",
        "1",
        "_",
        "/",
        "\\",
        ":",
        ":\\",
        ":/",
        "//",
        "\\\\",
        ".",
        "$",
        "~",
        "-",
        " ",
        "é",
        "ab",
    ]
)


@settings(max_examples=500)
@given(st.lists(_PATH_PIECES, max_size=12).map("".join))
@example("C:\\x")
@example("xC:\\x")
@example("/C:/x")
@example("é:/x")
def test_the_drive_path_is_found_from_its_colon_exactly_when_from_its_letter(line: str) -> None:
    assert (env._WINDOWS_PATH.search(line) is None) == (_PLAIN_WINDOWS_PATH.search(line) is None)
