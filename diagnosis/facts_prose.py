"""Hints in the user's own words: what each rule listens for (its `words`), and what every stage may
read: an out-of-memory or a killed process reported, gradient checkpointing named, the phase, buckets,
a VRAM size, the device.

The patterns are data: the rules' own lists next to each rule (`RuleSpec.words`), the shared ones in
`data/prose.yaml`. What is found here only ever backs a finding as the user's statement ("user"
evidence), never as a measured fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from diagnosis.datafile import data_file
from diagnosis.families import Family, family_from_words, first_line_naming_a_model
from diagnosis.models import Phase
from diagnosis.record import Record, field
from diagnosis.rules import WORDS

# A user's own words are a few lines; past these caps a "prose" is pasted material, and scanning all
# of it would only cost time.
_MAX_PROSE_CHARS = 64 * 1024
_MAX_LINES = 2_000
_MAX_LINE_CHARS = 2_000
_QUOTE_CHARS = 200


class _Patterns(NamedTuple):
    gc_words: tuple[re.Pattern[str], ...]
    device: re.Pattern[str]
    phase: tuple[tuple[Phase, tuple[re.Pattern[str], ...]], ...]
    says_oom: tuple[re.Pattern[str], ...]
    host_killed: tuple[re.Pattern[str], ...]
    vram_words: tuple[re.Pattern[str], ...]
    buckets: re.Pattern[str]
    # The two single patterns as groups of one (a group is known by its id: these stay the same).
    device_group: tuple[re.Pattern[str], ...]
    buckets_group: tuple[re.Pattern[str], ...]
    said: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]
    gpu_words: tuple[re.Pattern[str], ...]
    system_ram: tuple[re.Pattern[str], ...]
    swap: tuple[re.Pattern[str], ...]
    os: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]
    report_problem: tuple[re.Pattern[str], ...]
    report_context: tuple[re.Pattern[str], ...]


# Characters that IGNORECASE matches with an ASCII letter although str.lower() does not give that
# letter: dotted capital I (lower() gives two characters), dotless i, long s, the Kelvin sign.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _fold(text: str) -> str:
    """Text in which every literal a case-insensitive pattern matches appears in lower case."""
    if text.isascii():
        return text.lower()  # none of the four characters: the table changes nothing
    # translate() looks every character up in the table: only a text holding one of them needs it.
    if "\u0130" in text or "\u0131" in text or "\u017f" in text or "\u212a" in text:
        text = text.translate(_FOLD)
    return text.lower()


def _caseless_safe(code: int) -> bool:
    char = chr(code)
    return char.isascii() or char.lower() == char == char.upper()


def _needs_of(items: list[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """Literal strings one of which every match must contain (folded), or None when there is none.

    Reads the pattern's parse tree: a run of literals in sequence is needed, and so is one of a
    branch's alternatives when each alternative needs one. The option whose shortest string is
    longest wins (it rules out the most texts).
    """
    best: tuple[str, ...] | None = None

    def consider(option: tuple[str, ...] | None) -> None:
        nonlocal best
        if option and all(option) and (best is None or min(map(len, option)) > min(map(len, best))):
            best = option

    run: list[str] = []
    for op, av in [*items, (None, None)]:
        if op is sre_constants.LITERAL and _caseless_safe(av):
            run.append(chr(av))
            continue
        if run:
            consider((_fold("".join(run)),))
            run = []
        if op is sre_constants.BRANCH:
            alternatives = [_needs_of(list(branch)) for branch in av[1]]
            if all(alternatives):
                consider(tuple(s for alt in alternatives if alt for s in alt))
        elif op is sre_constants.SUBPATTERN:
            consider(_needs_of(list(av[3])))
    return best


@cache  # the patterns are compiled once, so each is parsed once
def _needs(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    try:
        return _needs_of(list(sre_parser.parse(pattern.pattern, pattern.flags)))
    except Exception:  # a private module's shape changed: no shortcut, the pattern is simply tried
        return None


def _compile(rows: list[Any]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(str(r), re.IGNORECASE) for r in rows)


@cache
def _patterns() -> _Patterns:
    raw = data_file("prose.yaml")
    values = sorted((int(v) for v in raw["bucket_values"]), reverse=True)
    number = "(?:" + "|".join(str(v) for v in values) + ")"
    joiner = r"(?:\s{0,3}(?:,|、|/|&|\band\b|\bor\b|と|や)?\s{0,3})"
    # keyword, a few words that are not digits, then numbers joined by commas / "and" / 「と」.
    buckets = re.compile(
        rf"{raw['bucket_words']}[^\d\n]{{0,24}}((?<!\d){number}(?!\d)(?:{joiner}(?<!\d){number}(?!\d)){{0,7}})",
        re.IGNORECASE,
    )
    device = re.compile(str(raw["device"]), re.IGNORECASE)
    return _Patterns(
        gc_words=_compile(raw["gc_words"]),
        device=device,
        phase=tuple((Phase(k), _compile(v)) for k, v in raw["phase"].items()),
        says_oom=_compile(raw["says_oom"]),
        host_killed=_compile(raw["host_killed"]),
        vram_words=_compile(raw["vram_words"] + raw["vram_card_words"]),
        buckets=buckets,
        device_group=(device,),
        buckets_group=(buckets,),
        # The rules' own word lists (RuleSpec.words), by "<rule id>.<list>", and the shared ones, by
        # "words.<list>".
        said=tuple((key, _compile(list(patterns))) for key, patterns in WORDS)
        + tuple((f"words.{key}", _compile(patterns)) for key, patterns in raw["words"].items()),
        gpu_words=_compile(raw["gpu_words"]),
        system_ram=_compile(raw["system_ram"]),
        swap=_compile(raw["swap"]),
        os=tuple((name, _compile(patterns)) for name, patterns in raw["os"].items()),
        report_problem=_compile(raw["report_problem"]),
        report_context=_compile(raw["report_context"]),
    )


class _Index(NamedTuple):
    needs: dict[int, tuple[str, ...] | None]  # by pattern id: its needed literals
    literals: frozenset[str]  # all of those literals together
    ascii_literals: frozenset[str]  # those of them in ASCII (the only ones an ASCII text can hold)
    # By literal: the groups (by id) and the places in them of the patterns that need it.
    groups_of: dict[str, tuple[tuple[int, int], ...]]
    # By group id: the places of the patterns that need no literal (they are always tried).
    always: dict[int, tuple[int, ...]]


@cache
def _index() -> _Index:
    """Every pattern's needed literals, and the groups that each literal makes live. Keyed by id:
    hashing a compiled pattern hashes its whole program, every time (the patterns and the groups live
    as long as the cached `_patterns()`, so their ids stay theirs)."""
    p = _patterns()
    groups = [p.says_oom, p.host_killed, p.vram_words, p.device_group, p.buckets_group, p.gc_words]
    groups += [patterns for _, patterns in p.said]
    groups += [patterns for _, patterns in p.phase]
    groups += [p.gpu_words, p.system_ram, p.swap, p.report_problem, p.report_context]
    groups += [patterns for _, patterns in p.os]
    needs = {id(pattern): _needs(pattern) for group in groups for pattern in group}
    groups_of: dict[str, list[tuple[int, int]]] = {}
    always: dict[int, tuple[int, ...]] = {}
    for group in groups:
        for place, pattern in enumerate(group):
            found = needs[id(pattern)]
            if found is None:
                always[id(group)] = (*always.get(id(group), ()), place)
                continue
            for literal in found:
                groups_of.setdefault(literal, []).append((id(group), place))
    literals = frozenset(literal for found in needs.values() if found for literal in found)
    ascii_literals = frozenset(literal for literal in literals if literal.isascii())
    return _Index(needs, literals, ascii_literals, {k: tuple(v) for k, v in groups_of.items()}, always)


class ProseHints(Record):
    """What the user's words say."""

    # What each rule's word list heard: "<rule id>.<list>" → the line that says so, as a quote.
    said: dict[str, str] = field(default_factory=dict)
    gc_words: str | None = None
    device_index: int | None = None
    device_quote: str | None = None
    phase: Phase | None = None
    phase_quote: str | None = None
    says_oom: str | None = None
    host_killed: str | None = None
    vram_gib: float | None = None
    vram_quote: str | None = None
    buckets: list[int] = field(default_factory=list)
    buckets_quote: str | None = None
    gpu_number: str | None = None  # a card named by its number alone ("5090", "4070 Ti")
    gpu_quote: str | None = None
    system_ram_gib: float | None = None
    system_ram_quote: str | None = None
    swap_gib: float | None = None
    swap_quote: str | None = None
    os: str | None = None  # "windows", "wsl", "linux", "macos"
    os_quote: str | None = None
    family_words: str | None = None  # the words that name the model ("FLUX.1-dev")
    family: Family | None = None  # the family those words name
    # A problem and the trainer's world, both named: the words are a request for help.
    report_problem: str | None = None
    report_context: str | None = None
    family_quote: str | None = None


