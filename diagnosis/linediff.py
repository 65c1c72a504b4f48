"""Line diffs as difflib writes them, without difflib's search where the alignment is forced.

`difflib.SequenceMatcher` looks for the longest block of equal lines by visiting, for each line of
one text, every equal line of the other: a config of thousands of identical lines (the same prompt
listed over and over, rows of `# ----`) costs millions of visits per block. A fix changes a few lines,
and most of the time the lines can be aligned only one way; then difflib's opcodes follow without its
search:

- every line of `a` is distinct and the equal lines keep their order (`_aligned`);
- no changed line occurs in the other text, and the common start is at least as long as the common
  end or both texts changed something (`_trimmed`). difflib's first block is then the common start
  (or end), and what is left holds one block, the other one, which it finds next.

Otherwise difflib decides when its search is small (`WORK_LIMIT` visits of equal lines); beyond
that the common start and end are kept and the lines between are diffed by Myers' algorithm, whose
work grows with the number of changed lines rather than with repeated ones. That diff is as short
as any, but not always difflib's choice among equally short ones.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

Opcode = tuple[str, int, int, int, int]
Block = tuple[int, int, int]  # (start in a, start in b, length)

WORK_LIMIT = 100_000
# Myers' steps (lines compared and diagonals tried) before the lines between the common start and end
# are written as one replacement instead.
MAX_STEPS = 1_000_000


def opcodes(a: Sequence[str], b: Sequence[str], work_limit: int = WORK_LIMIT) -> list[Opcode]:
    """difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes(), or a diff as short when
    finding difflib's own would visit more than `work_limit` pairs of equal lines (see the module's
    docstring)."""
    forced = _aligned(a, b)
    if forced is None:
        forced = _trimmed(a, b)
    if forced is not None:
        return _from_blocks(forced, len(a), len(b))
    counts = Counter(b)
    if sum(counts[line] for line in a if line in counts) <= work_limit:
        return list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes())
    start, end = _common_ends(a, b)
    middle = _myers(a[start : len(a) - end], b[start : len(b) - end])
    blocks = [(0, 0, start)] if start else []
    blocks += [(i + start, j + start, size) for i, j, size in middle]
    if end:
        blocks.append((len(a) - end, len(b) - end, end))
    return _from_blocks(_merged(blocks), len(a), len(b))


def hunks(
    a: Sequence[str], b: Sequence[str], codes: list[Opcode], context: int = 3, lineterm: str = "\n"
) -> list[str]:
    """The hunks of a unified diff (headers and lines, no file names) as difflib.unified_diff writes
    them from `codes` with `context` lines of context; header lines end with `lineterm`."""
    if all(code[0] == "equal" for code in codes):
        return []
    codes = list(codes)
    # The context before the first change and after the last one is cut to `context` lines; an
    # unchanged run longer than twice that ends one hunk and starts the next.
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    groups: list[list[Opcode]] = [[]]
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            groups[-1].append((tag, i1, i1 + context, j1, j1 + context))
            groups.append([])
            i1, j1 = i2 - context, j2 - context
        groups[-1].append((tag, i1, i2, j1, j2))
    out: list[str] = []
    for group in groups:
        old, new = _range(group[0][1], group[-1][2]), _range(group[0][3], group[-1][4])
        out.append(f"@@ -{old} +{new} @@{lineterm}")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return out


def _range(start: int, stop: int) -> str:
    """A hunk's line range as a unified diff writes it: 1-based, the length left out when it is 1."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """The lengths of the common start and of the common end that does not overlap it."""
    shorter = min(len(a), len(b))
    start = 0
    while start < shorter and a[start] == b[start]:
        start += 1
    end = 0
    while end < shorter - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    return start, end


