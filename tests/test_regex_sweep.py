r"""Every regular expression of the engine, fed inputs built from its own structure, stays linear.

The patterns: every compiled pattern and `LazyPattern` at module level in `diagnosis` (also inside
tuples, lists and dicts there), the data files' patterns (prose.yaml as facts_prose compiles them,
families.yaml's variant, name and word patterns), every rule's `words`, and the patterns of the
detect-secrets plugins that the output gate runs.

The inputs, read off each pattern's parse tree (`re._parser`), up to 1 MB each: a run of each
character its classes and literals accept; long repeats of its literal strings, whole and cut short
by one character (a near miss that makes a pattern read far and fail); each quote or bracket it
contains left unclosed once before a long run, and many times over; escape runs (a backslash before
each quote, and backslashes alone). A pattern that backtracks or rereads the text from every start
turns one of these into seconds or hours; a linear one takes milliseconds.

The bound. Tests must not assert wall-clock times, and this machine is shared and noisy, so each
search is compared with a plain linear scan of the same input measured in the same test a moment
before: a search of a pattern that cannot match there (`(?!)` never matches, so the engine visits every
position once). A linear pattern costs a constant number of such visits per character: the engine's
own patterns measure up to about 170 (a bounded count retried at each digit, `\d{1,20}`); a pattern
that rereads the text costs about as many times more as the characters it rereads, a thousand and
more for a bounded reread (`[^”]{0,2000}` after every “) and growing with the length for a quadratic
one. So the bound is a ratio, `RATIO` (500×), well above the first and far below the second.
Load on the shared cores slows the search or the baseline by a few times at worst, not hundreds: the
baseline is the fastest of three runs, and a search over the bound is run again and judged by its
faster run, while a real reread is over the bound every time.

Each input is tried at 16 characters first (a pattern that backtracks exponentially is over the
bound there already, and would never finish at 4 KB), then grows from 4 KB towards 1 MB, four times
each step, and stops at the first size over the bound, or as soon as its ratio has stopped growing
(at most GROWTH times the size before). A pattern that rereads the text costs more per character as
the text grows, so its ratio keeps growing until it is over the bound (a bounded reread as soon as the
text is longer than the bound); a linear one is flat and stops after two sizes. So a reread is caught
in a fraction of a second instead of running for minutes at 1 MB, and the whole sweep, some 260
patterns, takes a few seconds.

`python -m tests.test_regex_sweep PATTERN…` sweeps the patterns given (used to show that the sweep
catches intake's former `_JSON_TOKEN` and `_QUOTED`).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
import time
from collections.abc import Callable, Iterator
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from diagnosis.lazyre import LazyPattern

RATIO = 500
SIZES = (1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20)
GROWTH = 2.0
# Tried first: an exponential pattern is over the bound here, where 4 KB would never finish.
TINY = 16
# Quotes and brackets: a pattern holding one is fed it unclosed.
OPENERS = "\"'`\u201c\u2018([{<"
# What a negated class is most likely not to exclude, in order.
FILLERS = "a0 .x\u00e9"
_CATEGORY = {
    sre_constants.CATEGORY_DIGIT: "0",
    sre_constants.CATEGORY_NOT_DIGIT: "a",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: "a",
    sre_constants.CATEGORY_WORD: "a",
    sre_constants.CATEGORY_NOT_WORD: " ",
}


# --------------------------------------------------------------------------------------------------
# The patterns


def _patterns_in(value: Any, label: str, depth: int = 0) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, LazyPattern):
        value = value.get()
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield label, value
        return
    if depth >= 3:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _patterns_in(item, f"{label}[{key!r}]", depth + 1)
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from _patterns_in(item, f"{label}[{i}]", depth + 1)


_UNANCHORED = {"search", "finditer", "findall", "sub", "subn", "split"}


def _anchored(source: str, attr: str) -> bool:
    """Does the module only ever match `attr` at a given position (match, fullmatch)? A pattern kept
    in a table, or passed on, counts as searched."""
    used = set(re.findall(rf"\b{re.escape(attr)}(?:\.get\(\))?\.(\w+)\(", source))
    return bool(used) and not used & _UNANCHORED and "get" not in used


def module_patterns() -> Iterator[tuple[str, re.Pattern[str], bool]]:
    import diagnosis

    names = ["diagnosis", *(m.name for m in pkgutil.walk_packages(diagnosis.__path__, prefix="diagnosis."))]
    for name in names:
        module = importlib.import_module(name)
        source = inspect.getsource(module)
        for attr, value in vars(module).items():
            for label, pattern in _patterns_in(value, f"{name}.{attr}"):
                yield label, pattern, _anchored(source, attr)


def data_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    from diagnosis import facts_prose, families

    yield from _patterns_in(tuple(facts_prose._patterns()), "prose.yaml")
    table = families.table()
    for family, variants in table.variants.items():
        for variant in variants:
            yield f"families.yaml variant {family}", families._name_pattern(variant.pattern)
    for kind, rows in (("name_hints", table.name_hints), ("word_hints", table.word_hints)):
        for pattern, _ in rows:
            yield f"families.yaml {kind}", families._name_pattern(pattern)


def rule_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    from diagnosis.rules import catalogue

    for spec in catalogue():
        for name, patterns in spec.words.items():
            for pattern in patterns:
                # As the facts stage compiles them: case-insensitive, one line at a time.
                yield f"{spec.id}.words.{name}", re.compile(pattern, re.IGNORECASE)


def library_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """The patterns of the detect-secrets plugins that the output gate runs (diagnosis.outgate.library)
    on every outgoing line that could hold a token: they read what leaves, so they are held to the same
    bound as the engine's own."""
    from diagnosis.outgate import library

    for plugin, _ in library._plugins():
        for i, pattern in enumerate(getattr(plugin, "denylist", ())):
            yield f"detect-secrets {type(plugin).__name__}[{i}]", pattern


