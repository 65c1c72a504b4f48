"""The user's own home paths, put back into what the command line prints about their config.

Scrubbing writes USER for the user name in home paths (`/home/sora/…` → `/home/USER/…`) so that no
reply, log or database keeps it. A terminal is the user's own, as is the file `--fix` writes: config
lines shown there with USER would break the dataset and output paths if copied back. Tokens stay
redacted everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from diagnosis.models import SecretHit


def own_path_lines(original: str, redacted: str, hits: Sequence[SecretHit]) -> dict[str, str]:
    """Each scrubbed line with a home path, as printed (stripped) → the user's own line. Empty when a
    line with a home path also held a token: that line keeps USER, and the reply still says so.
    Scrubbing never adds or removes a line, so the two texts map line for line."""
    old, new = original.split("\n"), redacted.split("\n")
    homes = {h.line for h in hits if h.kind == "home_path"}
    if len(old) != len(new) or homes & {h.line for h in hits if h.kind != "home_path"}:
        return {}
    lines: dict[str, str] = {}
    for number in sorted(homes):
        before, after = old[number - 1].strip(), new[number - 1].strip()
        if before != after and after:
            lines[after] = before
    return lines


def with_own_paths(text: str, lines: Mapping[str, str]) -> str:
    """`text` (a reply, a diff, a config) with every scrubbed config line it quotes given back as written."""
    if not lines:
        return text
    out = []
    for line in text.split("\n"):
        for scrubbed, own in lines.items():
            if scrubbed in line:
                line = line.replace(scrubbed, own)
        out.append(line)
    return "\n".join(out)


def with_own_paths_in(data: Any, lines: Mapping[str, str]) -> Any:
    """The JSON document with the same done to each of its strings."""
    if isinstance(data, str):
        return with_own_paths(data, lines)
    if isinstance(data, list):
        return [with_own_paths_in(item, lines) for item in data]
    if isinstance(data, dict):
        return {key: with_own_paths_in(value, lines) for key, value in data.items()}
    return data
