"""The user's own home paths, put back into a corrected config that `--fix` writes on their disk.

Scrubbing writes USER for the user name in home paths (`/home/sora/…` → `/home/USER/…`) so that no
reply, log or database keeps it (what the command prints passes the same gate). A file on the user's
own disk is theirs: with USER, its dataset and output paths would break. A config that is a whole file
is mapped line for line (cli._restore_home_paths); one read from stdin or cut out of a message or a
log is found by the text of its lines, here. Tokens stay redacted everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

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
    """`text` (a corrected config) with every scrubbed line it holds given back as the user wrote it."""
    if not lines:
        return text
    out = []
    for line in text.split("\n"):
        for scrubbed, own in lines.items():
            if scrubbed in line:
                line = line.replace(scrubbed, own)
        out.append(line)
    return "\n".join(out)