class Probe(NamedTuple):
    label: str
    pattern: re.Pattern[str]
    anchored: bool  # matched at a position only (match, fullmatch): probed with match


def all_patterns() -> list[Probe]:
    """Every pattern once (the data files' and the rules' are searched, a line at a time)."""
    found = [
        *module_patterns(),
        *(
            (label, pattern, False)
            for label, pattern in [*data_patterns(), *rule_patterns(), *library_patterns()]
        ),
    ]
    seen: set[tuple[str, int, bool]] = set()
    out: list[Probe] = []
    for label, pattern, anchored in found:
        key = (pattern.pattern, pattern.flags, anchored)
        if key not in seen:
            seen.add(key)
            out.append(Probe(label, pattern, anchored))
    return out


# --------------------------------------------------------------------------------------------------
# The inputs


class Shape:
    """What a pattern's parse tree says about the text it reads."""

    def __init__(self) -> None:
        self.chars: list[str] = []  # characters its classes and literals accept
        self.literals: list[str] = []  # runs of literal characters
        self.openers: list[str] = []  # quotes and brackets it holds

    def char(self, c: str) -> None:
        if c not in self.chars:
            self.chars.append(c)
        if c in OPENERS and c not in self.openers:
            self.openers.append(c)


def _class_chars(items: list[tuple[Any, Any]]) -> tuple[list[str], bool]:
    """(characters named by a class's items, negated?)"""
    chars: list[str] = []
    negated = False
    for op, av in items:
        if op is sre_constants.NEGATE:
            negated = True
        elif op is sre_constants.LITERAL:
            chars.append(chr(av))
        elif op is sre_constants.RANGE:
            chars += [chr(av[0]), chr(av[1])]
        elif op is sre_constants.CATEGORY and av in _CATEGORY:
            chars.append(_CATEGORY[av])
    return chars, negated


def _walk(tree: Any, shape: Shape) -> None:
    run = ""
    for op, av in tree:
        if op is sre_constants.LITERAL:
            run += chr(av)
            shape.char(chr(av))
            continue
        if len(run) > 1:
            shape.literals.append(run)
        run = ""
        if op is sre_constants.IN:
            chars, negated = _class_chars(av)
            if negated:
                excluded = set(chars)
                chars = [c for c in FILLERS if c not in excluded][:1]
                for c in excluded & set(OPENERS):
                    shape.char(c)  # a class that stops at a quote: the quote opens something
            for c in chars[:4]:
                shape.char(c)
        elif op is sre_constants.NOT_LITERAL:
            shape.char(next(c for c in FILLERS if c != chr(av)))
            if chr(av) in OPENERS:
                shape.char(chr(av))
        elif op is sre_constants.ANY:
            shape.char("a")
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
            _walk(av[2], shape)
        elif op is sre_constants.SUBPATTERN:
            _walk(av[3], shape)
        elif op in (sre_constants.ATOMIC_GROUP,):
            _walk(av, shape)
        elif op is sre_constants.BRANCH:
            for branch in av[1]:
                _walk(branch, shape)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            _walk(av[1], shape)
    if len(run) > 1:
        shape.literals.append(run)


def shape_of(pattern: re.Pattern[str]) -> Shape:
    shape = Shape()
    _walk(sre_parser.parse(pattern.pattern, pattern.flags), shape)
    return shape


