"""The allocator message's size fields, searched from their words, are found as a search from the
size finds them."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.logreader import oom
from diagnosis.logreader.units import SIZE

FIELDS = [
    (oom._RESERVED_UNALLOCATED, oom._RESERVED_UNALLOCATED_WORDS),
    (oom._OLD_TOTAL, oom._OLD_TOTAL_WORDS),
    (oom._OLD_ALLOCATED, oom._OLD_ALLOCATED_WORDS),
    (oom._OLD_FREE, oom._OLD_FREE_WORDS),
]
PIECES = st.sampled_from(
    [
        "1",
        "12",
        "301.77",
        "0.5",
        "12345678901234567890",
        "123456789012345678901",
        ".123456",
        ".1234567",
        "9",
        " ",
        "  ",
        "\t",
        "MiB",
        "GiB",
        "bytes",
        "byte",
        "B",
        "kB",
        "KiB",
        "TiB",
        "x",
        "MiBx",
        " is reserved by PyTorch but unallocated",
        " is reserved by PyTorch",
        " total capacity;",
        " free;",
        " already allocated;",
        " total capacity",
        ";",
        "(GPU 0; ",
        "Tried to allocate ",
    ]
)


@pytest.mark.parametrize(("pattern", "words"), FIELDS, ids=[words.strip() for _, words in FIELDS])
@settings(max_examples=300)
@given(line=st.lists(PIECES, max_size=12).map("".join))
@example(line="12345678901234567890.123456 bytes is reserved by PyTorch but unallocated")
@example(line="x free; " * 9 + "12 MiB free; 3 GiB total capacity;")
@example(line="12345678901234567890.123456 bytes total capacity; 1 B free; 2 GiB already allocated;")
def test_the_size_is_found_from_its_words(pattern: re.Pattern[str], words: str, line: str) -> None:
    assert pattern.pattern == SIZE + re.escape(words)
    found, plain = oom._size_before(pattern, line, words), pattern.search(line)
    assert (found.span(), found.groups()) == (plain.span(), plain.groups()) if plain else found is None


def test_the_bot_benchmark_message_keeps_its_numbers() -> None:
    from benchmarks.botbench import OOM

    parsed = oom.parse_oom(OOM.format(mib=512).splitlines()[1])
    assert parsed is not None and parsed.reserved_unallocated_bytes == round(301.77 * 1024**2)


_PLAIN_HOST_PIECES = st.sampled_from(
    [
        "12345",
        " ",
        "  ",
        "\t",
        "Killed",
        "killed",
        "exit code",
        "exit status",
        "exited with code",
        "returncode",
        "return code =",
        "137",
        "-9",
        "1370",
        "x",
        "run.sh: line 3:",
        "python",
    ]
)


def _plain_host_killed(line: str) -> oom.ParsedOom | None:
    """_host_killed without the literal tests in front of its last two patterns."""
    found = oom._host_killed(line)
    if found is not None:
        return found
    if oom._SHELL_KILLED.search(line) is not None or oom._EXIT_137.search(line) is not None:
        return oom.ParsedOom(oom.OomKind.HOST_KILLED)
    return None


@settings(max_examples=400)
@given(st.lists(_PLAIN_HOST_PIECES, max_size=10).map("".join))
@example("run.sh: line 3: 12345 Killed   python")
@example("1 Killed\tpython")
@example("exited with code 137")
@example("return code = -9")
def test_the_killed_patterns_behind_their_literals_answer_like_the_patterns(line: str) -> None:
    assert oom._host_killed(line) == _plain_host_killed(line)
