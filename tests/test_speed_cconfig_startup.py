"""Patterns that cost every start-up their compile, replaced by plain code, read exactly as before.

Oracles: the former `cuda:N` pattern for `facts.device_index`, and the former `resolve_plain` (every
plain scalar through the integer, float, infinity and NaN patterns) for the one that reads plain
decimals by hand and tries the integer pattern only where an integer can be.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.config.parse import _to_float, _to_int, resolve_plain
from diagnosis.facts import device_index

DEVICE = re.compile(r"^\s*cuda\s*:\s*(\d{1,2})\s*$", re.IGNORECASE)


def device_reference(device: str) -> int | None:
    match = DEVICE.match(device)
    return int(match.group(1)) if match else None


DEVICE_PARTS = [
    "cuda",
    "CUDA",
    "Cuda",
    "cud",
    "a",
    ":",
    " ",
    "\t",
    "\n",
    "\u2003",
    "0",
    "1",
    "7",
    "12",
    "123",
]
DEVICE_PARTS += ["\u0661", "\u00b2", "x", "-", "cuda:"]


@settings(max_examples=1000)
@given(st.lists(st.sampled_from(DEVICE_PARTS), max_size=7))
@example(["cuda", ":", "0"])
@example([" ", "CUDA", " ", ":", " ", "12", "\n"])
def test_device_index_reads_what_the_pattern_read(parts: list[str]) -> None:
    text = "".join(parts)
    assert device_index(text) == device_reference(text), text


INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)|[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?0x[0-9a-fA-F_]+")
FLOAT = re.compile(
    r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
)
INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
NAN = re.compile(r"\.(?:nan|NaN|NAN)")
WORDS: dict[str, Any] = {
    **dict.fromkeys(["", "~", "null", "Null", "NULL"]),
    **dict.fromkeys(["yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], True),
    **dict.fromkeys(["no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], False),
}


def resolve_reference(text: str) -> Any:
    if text in WORDS:
        return WORDS[text]
    if text[0] not in "-+0123456789.":
        return text
    if INT.fullmatch(text):
        number = _to_int(text)
        return text if number is None else number
    if FLOAT.fullmatch(text) or INF.fullmatch(text) or NAN.fullmatch(text):
        real = _to_float(text)
        return text if real is None else real
    return text


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))


@settings(max_examples=3000)
@given(st.text(alphabet="0123456789_-+.eExXbBoinfINFaN~ \u0661\u00b2", min_size=1, max_size=24))
@example("0")
@example("0755")
@example("0x1e5")
@example("1e-4")
@example("9" * 19)
@example("1" + "0" * 5000)
def test_plain_scalars_resolve_as_before(text: str) -> None:
    assert _same(resolve_plain(text), resolve_reference(text)), text
