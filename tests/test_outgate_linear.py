"""The output gate stays linear on hostile text: its patterns are in the regex sweep
(tests/test_regex_sweep.py); this checks the Python around them (the view, the loops that work from an
"@", the private-key lines, the base64 runs) on inputs built from what each looks for.

No wall-clock bound: each input is gated at 8 KB and at 256 KB, side by side, and the cost may grow
with the size (32×) but not with its square (1,024×). `BOUND` leaves four times the linear growth
for the noise of a shared machine and its caches (a linear case measures 20–30×), and is far below
what a reread of the text would cost.
"""

from __future__ import annotations

import time

import pytest

from diagnosis.outgate import gate_text

SMALL, LARGE = 1 << 13, 1 << 18
BOUND = 4 * LARGE / SMALL

UNITS = [
    "@",
    "a@b.co ",
    "x@y:~$ ",
    "\u200b",
    "\u202e\u00ad",
    "ｈ",
    "\\u0068",
    "\\\n",
    "\\_",
    "%41",
    "key: ",
    'password: "',
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "://a:b@",
    "?sig=",
    "A",
    "C:\\Users\\",
]


def _cost(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        gate_text(text)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("unit", UNITS)
def test_the_gate_grows_linearly(unit: str) -> None:
    small = unit * (SMALL // len(unit))
    large = unit * (LARGE // len(unit))
    growth = _cost(large) / max(_cost(small), 1e-6)
    assert growth < BOUND, f"{unit!r}: {growth:.0f}× for 32× the text"
