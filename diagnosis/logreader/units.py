"""Memory sizes as PyTorch, the kernel and nvidia-smi print them → whole bytes.

PyTorch's `format_size()` writes `N bytes`, `X.XX KiB`, `X.XX MiB`, `X.XX GiB`; old MPS builds wrote
`KB`/`MB`/`GB` for the same binary multiples, the kernel writes `kB` for KiB, nvidia-smi `MiB`. All of
them are powers of 1024, so the decimal-looking spellings are read as binary too.
"""

from __future__ import annotations

# Bytes per unit, for every unit `SIZE` matches (lower-cased).
_MULTIPLIER: dict[str, int] = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 1024,
    "kib": 1024,
    "mb": 1024**2,
    "mib": 1024**2,
    "gb": 1024**3,
    "gib": 1024**3,
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
# The longest text `SIZE` matches: 20 digits, a point and 6 more, a blank, "bytes".
SIZE_MAX_CHARS = 20 + 1 + 6 + 1 + 5


# Bytes per unit for each spelling `SIZE` matches, as it is written (no lower-casing to look it up).
SIZE_UNITS: dict[str, int] = {
    spelling: _MULTIPLIER[spelling.lower()]
    for spelling in ("bytes", "byte", "B", *(p + i + "B" for p in "KkMGTPE" for i in ("", "i")))
}


def to_bytes(number: str, unit: str) -> int | None:
    """`("576.00", "MiB")` → 603979776 for the two groups of a `SIZE` match; None for a unit that is
    not a memory size."""
    factor = _MULTIPLIER.get(unit.lower())
    return None if factor is None else round(float(number) * factor)
