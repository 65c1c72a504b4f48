"""Memory sizes as PyTorch, the kernel and nvidia-smi print them → whole bytes.

PyTorch's `format_size()` writes `N bytes`, `X.XX KiB`, `X.XX MiB`, `X.XX GiB`; old MPS builds wrote
`KB`/`MB`/`GB` for the same binary multiples, the kernel writes `kB` for KiB, nvidia-smi `MiB`. All of
them are powers of 1024, so the decimal-looking spellings are read as binary too.
"""

from __future__ import annotations

import re

_MULTIPLIER: dict[str, int] = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
    "t": 1024**4,
    "tb": 1024**4,
    "tib": 1024**4,
    "pb": 1024**5,
    "pib": 1024**5,
    "eb": 1024**6,
    "eib": 1024**6,
}

# A number and a unit, as a fragment to embed in larger patterns (two groups: number, unit).
# Bounded digits keep it linear; the unit alternation lists longer spellings first.
SIZE = r"(\d{1,20}(?:\.\d{1,6})?)\s?(bytes|byte|[KkMGTPE]i?B|B)(?![A-Za-z])"

_SIZE_RE = re.compile(SIZE)


def to_bytes(number: str, unit: str) -> int | None:
    """`("576.00", "MiB")` → 603979776; None for a unit that is not a memory size."""
    factor = _MULTIPLIER.get(unit.lower())
    if factor is None:
        return None
    try:
        value = float(number)
    except ValueError:
        return None
    return round(value * factor)


def parse_size(text: str) -> int | None:
    """The first size in `text` (`"23.55 GiB"`, `"1.2 GB"`, `"0 bytes"`) in bytes, or None."""
    match = _SIZE_RE.search(text)
    if match is None:
        return None
    return to_bytes(match.group(1), match.group(2))