def _lines(text: str) -> list[str]:
    return [line[:_MAX_LINE_CHARS] for line in text[:_MAX_PROSE_CHARS].splitlines()[:_MAX_LINES]]


def _quote(line: str) -> str:
    line = line.strip()
    return line if len(line) <= _QUOTE_CHARS else line[: _QUOTE_CHARS - 1] + "…"


class _Prose:
    """The prose's lines, and a folded copy that rules out most patterns before any line is tried.

    Trying ~50 case-insensitive patterns on every line costs far more than one `in` test per
    pattern on the folded text; a pattern whose needed literals are all absent cannot match a line.
    The same holds line by line: the patterns left are tried only on the lines holding one of their
    literals. Every diagnosis reads the user's words, so this serves the README's corpus-config and
    bot round-trip figures.
    """

    def __init__(self, text: str) -> None:
        self.lines = _lines(text)
        self.folded = _fold("\n".join(self.lines))
        index = _index()
        self.needs = index.needs
        # Each needed literal is looked for once, not once for every pattern that needs it.
        folded = self.folded
        pool = index.ascii_literals if folded.isascii() else index.literals
        self.present = {literal for literal in pool if literal in folded}
        self.lines_with: dict[str, set[int]] = {literal: set() for literal in self.present}
        # Folding works character by character (the one letter whose lower case depends on its
        # neighbours, a final sigma, stops at a line feed), so the folded text's lines are the lines
        # folded (tests/test_speed_cconfig_prose.py).
        for number, line in enumerate(folded.split("\n") if self.present else ()):
            for literal in self.present:
                if literal in line:
                    self.lines_with[literal].add(number)
        # The places of the patterns that can match (one of their needed literals is present, or they
        # need none), group by group, found from the present literals alone (a group that no present
        # literal names has none: most groups, most times).
        places: dict[int, set[int]] = {key: set(at) for key, at in index.always.items()}
        for literal in self.present:
            for key, place in index.groups_of[literal]:
                places.setdefault(key, set()).add(place)
        self.places = places

    def live(self, patterns: Sequence[re.Pattern[str]]) -> list[re.Pattern[str]]:
        """The patterns of a group (one of `_index()`'s) that can match this text, in their order."""
        at = self.places.get(id(patterns))
        return [patterns[place] for place in sorted(at)] if at else []

    def lines_for(self, patterns: Sequence[re.Pattern[str]]) -> list[int]:
        """The indexes of the lines, in order, where one of `patterns` can match: those holding one of
        a pattern's needed literals (every line for a pattern that needs none)."""
        found: set[int] = set()
        for pattern in patterns:
            needs = self.needs[id(pattern)]
            if needs is None:
                return list(range(len(self.lines)))
            for literal in needs:
                found.update(self.lines_with.get(literal, ()))
        return sorted(found)