def inputs(pattern: re.Pattern[str]) -> list[tuple[str, Callable[[int], str]]]:
    """(label, size → text) of the adversarial inputs for `pattern`."""
    shape = shape_of(pattern)
    fill = shape.chars[0] if shape.chars else "a"
    out: list[tuple[str, Callable[[int], str]]] = []

    def repeat(unit: str) -> Callable[[int], str]:
        return lambda size: unit * max(1, size // len(unit))

    for c in shape.chars[:8]:
        out.append((f"run of {c!r}", repeat(c)))
    literals = sorted(set(shape.literals), key=len, reverse=True)[:4]
    for literal in literals:
        out.append((f"repeats of {literal[:20]!r}", repeat(literal)))
        out.append((f"repeats of {literal[:-1][:20]!r}…", repeat(literal[:-1] + " ")))
    for opener in shape.openers[:4]:
        out.append((f"{opener!r} unclosed before a run", lambda size, o=opener: o + fill * size))
        out.append((f"{opener!r} unclosed, many", repeat(opener + fill)))
        out.append((f"{opener!r} only", repeat(opener)))
        out.append((f"escaped {opener!r}", lambda size, o=opener: o + ("\\" + o) * (size // 2)))
    if "\\" in shape.chars or shape.openers:
        out.append(("backslashes", repeat("\\")))
    return out


# --------------------------------------------------------------------------------------------------
# The measure


_NOTHING = re.compile(r"(?!)")
_baselines: dict[str, float] = {}


def _timed(search: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    search(text)
    return time.perf_counter() - start


def baseline(text: str) -> float:
    """The time of the engine visiting every position of `text` once (the fastest of three runs)."""
    key = f"{len(text)}:{text[:8]}:{text[-8:]}:{hash(text)}"
    if key not in _baselines:
        _baselines[key] = max(min(_timed(_NOTHING.search, text) for _ in range(3)), 1e-6)
    return _baselines[key]


def ratio(run: Callable[[str], object], text: str) -> float:
    """How many plain scans of `text` one call of `run` costs (the faster of two runs when the first
    is over the bound)."""
    base = baseline(text)
    spent = _timed(run, text)
    if spent / base > RATIO:
        spent = min(spent, _timed(run, text))
    return spent / base


def sweep(pattern: re.Pattern[str], anchored: bool = False) -> list[str]:
    """What goes over the bound for `pattern`: 'input at size: ratio'; empty when nothing does.

    Each input grows until it is over the bound or its cost has stopped growing faster than its
    length (the ratio at four times the size is at most GROWTH times the ratio before): what rereads
    the text costs more per character as the text grows, until it is over the bound.
    """
    run = pattern.match if anchored else pattern.search
    slow: list[str] = []
    for label, build in inputs(pattern):
        before = 0.0
        for size in (TINY, *SIZES):
            text = build(size)
            measured = ratio(run, text)
            if measured > RATIO:
                slow.append(f"{label} at {len(text):,} chars: {measured:,.0f}× a plain scan")
                break
            if size != TINY and before and measured <= GROWTH * before + 1:
                break
            before = measured if size != TINY else 0.0
    return slow


# --------------------------------------------------------------------------------------------------
# The tests


PATTERNS = all_patterns()


def test_the_sweep_covers_every_kind_of_pattern() -> None:
    labels = [probe.label for probe in PATTERNS]
    for expected in (
        "diagnosis.intake._CONFIG_START",  # compiled at import
        "diagnosis.logreader.gpus._NAME_RE",  # a LazyPattern
        "diagnosis.intake._JSON_BODY",  # a scanner's own patterns
        "prose.yaml",
        "families.yaml variant",
        "families.yaml word_hints",
        "not_oom.words.",
        "diagnosis.outgate.shapes._PAIR",  # the output gate's own
        "diagnosis.outgate.shapes._SHAPES",
        "detect-secrets StripeDetector",  # the detector library's plugins that the gate runs
    ):
        assert any(label.startswith(expected) for label in labels), expected
    assert len(PATTERNS) > 100


def test_the_inputs_follow_the_patterns_structure() -> None:
    labels = [label for label, _ in inputs(re.compile(r"\u201c[^\u201d\n]{0,20}\u201d"))]
    assert "'\u201c' unclosed, many" in labels and "run of 'a'" in labels
    labels = [label for label, _ in inputs(re.compile(r"(\d+) Killed"))]
    assert "run of '0'" in labels and "repeats of ' Kille'…" in labels


def test_the_sweep_catches_a_pattern_that_rereads_the_text() -> None:
    # The shapes of intake's former _QUOTED and _JSON_TOKEN, and a classic nested quantifier.
    assert sweep(re.compile(r"\u201c[^\u201d\n]{0,2000}\u201d"))
    assert sweep(re.compile(r'"(?:[^"\\\n]|\\.){0,100000}"|[{}\[\]]'))
    assert sweep(re.compile(r"(\d+)+ Killed"))
    assert not sweep(re.compile(r"\b\d{1,4} ?GB\b|\u201c"))


def test_no_engine_pattern_rereads_its_input() -> None:
    slow = {f"{p.label} /{p.pattern.pattern[:80]}/": sweep(p.pattern, p.anchored) for p in PATTERNS}
    slow = {name: found for name, found in slow.items() if found}
    assert not slow, "\n".join(f"{name}: {'; '.join(found)}" for name, found in slow.items())


def main(argv: list[str]) -> int:
    for text in argv:
        found = sweep(re.compile(text))
        sys.stdout.write(f"/{text}/: " + ("; ".join(found) if found else "within the bound") + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
