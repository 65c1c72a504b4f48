"""GPU names → VRAM class, found in any text (a user's words, an nvidia-smi table, a log line).

The table is data: each row is a pattern for the model part of the name, a canonical name, the VRAM
assumed when the text gives no size, and the sizes the card exists in (an explicit "16GB" right after
the name picks one of them). When a card exists in several sizes and nothing says which, the row
holds the most common one.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from diagnosis.lazyre import LazyPattern


class GpuModel(NamedTuple):
    pattern: str  # regex for the model part, lower case, no surrounding context
    name: str
    gb: float
    sizes: tuple[float, ...] = ()  # other sizes the card is sold in


# Order matters: a longer, more specific name must come before the shorter one it contains
# ("4070 Ti Super" before "4070 Ti" before "4070").
GPU_TABLE: tuple[GpuModel, ...] = (
    # Data-centre and workstation cards.
    GpuModel(r"(?:rtx\s*pro\s*6000|6000\s*rtx\s*pro|pro\s*6000\s*blackwell)", "RTX PRO 6000", 96),
    GpuModel(r"rtx\s*6000\s*ada", "RTX 6000 Ada", 48),
    GpuModel(r"quadro\s*rtx\s*6000", "Quadro RTX 6000", 24),
    GpuModel(r"quadro\s*rtx\s*8000|rtx\s*8000", "Quadro RTX 8000", 48),
    GpuModel(r"rtx\s*5000\s*ada", "RTX 5000 Ada", 32),
    GpuModel(r"rtx\s*4500\s*ada", "RTX 4500 Ada", 24),
    GpuModel(r"rtx\s*4000\s*ada", "RTX 4000 Ada", 20),
    GpuModel(r"rtx\s*2000e?(?:\s*ada)?", "RTX 2000 Ada", 16),
    GpuModel(r"rtx\s*6000", "RTX 6000 Ada", 48),
    GpuModel(r"(?:rtx\s*)?a6000", "RTX A6000", 48),
    GpuModel(r"(?:rtx\s*)?a5500", "RTX A5500", 24),
    GpuModel(r"(?:rtx\s*)?a5000", "RTX A5000", 24),
    GpuModel(r"(?:rtx\s*)?a4500", "RTX A4500", 20),
    GpuModel(r"(?:rtx\s*)?a4000", "RTX A4000", 16),
    GpuModel(r"h200", "H200", 141),
    GpuModel(r"gh200", "GH200", 96, (144,)),
    GpuModel(r"h100", "H100", 80, (94, 96)),
    GpuModel(r"h800", "H800", 80),
    GpuModel(r"b200", "B200", 180, (192,)),
    GpuModel(r"a100", "A100", 80, (40,)),
    GpuModel(r"a800", "A800", 80, (40,)),
    GpuModel(r"l40s", "L40S", 48),
    GpuModel(r"l40", "L40", 48),
    GpuModel(r"a40", "A40", 48),
    GpuModel(r"a10g", "A10G", 24),
    GpuModel(r"a10", "A10", 24),
    GpuModel(r"l4", "L4", 24),
    GpuModel(r"(?:tesla\s*)?v100", "V100", 16, (32,)),
    GpuModel(r"tesla\s*t4|t4", "T4", 16),
    GpuModel(r"tesla\s*p100|p100", "P100", 16, (12,)),
    GpuModel(r"titan\s*rtx", "Titan RTX", 24),
    GpuModel(r"mi300x", "MI300X", 192),
    GpuModel(r"mi250x?", "MI250", 128),
    # GeForce, newest first.
    GpuModel(r"5090", "RTX 5090", 32),
    GpuModel(r"5080", "RTX 5080", 16),
    GpuModel(r"5070\s*ti", "RTX 5070 Ti", 16),
    GpuModel(r"5070", "RTX 5070", 12),
    GpuModel(r"5060\s*ti", "RTX 5060 Ti", 16, (8,)),
    GpuModel(r"5060", "RTX 5060", 8),
    GpuModel(r"4090\s*d", "RTX 4090 D", 24),
    GpuModel(r"4090", "RTX 4090", 24),
    GpuModel(r"4080\s*super", "RTX 4080 Super", 16),
    GpuModel(r"4080", "RTX 4080", 16),
    GpuModel(r"4070\s*ti\s*super", "RTX 4070 Ti Super", 16),
    GpuModel(r"4070\s*ti", "RTX 4070 Ti", 12),
    GpuModel(r"4070\s*super", "RTX 4070 Super", 12),
    GpuModel(r"4070", "RTX 4070", 12),
    GpuModel(r"4060\s*ti", "RTX 4060 Ti", 16, (8,)),
    GpuModel(r"4060", "RTX 4060", 8),
    GpuModel(r"3090\s*ti", "RTX 3090 Ti", 24),
    GpuModel(r"3090", "RTX 3090", 24),
    GpuModel(r"3080\s*ti", "RTX 3080 Ti", 12),
    GpuModel(r"3080", "RTX 3080", 10, (12,)),
    GpuModel(r"3070\s*ti", "RTX 3070 Ti", 8),
    GpuModel(r"3070", "RTX 3070", 8),
    GpuModel(r"3060\s*ti", "RTX 3060 Ti", 8),
    GpuModel(r"3060", "RTX 3060", 12, (8,)),
    GpuModel(r"3050", "RTX 3050", 8, (6,)),
    GpuModel(r"2080\s*ti", "RTX 2080 Ti", 11),
    GpuModel(r"2080", "RTX 2080", 8),
    GpuModel(r"2070", "RTX 2070", 8),
    GpuModel(r"2060", "RTX 2060", 6, (12,)),
    # "1080" alone is far more often a resolution than a card.
    GpuModel(r"gtx\s*1080\s*ti|1080\s*ti", "GTX 1080 Ti", 11),
    GpuModel(r"gtx\s*1080", "GTX 1080", 8),
    GpuModel(r"gtx\s*1070", "GTX 1070", 8),
    GpuModel(r"7900\s*xtx", "RX 7900 XTX", 24),
    GpuModel(r"7900\s*xt", "RX 7900 XT", 20),
    GpuModel(r"6950\s*xt", "RX 6950 XT", 16),
    GpuModel(r"6900\s*xt", "RX 6900 XT", 16),
)

# Brand words that may precede the model ("NVIDIA GeForce RTX 4090"); each is a plain literal, so the
# bounded repetition cannot backtrack badly. As few as possible are taken (lazy): a row whose own
# pattern starts with a brand word ("quadro rtx 6000") is tried before the prefix eats that word and
# leaves the text to a shorter row ("rtx 6000").
_PREFIX = r"(?:(?:nvidia|geforce|rtx|gtx|quadro|tesla|radeon|amd|rx)[\s_-]*){0,3}?"
_ALTERNATION = "|".join(f"(?P<g{i}>{row.pattern})" for i, row in enumerate(GPU_TABLE))
# Not inside a number or a word, and not a step counter, resolution, percentage or decimal.
# Compiled when a known model number first turns up (the case-insensitive table takes milliseconds).
_NAME_RE = LazyPattern(
    rf"(?<![\w.:/]){_PREFIX}(?:{_ALTERNATION})(?![\w%]|\.\d|/\d|x\d)",
    re.IGNORECASE,
)
# A size written right after the name: "3060 12GB", "A100-SXM4-80GB", "4060Ti (16 GB)", "5080 16gb/32gb".
_SIZE_RE = LazyPattern(
    r"[\s_()/,-]{0,3}(?:(?:sxm\d?|pcie|nvl|hbm\d?e?)[\s_-]{0,2})?(\d{1,3})\s?(?:gb|gib|g)(?![a-z])",
    re.IGNORECASE,
)

# Scanning a whole multi-megabyte log for names is wasted work: callers pass lines or prose, and very
# long texts are cut here.
_MAX_SCAN_CHARS = 1_000_000
# Every model number in the table. Trying the full pattern (dozens of alternatives) at every position is
# slow, so the scan first finds a known model number and tries the pattern only in a window around it.
# (The digit runs of the patterns are read with str methods: compiling a regex for this at import
# would cost more than the loop.)
_MODEL_NUMBERS = frozenset(
    number for row in GPU_TABLE for number in "".join(c if c.isdigit() else " " for c in row.pattern).split()
)
# A row without a model number ("Titan RTX") is found from its whole pattern instead.
_NUMBERLESS = "|".join(row.pattern for row in GPU_TABLE if not any(c.isdigit() for c in row.pattern))
_ANCHOR = LazyPattern(r"(?<![\d.:/])\d{1,4}(?![\d./%])|(?i:" + _NUMBERLESS + ")")
# The same anchors when no numberless row is named: only the model numbers among them. A pattern that
# starts with a literal digit is searched from digit to digit (a lookbehind up front would have it try
# every offset), so the check of the character before a match is made in Python.
_MODEL_NUMBER = LazyPattern("(?:" + "|".join(sorted(_MODEL_NUMBERS)) + r")(?![\d./%])")
_NUMBERLESS_LOWER = LazyPattern(_NUMBERLESS)  # the table's patterns are written in lower case
_NUMBERLESS_ANY = LazyPattern(_NUMBERLESS, re.IGNORECASE)
# The characters beyond ASCII that IGNORECASE matches to an ASCII letter (İ ı ſ and the Kelvin sign).
_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
_COUNT_WORDS_BEFORE = frozenset(
    {"step", "steps", "epoch", "epochs", "iteration", "iterations", "iter", "line", "port", "pid", "process"}
    | {"width", "height", "resolution", "size", "batch", "rank", "of", "#", "issue", "pr", "commit", "x"}
)
_COUNT_WORDS_AFTER = frozenset(
    {"step", "steps", "epoch", "epochs", "iterations", "it", "px", "pixels", "images", "files", "samples"}
    | {"mib", "mb", "gib", "kb", "x", "lines", "tokens", "frames"}
)
_WORD_SPLIT = LazyPattern(r"[:=#(,\[]")
_BEFORE = 40  # room for "NVIDIA GeForce RTX " and the like
_AFTER = 24  # room for " Ti Super", "-SXM4"


def vram_of_gpu_name(text: str) -> tuple[str, float] | None:
    """The first GPU named in `text` as (canonical name, VRAM in GB), or None when none is named."""
    if not text:
        return None
    scan = text[:_MAX_SCAN_CHARS]
    return _first_named(scan, _anchors(scan))


def vram_of_gpu_names(lines: Sequence[str]) -> list[tuple[str, float] | None]:
    """`[vram_of_gpu_name(line) for line in lines]`, with the model numbers of all the lines looked for
    in one scan: only the lines that hold one are read on their own."""
    scans = [line[:_MAX_SCAN_CHARS] for line in lines]
    joined = "\n".join(scans)
    if _names_numberless(joined):
        return [vram_of_gpu_name(line) for line in lines]  # rare: a Titan RTX in the lines
    starts: list[int] = []
    at = 0
    for scan in scans:
        starts.append(at)
        at += len(scan) + 1
    found: list[tuple[str, float] | None] = [None] * len(lines)
    # A model number never spans the line feed between two lines, and every one that starts a number
    # in a line is found here too (the scan cannot be inside an earlier number there). The tests of
    # `_anchors` and `_first_named` sort out the rest: the line feed before a line's first character
    # passes where the start of the line does.
    flagged = set()
    for match in _MODEL_NUMBER.get().finditer(joined):
        at = match.start()
        before = joined[at - 1] if at else "\n"
        if before.isdecimal() or before in ".:/" or (len(match.group()) < 4 and not before.isalpha()):
            continue
        flagged.add(bisect.bisect_right(starts, at) - 1)
    for index in flagged:
        found[index] = vram_of_gpu_name(lines[index])
    return found


def _names_numberless(scan: str) -> bool:
    """Does `scan` name a row without a model number? (The patterns have no anchors or lookarounds: a
    match inside one line of a text is a match in the whole text.)"""
    if _NUMBERLESS_LOWER.get().search(scan.lower()) is not None:
        return scan.isascii() or _NUMBERLESS_ANY.search(scan) is not None
    # Lower-casing finds every case of the rows' ASCII letters (blanks and digits have no case); only
    # a text with one of the few other letters that IGNORECASE takes for them needs the slow search.
    return (
        not scan.isascii()
        and any(c in scan for c in _FOLDS_TO_ASCII)
        and _NUMBERLESS_ANY.search(scan) is not None
    )


def _anchors(scan: str) -> Iterator[re.Match[str]]:
    """The matches of `_ANCHOR` in `scan` that can start a name: all of them when a numberless row is
    named (rare), else only the model numbers, found without trying every offset."""
    if _names_numberless(scan):
        yield from _ANCHOR.finditer(scan)
        return
    for match in _MODEL_NUMBER.get().finditer(scan):
        at = match.start()
        # `_ANCHOR`'s lookbehind: a match inside a longer number, a decimal or a path is none.
        if at == 0 or not (scan[at - 1].isdecimal() or scan[at - 1] in ".:/"):
            yield match


def _first_named(scan: str, anchors: Iterator[re.Match[str]]) -> tuple[str, float] | None:
    """The first GPU named at one of `anchors` (matches of `_ANCHOR`, or the model numbers among them)."""
    for anchor in anchors:
        at = anchor.start()
        found = anchor.group()
        if found[0].isdigit() and (
            found not in _MODEL_NUMBERS or (len(found) < 4 and not (at and scan[at - 1].isalpha()))
        ):
            continue  # short model numbers only exist glued to a letter: A100, L40S, T4
        for match in _NAME_RE.finditer(scan, max(0, at - _BEFORE), anchor.end() + _AFTER):
            if match.start() <= at < match.end() and match.lastgroup is not None:
                if match.group().isdigit() and _counts_something(scan, match.start(), match.end()):
                    break
                return _with_size(scan, match.end(), GPU_TABLE[int(match.lastgroup[1:])])
    return None


def _counts_something(scan: str, start: int, end: int) -> bool:
    """A bare number next to words that make it a count or a size ("step 3090", "2080 steps")."""
    before = scan[max(0, start - 24) : start].split()
    after = scan[end : end + 24].split()
    pieces = [piece for piece in _WORD_SPLIT.get().split(before[-1]) if piece] if before else []
    word_before = pieces[-1].lower() if pieces else ("#" if before and before[-1].endswith("#") else "")
    word_after = after[0].strip(".,:;)").lower() if after else ""
    return word_before in _COUNT_WORDS_BEFORE or word_after in _COUNT_WORDS_AFTER


def _with_size(scan: str, end: int, row: GpuModel) -> tuple[str, float]:
    gb = row.gb
    size = _SIZE_RE.match(scan, end)
    if size is not None and float(size.group(1)) in row.sizes:
        gb = float(size.group(1))
    return row.name, float(gb)