def _first(prose: _Prose, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    live = prose.live(patterns)
    for index in prose.lines_for(live) if live else ():
        line = prose.lines[index]
        if any(p.search(line) for p in live):
            return _quote(line)
    return None


def _number(prose: _Prose, patterns: tuple[re.Pattern[str], ...]) -> tuple[str, str] | None:
    """The first group of the first pattern that matches, on the first line where one does, with the
    line as a quote."""
    live = prose.live(patterns)
    for index in prose.lines_for(live) if live else ():
        line = prose.lines[index]
        for pattern in live:
            match = pattern.search(line)
            if match:
                return match.group(1), _quote(line)
    return None


def read_prose(text: str) -> ProseHints:
    if not text.strip():
        return ProseHints()  # nothing said: no pattern is even compiled
    pats = _patterns()
    prose = _Prose(text)
    lines = prose.lines
    hints = ProseHints(
        gc_words=_first(prose, pats.gc_words),
        says_oom=_first(prose, pats.says_oom),
        host_killed=_first(prose, pats.host_killed),
    )
    for key, patterns in pats.said:
        quote = _first(prose, patterns)
        if quote is not None:
            hints.said[key] = quote
    for phase, patterns in pats.phase:
        quote = _first(prose, patterns)
        if quote is not None:
            hints.phase, hints.phase_quote = phase, quote
            break
    found = _number(prose, pats.vram_words)
    if found is not None:
        hints.vram_gib, hints.vram_quote = float(found[0]), found[1]
    found = _number(prose, pats.gpu_words)
    if found is not None:
        hints.gpu_number, hints.gpu_quote = " ".join(found[0].split()), found[1]
    found = _number(prose, pats.system_ram)
    if found is not None:
        hints.system_ram_gib, hints.system_ram_quote = float(found[0]), found[1]
    found = _number(prose, pats.swap)
    if found is not None:
        hints.swap_gib, hints.swap_quote = float(found[0]), found[1]
    for name, patterns in pats.os:
        quote = _first(prose, patterns)
        if quote is not None:
            hints.os, hints.os_quote = name, quote
            break
    hints.report_problem = _first(prose, pats.report_problem)
    hints.report_context = _first(prose, pats.report_context)
    line = first_line_naming_a_model(lines)
    named = family_from_words(line) if line is not None else None
    if line is not None and named is not None:
        hints.family, hints.family_words, hints.family_quote = named[0], named[1], _quote(line)
    device = prose.live(pats.device_group)
    for index in prose.lines_for(device) if device else ():
        for match in pats.device.finditer(lines[index]):
            hints.device_index, hints.device_quote = int(match.group(1)), _quote(lines[index])
    buckets = prose.live(pats.buckets_group)
    for index in prose.lines_for(buckets) if buckets else ():
        line = lines[index]
        named_buckets = pats.buckets.search(line)
        if named_buckets:
            hints.buckets = sorted({int(n) for n in re.findall(r"\d+", named_buckets.group(1))})
            hints.buckets_quote = _quote(line)
            break
    return hints


# --------------------------------------------------------------------------------------------------
# A problem reported in words (facts.reports_problem), and the screen that rules it out for chat


# `said` keys that report a problem on their own: what happened (slow, stuck, exited). Every rule's
# list counts too; the other shared lists (a direct question, "no error") do not.
_SYMPTOMS = frozenset({"words.slow", "words.stuck", "words.exits"})


def _names_a_problem(key: str) -> bool:
    return key in _SYMPTOMS or not key.startswith("words.")


def reported_problem(hints: ProseHints) -> str | None:
    """The quote of a problem the words report (a problem word, a symptom, or what a rule listens
    for), when they also name the trainer's world: a problem word alone is chat ("lol my gpu is on
    fire"). Auto mode answers such words without a config or a log."""
    symptom = next((q for key, q in hints.said.items() if _names_a_problem(key)), None)
    problem = hints.report_problem or symptom
    context = hints.report_context or hints.family_words or hints.gpu_number
    return problem if problem is not None and context is not None else None


class _Gate(NamedTuple):
    """A set of patterns, and the literals that let one of them match (see `_needs`)."""

    patterns: tuple[re.Pattern[str], ...]  # every pattern: all are tried when one needs no literal
    needs_none: bool
    literals: tuple[str, ...]  # every literal one of the patterns needs
    ascii_literals: tuple[str, ...]  # those of them that an ASCII text can hold
    live: dict[str, tuple[re.Pattern[str], ...]]  # by literal: the patterns that need it


def _gate(patterns: Sequence[re.Pattern[str]]) -> _Gate:
    needs = _index().needs
    live: dict[str, list[re.Pattern[str]]] = {}
    for pattern in patterns:
        for literal in needs[id(pattern)] or ():
            live.setdefault(literal, []).append(pattern)
    return _Gate(
        tuple(patterns),
        any(needs[id(pattern)] is None for pattern in patterns),
        tuple(live),
        tuple(literal for literal in live if literal.isascii()),
        {literal: tuple(group) for literal, group in live.items()},
    )


class _Screen(NamedTuple):
    problem: _Gate  # the hints that name a problem (`reported_problem`)
    context: _Gate  # those that name the trainer's world, but the model's name (families)


@cache
def _screen() -> _Screen:
    p = _patterns()
    problem = [
        *p.report_problem,
        *(pattern for key, group in p.said if _names_a_problem(key) for pattern in group),
    ]
    return _Screen(_gate(problem), _gate([*p.report_context, *p.gpu_words]))


def _matches(gate: _Gate, lines: Sequence[str], folded: str) -> bool:
    """Does a pattern of `gate` match one of `lines` (`folded`: them, joined and folded)?"""
    if gate.needs_none:
        live: Sequence[re.Pattern[str]] = gate.patterns
    else:
        # One substring test a literal, as `_Prose` makes them: a regex alternation of the literals
        # costs more (it tries every literal's first letter at every place).
        pool = gate.ascii_literals if folded.isascii() else gate.literals
        live = list(dict.fromkeys(p for literal in pool if literal in folded for p in gate.live[literal]))
    return any(pattern.search(line) for pattern in live for line in lines)


def may_report_problem(text: str) -> bool:
    """False only when `reported_problem(read_prose(text))` is None for sure; much cheaper than
    `read_prose` on chat, which names no problem or no context: the same patterns, tried only where
    their needed literals are (as `read_prose` tries them), the problem's first."""
    if not text.strip():
        return False
    lines = _lines(text)
    folded = _fold("\n".join(lines))
    screen = _screen()
    if not _matches(screen.problem, lines, folded):
        return False
    if _matches(screen.context, lines, folded):
        return True
    line = first_line_naming_a_model(lines)
    return line is not None and family_from_words(line) is not None