def _aligned(a: Sequence[str], b: Sequence[str]) -> list[Block] | None:
    """difflib's matching blocks when every line of `a` is distinct and the lines of `b` found in `a`
    keep their order; None otherwise.

    Each line of `b` then equals at most one line of `a`, and every block difflib's matcher can find is
    a run of consecutive equal pairs; it finds them all, whatever order it finds them in
    (tests/test_speed_cconfig_diff.py holds this against difflib).
    """
    where: dict[str, int] = {}
    for i, line in enumerate(a):
        if where.setdefault(line, i) != i:
            return None
    runs: list[list[int]] = []  # [start in a, start in b, length]
    last = -1
    for j, line in enumerate(b):
        found = where.get(line)
        if found is None:
            continue
        i = found
        if i <= last:
            return None
        last = i
        if runs and runs[-1][0] + runs[-1][2] == i and runs[-1][1] + runs[-1][2] == j:
            runs[-1][2] += 1
        else:
            runs.append([i, j, 1])
    return [(i, j, size) for i, j, size in runs]


def _trimmed(a: Sequence[str], b: Sequence[str]) -> list[Block] | None:
    """The common start and end as difflib's only blocks, when they are (None otherwise).

    With no line between them in `a` found anywhere in `b` (nor the other way round), a block can
    only pair lines of the common start or end. If the start is at least as long as the end, the
    longest block difflib can find is the start itself, and nothing ends before it; in what is left
    the longest is the end. If the end is longer and both texts have lines between, the same holds
    the other way round. (With the end longer and nothing between in one text, a block can run
    across the place of the change in that text and be found first.)
    """
    start, end = _common_ends(a, b)
    middle_a, middle_b = a[start : len(a) - end], b[start : len(b) - end]
    if start < end and not (middle_a and middle_b):
        return None
    if not set(middle_a).isdisjoint(b) or not set(middle_b).isdisjoint(a):
        return None
    blocks = [(0, 0, start)] if start else []
    if end:
        blocks.append((len(a) - end, len(b) - end, end))
    return blocks


def _myers(a: Sequence[str], b: Sequence[str]) -> list[Block]:
    """The equal blocks of a shortest edit script from `a` to `b` (Myers, 1986): the work grows with
    the lines changed, not with the lines repeated. After MAX_STEPS steps: no blocks."""
    n, m = len(a), len(b)
    frontier: dict[int, int] = {1: 0}  # diagonal k = x - y → furthest x reached
    trace: list[dict[int, int]] = []
    steps = 0
    for d in range(n + m + 1):
        trace.append(dict(frontier))
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and frontier[k - 1] < frontier[k + 1]):
                x = frontier[k + 1]
            else:
                x = frontier[k - 1] + 1
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            frontier[k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m)
            steps += 1 + x - start
        if steps > MAX_STEPS:
            break
    return []


def _backtrack(trace: list[dict[int, int]], n: int, m: int) -> list[Block]:
    blocks: list[Block] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        frontier = trace[d]
        k = x - y
        previous = k + 1 if k == -d or (k != d and frontier[k - 1] < frontier[k + 1]) else k - 1
        px = frontier[previous]
        py = px - previous
        # The diagonal run before (x, y) is equal lines, after the step from the previous point.
        sx, sy = (px, py + 1) if previous == k + 1 else (px + 1, py)
        if d == 0:
            sx, sy = 0, 0
        if x > sx:
            blocks.append((sx, sy, x - sx))
        x, y = px, py
    return _merged(blocks[::-1])


def _merged(blocks: list[Block]) -> list[Block]:
    """Adjacent blocks joined, as difflib's get_matching_blocks joins them."""
    out: list[Block] = []
    for i, j, size in blocks:
        if not size:
            continue
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + size)
        else:
            out.append((i, j, size))
    return out


def _from_blocks(blocks: list[Block], size_a: int, size_b: int) -> list[Opcode]:
    """Opcodes from matching blocks, as difflib's get_opcodes writes them."""
    codes: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*blocks, (size_a, size_b, 0)]:
        if i < ai and j < bj:
            codes.append(("replace", i, ai, j, bj))
        elif i < ai:
            codes.append(("delete", i, ai, j, bj))
        elif j < bj:
            codes.append(("insert", i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            codes.append(("equal", ai, i, bj, j))
    return codes
