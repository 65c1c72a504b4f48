"""Config piece → ConfigDoc: plain data plus a source map from key paths to text spans.

YAML is read through PyYAML's *event* stream (libyaml when available), never through a constructor, and
the plain data is built here. That keeps every decision about hostile input in one place:

- aliases are shared, and each alias adds its anchor's size to a node budget (`max_yaml_nodes`), so an
  alias bomb stops at the budget instead of exploding; a recursive alias becomes None;
- nesting deeper than `max_yaml_depth` becomes None (the event loop is iterative, no recursion);
- duplicate keys: the last one wins (like PyYAML); complex keys (a mapping or list as a key) are skipped;
- tags are never constructed: `!!python/object…` and other unknown tags read as plain values;
- plain scalars resolve like PyYAML's YAML 1.1 resolver plus AI Toolkit's own rule that `1e-4` (an
  exponent without a dot) is a float; timestamps and sexagesimal numbers stay strings;
- a non-string plain key (`1:`, `on:`) is kept as its source text, so key paths hold only str and int;
- merge keys (`<<: *base`) are applied; merged keys get no source entry (they live elsewhere).

JSON (the UI's `.job_config.json` and the process JSON a trainer echoes) is read by a small iterative
scanner that records the same source map; strings are decoded by the stdlib's own scanner.

A root that is not a mapping (a list, a scalar) gives a FRAGMENT whose `data` is that value and no
error: `ConfigDoc.ok` is then False, and nothing downstream treats it as a config.
"""

from __future__ import annotations

import bisect
import math
import re
from _json import scanstring
from collections.abc import Callable
from typing import Any, NamedTuple

import yaml

from diagnosis.config.keys import TRAINER_TYPES, looks_like_config
from diagnosis.lazyre import LazyPattern
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.models import (
    ConfigDoc,
    ConfigError,
    ConfigShape,
    KeyPath,
    Piece,
    PieceKind,
    SourceEntry,
    Span,
    with_text,
)

_FAST_LOADER: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Documents of a multi-document stream that are looked at for the job.
_MAX_DOCUMENTS = 16
# Bounds for re-scanning a text that holds a tab with the pure-Python scanner (see _python_scanner_error).
_PY_SCAN_CHARS = 256 * 1024
_PY_SCAN_BRACKETS = 400

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUES = frozenset({"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSES = frozenset({"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_WORDS: dict[str, bool | None] = {
    **dict.fromkeys(_NULLS),
    **dict.fromkeys(_TRUES, True),
    **dict.fromkeys(_FALSES, False),
}
# YAML 1.1 integers: decimal, binary, octal, hexadecimal (fullmatch tries each alternative). Both
# patterns compile on first use: a config whose numbers are all plain decimals needs neither.
_INT = LazyPattern(r"[-+]?(?:0|[1-9][0-9_]*)|[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?0x[0-9a-fA-F_]+")
_FLOAT = LazyPattern(
    r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"  # AI Toolkit's loader reads `1e-4` as a float
    r"|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
)
# The spellings of infinity and NaN (sets, not patterns: nothing to compile at start-up).
_INFS = frozenset(sign + dot for sign in ("", "-", "+") for dot in (".inf", ".Inf", ".INF"))
_NANS = frozenset({".nan", ".NaN", ".NAN"})
_TAG = "tag:yaml.org,2002:"


def _to_int(text: str) -> int | None:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    try:
        if digits.startswith("0b"):
            return sign * int(digits[2:], 2)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        if len(digits) > 1 and digits.startswith("0"):
            return sign * int(digits, 8)
        return sign * int(digits)
    except ValueError:  # empty after removing "_", or more digits than int() accepts
        return None


def _to_float(text: str) -> float | None:
    if text in _INFS:
        return -math.inf if text.startswith("-") else math.inf
    if text in _NANS:
        return math.nan
    try:
        return float(text.replace("_", ""))
    except ValueError:
        return None


def resolve_plain(text: str) -> Any:
    """The value of a plain (unquoted) YAML scalar, as AI Toolkit's loader would read it."""
    if text in _WORDS:
        return _WORDS[text]
    first = text[0]
    if first not in "-+0123456789.":
        return text
    if (first != "0" or len(text) == 1) and len(text) <= 18 and text.isdigit() and text.isascii():
        return int(text)  # a plain decimal, the commonest number
    # No integer holds a dot, and only a hexadecimal one an "e" (then after "0x").
    could_be_int = "." not in text and ("x" in text or ("e" not in text and "E" not in text))
    if could_be_int and _INT.get().fullmatch(text):
        number = _to_int(text)
        return text if number is None else number
    if _FLOAT.get().fullmatch(text) or text in _INFS or text in _NANS:
        real = _to_float(text)
        return text if real is None else real
    return text


def _scalar_value(value: str, style: str | None, tag: str | None) -> Any:
    plain = not style
    if tag and tag.startswith(_TAG):
        kind = tag[len(_TAG) :]
        if kind == "str":
            return value
        resolved = resolve_plain(value) if value else None
        wanted = {"int": int, "float": float, "bool": bool, "null": type(None)}.get(kind)
        if wanted is float and isinstance(resolved, int) and not isinstance(resolved, bool):
            return float(resolved)
        if wanted is not None and isinstance(resolved, wanted):
            return resolved
        return resolve_plain(value) if plain else value
    if tag == "!":  # the non-specific tag forces a string
        return value
    return resolve_plain(value) if plain else value


# --------------------------------------------------------------------------------------------------
# YAML


def _span(start: Any, end: Any) -> Span:
    return Span(start.line, start.column, end.line, end.column, start.index, end.index)


_NO_SPAN = Span(0, 0, 0, 0, 0, 0)


def _no_span(start: Any, end: Any) -> Span:
    return _NO_SPAN


class _Frame:
    """An open collection of the general builder (a plain class: a dataclass costs start-up)."""

    __slots__ = (
        "anchor", "container", "expecting_value", "flow", "key", "key_span", "kind", "merge", "merges",
        "path", "size", "skip_value", "start",
    )  # fmt: skip

    def __init__(
        self,
        container: dict[str, Any] | list[Any] | None,  # None: the subtree is being skipped
        path: KeyPath,
        start: Any,  # the start mark
        flow: bool,
        anchor: str | None,
        kind: str,  # "mapping" or "sequence"
    ) -> None:
        self.container = container
        self.path = path
        self.start = start
        self.flow = flow
        self.anchor = anchor
        self.kind = kind
        self.size = 1
        self.key: str | None = None
        self.key_span: Span | None = None
        self.expecting_value = False
        self.skip_value = False
        self.merges: list[Any] = []
        self.merge = False  # this collection is the value of a `<<` merge key


class _Stop(Exception):
    """The node budget is spent: keep what was built so far."""


class _YamlBuilder:
    def __init__(self, limits: Limits, mapped: bool = True) -> None:
        self.limits = limits
        # Without a source map (a corrected text checked only for its data) no span is made at all.
        self.mapped = mapped
        self.span = _span if mapped else _no_span
        self.nodes = 0
        self.hits: list[str] = []
        self.source_map: dict[KeyPath, SourceEntry] = {}
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, str, int]] = {}
        self.open_anchors: set[str] = set()
        # An anchored mapping (by identity: aliases share it) → its path, and each key a merge key
        # brought in → where it is written, so that evidence can quote the line that sets it.
        self.anchored_at: dict[int, KeyPath] = {}
        self.merged_from: dict[KeyPath, KeyPath] = {}
        self.root: Any = None
        self.has_root = False
        # A duplicate key or a merge key leaves source entries for paths the data no longer has.
        self.stale = False

    def _hit(self, name: str) -> None:
        if name not in self.hits:
            self.hits.append(name)

    def _count(self, size: int) -> bool:
        self.nodes += size
        if self.nodes > self.limits.max_yaml_nodes:
            self._hit("max_yaml_nodes")
            raise _Stop
        return True

    def _slot(self) -> tuple[KeyPath | None, _Frame | None]:
        """Where the next node goes: its path, or None when it is a key or is skipped."""
        if not self.stack:
            return (), None
        top = self.stack[-1]
        if top.container is None:
            return None, top
        if top.kind == "sequence":
            assert isinstance(top.container, list)
            return (*top.path, len(top.container)), top
        if not top.expecting_value or top.skip_value or top.key is None:
            return None, top
        return (*top.path, top.key), top

    def _place(self, value: Any, kind: str, span: Span, flow: bool, size: int, record: bool = True) -> None:
        """Attach a finished scalar / alias (or register a finished collection) in its parent."""
        path, top = self._slot()
        if top is None:
            if not self.has_root:
                self.root, self.has_root = value, True
                if record and self.mapped:
                    self.source_map[()] = SourceEntry(None, span, kind, flow)
            return
        top.size += size
        if top.container is None:
            return
        if top.kind == "mapping" and not top.expecting_value:
            # This node is a key.
            if kind == "scalar" and isinstance(value, tuple):
                top.key, top.key_span = value[0], span
                top.skip_value = False
            else:
                top.key, top.skip_value = None, True
            top.expecting_value = True
            return
        if top.kind == "mapping":
            top.expecting_value = False
            if top.skip_value or top.key is None or path is None:
                top.skip_value = False
                return
            container = top.container
            assert isinstance(container, dict)
            if top.key == "<<" and top.key_span is not None and kind != "scalar":
                top.merges.append(value)
                self.stale = True
            else:
                self.stale = self.stale or top.key in container
                container[top.key] = value
            if record and self.mapped:
                self.source_map[path] = SourceEntry(top.key_span, span, kind, flow)
            return
        assert isinstance(top.container, list)
        if path is not None:
            top.container.append(value)
            if record and self.mapped:
                self.source_map[path] = SourceEntry(None, span, kind, flow)

    def scalar(self, event: Any) -> None:
        # The commonest event by far: a key or a value in an open mapping is handled here without the
        # general _place (same steps, fewer calls).
        self._count(1)
        span = self.span(event.start_mark, event.end_mark)
        text, style, tag = event.value, event.style, event.tag
        value = _scalar_value(text, style, tag) if tag else (text if style else resolve_plain(text))
        top = self.stack[-1] if self.stack else None
        if top is not None and top.kind == "mapping" and top.container is not None:
            top.size += 1
            if not top.expecting_value:
                # A key: keep non-string plain keys as their source text so paths hold str and int only.
                top.key = value if isinstance(value, str) else text
                top.key_span, top.skip_value, top.expecting_value = span, False, True
                return
            top.expecting_value = False
            key = top.key
            if top.skip_value or key is None:
                top.skip_value = False
            else:
                container = top.container
                assert isinstance(container, dict)
                if key in container:
                    self.stale = True
                container[key] = value
                if self.mapped:
                    self.source_map[(*top.path, key)] = SourceEntry(top.key_span, span, "scalar", top.flow)
            if event.anchor:
                self.anchors[event.anchor] = (value, "scalar", 1)
            return
        self._place(value, "scalar", span, top is not None and top.flow, 1)
        if event.anchor:
            self.anchors[event.anchor] = (value, "scalar", 1)

    def alias(self, event: Any) -> None:
        span = self.span(event.start_mark, event.end_mark)
        flow = bool(self.stack) and self.stack[-1].flow
        if event.anchor not in self.anchors and event.anchor not in self.open_anchors:
            # As PyYAML's composer (and so the trainer) refuses it: the config does not load.
            raise yaml.composer.ComposerError(
                None, None, f"found undefined alias {event.anchor!r}", event.start_mark
            )
        found = self.anchors.get(event.anchor) if event.anchor not in self.open_anchors else None
        if found is None:
            self._count(1)
            self._place(None, "scalar", span, flow, 1)
            return
        value, kind, size = found
        self._count(size)
        top = self.stack[-1] if self.stack else None
        if top is not None and top.kind == "mapping" and not top.expecting_value:
            if kind == "scalar" and isinstance(value, str):
                self._place((value,), "scalar", span, flow, 1)
            else:
                self._place(value, kind, span, flow, size)  # a complex key: skipped
            return
        self._place(value, kind, span, flow, size)

    def start(self, event: Any, kind: str) -> None:
        self._count(1)
        path, top = self._slot()
        container: dict[str, Any] | list[Any] | None
        if path is None:
            container = None  # a complex key or a skipped subtree
        elif len(self.stack) >= self.limits.max_yaml_depth:
            self._hit("max_yaml_depth")
            container = None
        else:
            container = {} if kind == "mapping" else []
        merge = top is not None and top.kind == "mapping" and top.key == "<<" and path is not None
        if container is not None and path is not None and not merge:
            # Attach now so that a partial tree survives when the node budget runs out.
            if top is None:
                self.root, self.has_root = container, True
            elif isinstance(top.container, dict) and top.key is not None:
                self.stale = self.stale or top.key in top.container
                top.container[top.key] = container
            elif isinstance(top.container, list):
                top.container.append(container)
        if event.anchor:
            self.open_anchors.add(event.anchor)
        flow = bool(event.flow_style) or (bool(self.stack) and self.stack[-1].flow)
        frame = _Frame(
            container, path if path is not None else (), event.start_mark, flow, event.anchor, kind
        )
        frame.merge = merge
        self.stale = self.stale or merge
        self.stack.append(frame)

    def end(self, event: Any) -> None:
        frame = self.stack.pop()
        if frame.anchor:
            self.open_anchors.discard(frame.anchor)
        if isinstance(frame.container, dict):
            for merged in frame.merges:
                for source in merged if isinstance(merged, list) else [merged]:
                    if isinstance(source, dict):
                        origin = self.anchored_at.get(id(source))
                        for key, value in source.items():
                            if key not in frame.container and origin is not None and self.mapped:
                                self.merged_from[(*frame.path, key)] = (*origin, key)
                            frame.container.setdefault(key, value)
        if frame.anchor and frame.container is not None:
            self.anchors[frame.anchor] = (frame.container, frame.kind, frame.size)
            if frame.kind == "mapping":
                self.anchored_at[id(frame.container)] = frame.path
        span = self.span(frame.start, event.end_mark)
        top = self.stack[-1] if self.stack else None
        if frame.container is None:
            # A skipped or too deep subtree reads as None (a skipped key is dropped by _place).
            self._place(None, frame.kind, span, frame.flow, frame.size, record=False)
            return
        # The container is attached already; only record its entry and advance the parent.
        if top is None:
            if self.mapped:
                self.source_map[()] = SourceEntry(None, span, frame.kind, frame.flow)
            return
        top.size += frame.size
        if top.kind == "mapping":
            if not top.expecting_value:
                top.key, top.skip_value, top.expecting_value = None, True, True
                return
            top.expecting_value = False
            if frame.merge:
                top.merges.append(frame.container)  # `<<: {…}` written inline
            elif top.key is not None and not top.skip_value and self.mapped:
                self.source_map[frame.path] = SourceEntry(top.key_span, span, frame.kind, frame.flow)
            top.skip_value = False
            return
        if self.mapped:
            self.source_map[frame.path] = SourceEntry(None, span, frame.kind, frame.flow)


class _Parsed(NamedTuple):
    data: Any
    source_map: dict[KeyPath, SourceEntry]
    error: ConfigError | None
    hits: list[str]
    stale: bool = True  # the source map may hold paths the data does not have
    # A key a merge key brought in → the path where it is written (see `ConfigDoc.merged_from`).
    merged_from: dict[KeyPath, KeyPath] | None = None


def _line_text(text: str, line: int) -> str:
    """Line `line` (0-based) of `text` without its newline, cut to a readable length."""
    start = 0
    for _ in range(line):
        found = text.find("\n", start)
        if found < 0:
            return ""
        start = found + 1
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)][:500]


def _config_error(text: str, line: int, column: int, problem: str) -> ConfigError:
    line_text = _line_text(text, line)
    indent = line_text[: len(line_text) - len(line_text.lstrip(" \t"))]
    tab = "\t" in indent and column <= len(indent)
    return ConfigError(line=line + 1, column=column + 1, problem=problem, line_text=line_text, tab_indent=tab)


def _reader_error_at(text: str) -> tuple[int, int] | None:
    """(line, column), 0-based, of the first character YAML does not accept (a control character).

    The reader's error carries no mark, only an offset, which libyaml counts in bytes of UTF-8 and the
    Python reader in characters: the character is found again with the reader's own definition."""
    found = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if found is None:
        return None
    index = found.start()
    return text.count("\n", 0, index), index - (text.rfind("\n", 0, index) + 1)


def _yaml_error(text: str, exc: yaml.YAMLError) -> ConfigError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["invalid YAML"])[0]
    line = mark.line if mark is not None else 0
    column = mark.column if mark is not None else 0
    at = _reader_error_at(text) if isinstance(exc, yaml.reader.ReaderError) else None
    if at is not None:
        line, column = at
    if (
        problem == "found character that cannot start any token"
        and mark is not None
        and mark.index < len(text)
    ):
        # libyaml leaves the character out; PyYAML's own wording names it, which is what users need
        # to see (a tab, usually).
        problem = f"found character {text[mark.index]!r} that cannot start any token"
    return _config_error(text, line, column, str(problem))


def _python_scanner_error(text: str) -> ConfigError | None:
    """What AI Toolkit's own loader (PyYAML's pure-Python SafeLoader) says about tabs.

    libyaml accepts tabs in places where the Python scanner stops (`batch_size: 4<TAB>`, a tab before a
    comment), and words tab errors differently. AI Toolkit loads with the Python scanner, so a text with
    a tab is scanned by it too. The Python scanner is slow on deep flow nesting, so only texts that are
    small and shallow enough are checked.
    """
    if _FAST_LOADER is yaml.SafeLoader or "\t" not in text or len(text) > _PY_SCAN_CHARS:
        return None
    if text.count("[") + text.count("{") > _PY_SCAN_BRACKETS:
        return None
    last_tab = text.rindex("\t")
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            # A token that starts after the last tab: the scanner is past every tab (texts without a
            # tab are not scanned here at all, so nothing else is looked for).
            if token.start_mark.index > last_tab:
                break
    except yaml.YAMLError as exc:
        return _yaml_error(text, exc)
    return None


# A named tuple made without its Python-level __new__ (one frame less per node).
_tuple = tuple.__new__


def _simple_yaml(text: str, limits: Limits, mapped: bool) -> _Parsed | None:
    """One document whose root is a mapping or a list, without aliases, merge keys or complex keys,
    within the limits: what almost every config is (an anchor that no alias uses changes nothing).
    Built in one loop over the events, with the open collection in local variables; the result is the
    general builder's (tests/test_speed_cconfig_parse.py). None when the text needs the general
    builder, which then reads it from the start (an error, a stream of several documents, a limit: the
    general builder reports it). It serves the README's corpus-config figure (engine vs `yaml.load`).
    """
    get = _FAST_LOADER(text).get_event
    # Looked up once, not at every node of the loop below.
    scalar_event, mapping_start, sequence_start = (
        yaml.ScalarEvent,
        yaml.MappingStartEvent,
        yaml.SequenceStartEvent,
    )
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    new, span_type, entry_type = _tuple, Span, SourceEntry
    nodes, max_nodes, max_depth = 0, limits.max_yaml_nodes, limits.max_yaml_depth
    source_map: dict[KeyPath, SourceEntry] = {}
    stale = False
    # The parents of the open collection: (container, path, is_map, flow, start mark, key, key span).
    stack: list[tuple[Any, KeyPath, bool, bool, Any, Any, Span | None]] = []
    try:
        if type(get()) is not yaml.StreamStartEvent or type(get()) is not yaml.DocumentStartEvent:
            return None
        event = get()
        kind = type(event)
        if kind is not yaml.MappingStartEvent and kind is not yaml.SequenceStartEvent:
            return None
        is_map = kind is yaml.MappingStartEvent
        container: Any = {} if is_map else []
        path: KeyPath = ()
        root, flow, start = container, bool(event.flow_style), event.start_mark
        # In an open mapping: the key whose value comes next, None while a key is expected.
        key: Any = None
        key_span: Span | None = None
        nodes = 1
        if nodes > max_nodes or max_depth <= 0:
            return None
        while True:
            event = get()
            kind = type(event)
            if kind is scalar_event:
                nodes += 1
                if nodes > max_nodes:
                    return None
                text_ = event.value
                if is_map and key is None:
                    # A key is its text, whatever the text resolves to (a string resolves to itself).
                    if text_ == "<<":
                        return None
                    key = text_
                    if mapped:
                        sm, em = event.start_mark, event.end_mark
                        key_span = new(
                            span_type, (sm.line, sm.column, em.line, em.column, sm.index, em.index)
                        )
                    continue
                tag = event.tag
                value = (
                    _scalar_value(text_, event.style, tag)
                    if tag
                    else (text_ if event.style else resolve_plain(text_))
                )
                if is_map:
                    if key in container:
                        stale = True
                    container[key] = value
                    if mapped:
                        sm, em = event.start_mark, event.end_mark
                        span = new(span_type, (sm.line, sm.column, em.line, em.column, sm.index, em.index))
                        source_map[(*path, key)] = new(entry_type, (key_span, span, "scalar", flow))
                    key = None
                    continue
                if mapped:
                    sm, em = event.start_mark, event.end_mark
                    span = new(span_type, (sm.line, sm.column, em.line, em.column, sm.index, em.index))
                    source_map[(*path, len(container))] = new(entry_type, (None, span, "scalar", flow))
                container.append(value)
                continue
            if kind is mapping_start or kind is sequence_start:
                nodes += 1
                if (is_map and key is None) or nodes > max_nodes or len(stack) + 1 >= max_depth:
                    return None
                child: Any = {} if kind is mapping_start else []
                if is_map:
                    if key in container:
                        stale = True
                    container[key] = child
                    child_path: KeyPath = (*path, key)
                else:
                    child_path = (*path, len(container))
                    container.append(child)
                stack.append((container, path, is_map, flow, start, key, key_span))
                container, path, is_map, start = (
                    child,
                    child_path,
                    kind is mapping_start,
                    event.start_mark,
                )
                flow = flow or bool(event.flow_style)
                key, key_span = None, None
                continue
            if kind is mapping_end or kind is sequence_end:
                node = "mapping" if is_map else "sequence"
                if not stack:
                    if mapped:
                        em = event.end_mark
                        span = new(
                            span_type, (start.line, start.column, em.line, em.column, start.index, em.index)
                        )
                        source_map[()] = new(entry_type, (None, span, node, flow))
                    break
                child_flow, child_start, child_path = flow, start, path
                container, path, is_map, flow, start, key, key_span = stack.pop()
                if mapped:
                    em = event.end_mark
                    span = new(
                        span_type,
                        (
                            child_start.line,
                            child_start.column,
                            em.line,
                            em.column,
                            child_start.index,
                            em.index,
                        ),
                    )
                    source_map[child_path] = new(
                        entry_type, (key_span if is_map else None, span, node, child_flow)
                    )
                key = None
                continue
            return None  # an alias
        if type(get()) is not yaml.DocumentEndEvent or type(get()) is not yaml.StreamEndEvent:
            return None
    except (yaml.YAMLError, UnicodeError, ValueError):
        return None
    return _Parsed(root, source_map, None, [], stale)


def _parse_yaml(text: str, limits: Limits, scan_tabs: bool = True, mapped: bool = True) -> _Parsed:
    tab_error = _python_scanner_error(text) if scan_tabs else None
    if tab_error is not None:
        return _Parsed(None, {}, tab_error, [])
    simple = _simple_yaml(text, limits, mapped)
    return simple if simple is not None else _general_yaml(text, limits, mapped)


def _general_yaml(text: str, limits: Limits, mapped: bool) -> _Parsed:
    first: _Parsed | None = None
    builder = _YamlBuilder(limits, mapped)
    documents = 0
    events = yaml.parse(text, Loader=_FAST_LOADER)
    try:
        for event in events:
            kind = type(event)
            if kind is yaml.ScalarEvent:
                builder.scalar(event)
            elif kind is yaml.MappingStartEvent:
                builder.start(event, "mapping")
            elif kind is yaml.SequenceStartEvent:
                builder.start(event, "sequence")
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                builder.end(event)
            elif kind is yaml.AliasEvent:
                builder.alias(event)
            elif kind is yaml.DocumentEndEvent:
                documents += 1
                parsed = _Parsed(
                    builder.root, builder.source_map, None, builder.hits, builder.stale, builder.merged_from
                )
                # Whether a document looks like a config matters only when another one follows.
                try:
                    following = next(events, None)
                except yaml.YAMLError:
                    if looks_like_config(builder.root):
                        return parsed
                    raise
                if following is None or type(following) is yaml.StreamEndEvent:
                    return parsed if first is None or looks_like_config(builder.root) else first
                if looks_like_config(builder.root):
                    return parsed
                if first is None:
                    first = parsed
                if documents >= _MAX_DOCUMENTS:
                    break
                builder = _YamlBuilder(limits, mapped)
    except _Stop:
        return _Parsed(
            builder.root, builder.source_map, None, builder.hits, builder.stale, builder.merged_from
        )
    except yaml.YAMLError as exc:
        return _Parsed(None, {}, _yaml_error(text, exc), [])
    except (UnicodeError, ValueError) as exc:
        return _Parsed(None, {}, _config_error(text, 0, 0, str(exc)[:200]), [])
    return first if first is not None else _Parsed(None, {}, None, [])


# --------------------------------------------------------------------------------------------------
# JSON

# Compiled when a JSON config first turns up (a YAML config never needs them).
_JSON_WS = LazyPattern(r"[ \t\n\r]*")
_JSON_NUMBER = LazyPattern(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_JSON_CONSTANTS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
}


class _JsonError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


class _Lines:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def span(self, start: int, end: int) -> Span:
        sl = bisect.bisect_right(self.starts, start) - 1
        el = bisect.bisect_right(self.starts, end) - 1
        return Span(sl, start - self.starts[sl], el, end - self.starts[el], start, end)


class _JFrame:
    """An open container of `_JsonParser` (a plain class: a dataclass costs start-up)."""

    __slots__ = ("container", "is_object", "key", "key_span", "path", "start", "state")

    def __init__(
        self,
        container: dict[str, Any] | list[Any] | None,  # None: too deep, skipped
        is_object: bool,
        path: KeyPath,
        start: int,
    ) -> None:
        self.container = container
        self.is_object = is_object
        self.path = path
        self.start = start
        self.key: str | None = None
        self.key_span: tuple[int, int] | None = None
        self.state = "first"  # first (just opened), key, value, comma


class _JsonParser:
    """An iterative JSON reader that records where every key and value is."""

    def __init__(self, text: str, limits: Limits, mapped: bool = True) -> None:
        self.text = text
        self.limits = limits
        self.mapped = mapped
        self.lines = _Lines(text)
        self.source_map: dict[KeyPath, SourceEntry] = {}
        self.hits: list[str] = []
        self.stack: list[_JFrame] = []
        self.root: Any = None
        self.nodes = 0
        self.stale = False  # a duplicate key left entries for a replaced value

    def _ws(self, pos: int) -> int:
        match = _JSON_WS.match(self.text, pos)
        return match.end() if match else pos

    def _attach(self, value: Any) -> KeyPath:
        """Put a new value into the open container (or make it the root); return its path."""
        if not self.stack:
            self.root = value
            return ()
        top = self.stack[-1]
        top.state = "comma"
        if isinstance(top.container, dict):
            assert top.key is not None
            self.stale = self.stale or top.key in top.container
            top.container[top.key] = value
            return (*top.path, top.key)
        if isinstance(top.container, list):
            top.container.append(value)
            return (*top.path, len(top.container) - 1)
        return ()

    def _record(self, path: KeyPath, parent: _JFrame | None, kind: str, start: int, end: int) -> None:
        if not self.mapped or (parent is not None and parent.container is None):
            return
        key_span = None
        if parent is not None and parent.is_object and parent.key_span is not None:
            key_span = self.lines.span(*parent.key_span)
        self.source_map[path] = SourceEntry(key_span, self.lines.span(start, end), kind, True)

    def _scalar(self, pos: int) -> tuple[Any, int]:
        text = self.text
        if text[pos] == '"':
            return scanstring(text, pos + 1, True)
        for word, value in _JSON_CONSTANTS.items():
            if text.startswith(word, pos):
                return value, pos + len(word)
        number = _JSON_NUMBER.match(text, pos)
        if number is None:
            raise _JsonError("Expecting value", pos)
        raw = number.group(0)
        return (float(raw) if number.group(1) or number.group(2) else int(raw)), number.end()

    def _open(self, pos: int, is_object: bool) -> None:
        parent = self.stack[-1] if self.stack else None
        too_deep = len(self.stack) >= self.limits.max_yaml_depth
        if too_deep and "max_yaml_depth" not in self.hits:
            self.hits.append("max_yaml_depth")
        skipped = too_deep or (parent is not None and parent.container is None)
        container: dict[str, Any] | list[Any] | None = None if skipped else ({} if is_object else [])
        path: KeyPath = ()
        if parent is None or parent.container is not None:
            path = self._attach(container)
        else:
            parent.state = "comma"
        self.stack.append(_JFrame(container, is_object, path, pos))

    def _close(self, pos: int) -> None:
        frame = self.stack.pop()
        parent = self.stack[-1] if self.stack else None
        if frame.container is not None:
            self._record(
                frame.path, parent, "mapping" if frame.is_object else "sequence", frame.start, pos + 1
            )

    def parse(self) -> _Parsed:
        text = self.text
        size = len(text)
        pos = self._ws(0)
        if pos >= size:
            return _Parsed(None, {}, None, [])
        while True:
            top = self.stack[-1] if self.stack else None
            if pos >= size:
                raise _JsonError(
                    "Expecting value" if top is None or top.state != "comma" else "Expecting ',' delimiter",
                    pos,
                )
            char = text[pos]
            if top is not None and top.state == "first":
                if char == ("}" if top.is_object else "]"):
                    self._close(pos)
                    pos = self._ws(pos + 1)
                    if not self.stack:
                        break
                    continue
                top.state = "key" if top.is_object else "value"
            if top is not None and top.state == "comma":
                if char == ",":
                    top.state = "key" if top.is_object else "value"
                    pos = self._ws(pos + 1)
                    continue
                if char != ("}" if top.is_object else "]"):
                    raise _JsonError("Expecting ',' delimiter", pos)
                self._close(pos)
                pos = self._ws(pos + 1)
                if not self.stack:
                    break
                continue
            if top is not None and top.state == "key":
                if char != '"':
                    raise _JsonError("Expecting property name enclosed in double quotes", pos)
                key, end = scanstring(text, pos + 1, True)
                top.key, top.key_span = key, (pos, end)
                pos = self._ws(end)
                if pos >= size or text[pos] != ":":
                    raise _JsonError("Expecting ':' delimiter", pos)
                top.state = "value"
                pos = self._ws(pos + 1)
                continue
            # A value.
            self.nodes += 1
            if self.nodes > self.limits.max_yaml_nodes:
                self.hits.append("max_yaml_nodes")
                break
            if char in "{[":
                self._open(pos, char == "{")
                pos = self._ws(pos + 1)
                continue
            value, end = self._scalar(pos)
            if top is None or top.container is not None:
                path = self._attach(value)
                self._record(path, top, "scalar", pos, end)
            else:
                top.state = "comma"
            pos = self._ws(end)
            if not self.stack:
                break
        return _Parsed(self.root, self.source_map, None, self.hits, self.stale)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _simple_json(text: str, limits: Limits, mapped: bool) -> _Parsed | None:
    """A JSON document whose root is an object or an array, without duplicate keys, within the
    limits, read in one loop with the open container in local variables; the result is `_JsonParser`'s
    (tests/test_speed_cconfig_json.py). None for anything else (an error, a limit, a duplicate key):
    `_JsonParser` then reads the text and says what is wrong. The JSON counterpart of `_simple_yaml`,
    for the same figure."""
    # The whitespace pattern always matches (typed as Any: no None to rule out at every token).
    ws: Callable[[str, int], Any] = _JSON_WS.get().match
    number, size = _JSON_NUMBER.get().match, len(text)
    max_nodes, max_depth = limits.max_yaml_nodes, limits.max_yaml_depth
    starts = _line_starts(text) if mapped else []
    source_map: dict[KeyPath, SourceEntry] = {}
    pos = ws(text, 0).end()
    if pos >= size or text[pos] not in "{[" or max_nodes < 1 or max_depth <= 0:
        return None
    is_obj = text[pos] == "{"
    container: Any = {} if is_obj else []
    path: KeyPath = ()
    root, start = container, pos
    # The span of the key the open container sits under (None for the root and for array items), and
    # the parents' (container, path, is_obj, start, that span).
    own_key: Span | None = None
    stack: list[tuple[Any, KeyPath, bool, int, Span | None]] = []
    key: str = ""
    value: Any
    key_span: Span | None = None
    nodes = 1
    first, after = True, False  # just opened / an item was just read
    pos = ws(text, pos + 1).end()
    try:
        while True:
            if pos >= size:
                return None
            char = text[pos]
            if first or after:
                if char == ("}" if is_obj else "]"):
                    end = pos + 1
                    if mapped:
                        sl = bisect.bisect_right(starts, start) - 1
                        el = bisect.bisect_right(starts, end) - 1
                        span = _tuple(Span, (sl, start - starts[sl], el, end - starts[el], start, end))
                        node = "mapping" if is_obj else "sequence"
                        source_map[path] = _tuple(SourceEntry, (own_key, span, node, True))
                    if not stack:
                        break
                    container, path, is_obj, start, own_key = stack.pop()
                    pos = ws(text, end).end()
                    first, after = False, True
                    continue
                if after:
                    if char != ",":
                        return None
                    pos = ws(text, pos + 1).end()
                    after = False
                    continue
            first = False
            if is_obj:
                if char != '"':
                    return None
                key, end = scanstring(text, pos + 1, True)
                if key in container:
                    return None
                if mapped:
                    sl = bisect.bisect_right(starts, pos) - 1
                    el = bisect.bisect_right(starts, end) - 1
                    key_span = _tuple(Span, (sl, pos - starts[sl], el, end - starts[el], pos, end))
                pos = ws(text, end).end()
                if pos >= size or text[pos] != ":":
                    return None
                pos = ws(text, pos + 1).end()
                if pos >= size:
                    return None
                char = text[pos]
            nodes += 1
            if nodes > max_nodes:
                return None
            if char == "{" or char == "[":
                if len(stack) + 1 >= max_depth:
                    return None
                child: Any = {} if char == "{" else []
                if is_obj:
                    container[key] = child
                    child_path: KeyPath = (*path, key)
                else:
                    child_path = (*path, len(container))
                    container.append(child)
                stack.append((container, path, is_obj, start, own_key))
                container, path, is_obj, start = child, child_path, char == "{", pos
                own_key = key_span if stack[-1][2] else None
                pos = ws(text, pos + 1).end()
                first = True
                continue
            if char == '"':
                value, end = scanstring(text, pos + 1, True)
            else:
                for word, constant in _JSON_CONSTANTS.items():
                    if text.startswith(word, pos):
                        value, end = constant, pos + len(word)
                        break
                else:
                    match = number(text, pos)
                    if match is None:
                        return None
                    raw = match.group(0)
                    value = float(raw) if match.group(1) or match.group(2) else int(raw)
                    end = match.end()
            if is_obj:
                container[key] = value
                value_path: KeyPath = (*path, key)
            else:
                value_path = (*path, len(container))
                container.append(value)
            if mapped:
                sl = bisect.bisect_right(starts, pos) - 1
                el = bisect.bisect_right(starts, end) - 1
                span = _tuple(Span, (sl, pos - starts[sl], el, end - starts[el], pos, end))
                source_map[value_path] = _tuple(
                    SourceEntry, (key_span if is_obj else None, span, "scalar", True)
                )
            pos = ws(text, end).end()
            after = True
    except ValueError:  # scanstring: an unterminated string, a bad escape or control character; int()
        return None
    return _Parsed(root, source_map, None, [], False)


def _parse_json(text: str, limits: Limits, mapped: bool = True) -> _Parsed:
    simple = _simple_json(text, limits, mapped)
    if simple is not None:
        return simple
    parser = _JsonParser(text, limits, mapped)
    try:
        return parser.parse()
    except _JsonError as exc:
        at, message = exc.pos, exc.message
    except ValueError as exc:  # from scanstring: an unterminated string, a bad escape or control character
        at, message = getattr(exc, "pos", 0), getattr(exc, "msg", str(exc))
    where = parser.lines.span(min(at, len(text)), min(at, len(text)))
    return _Parsed(None, {}, _config_error(text, where.start_line, where.start_col, message), [])


# --------------------------------------------------------------------------------------------------
# Shape


def _training_process(processes: list[Any]) -> int | None:
    dicts = [i for i, p in enumerate(processes) if isinstance(p, dict)]
    for i in dicts:
        kind = processes[i].get("type")
        if isinstance(kind, str) and kind in TRAINER_TYPES:
            return i
    for i in dicts:
        if "train" in processes[i]:
            return i
    return dicts[0] if dicts else None


_PROCESS_SECTIONS = ("train", "model", "datasets", "network", "sample", "save")


def shape_of(data: Any) -> tuple[ConfigShape, KeyPath]:
    """The shape of a parsed root and the path to its training process (see the module docstring)."""
    if not isinstance(data, dict):
        return ConfigShape.FRAGMENT, ()
    config = data.get("config")
    processes = config.get("process") if isinstance(config, dict) else data.get("process")
    if isinstance(processes, list):
        index = _training_process(processes)
        prefix: KeyPath = ("config", "process") if isinstance(config, dict) else ("process",)
        return ConfigShape.FULL_JOB, (*prefix, index) if index is not None else ()
    if isinstance(config, dict) or "job" in data:
        return ConfigShape.FULL_JOB, ()
    sections = sum(1 for key in _PROCESS_SECTIONS if key in data)
    if sections >= 2 or (sections == 1 and ("type" in data or "training_folder" in data)):
        return ConfigShape.PROCESS, ()
    return ConfigShape.FRAGMENT, ()


def _is_json(piece: Piece) -> bool:
    return piece.kind == PieceKind.CONFIG_JSON


def _too_big(text: str, limits: Limits) -> bool:
    """Over `max_config_bytes` in UTF-8: such a text is not parsed."""
    cap = limits.max_config_bytes
    # Characters first: a text over the cap in characters is over it in bytes, without encoding it.
    return len(text) > cap or len(text.encode("utf-8", "replace")) > cap


def parse_text(
    text: str, fmt: str, limits: Limits = DEFAULT_LIMITS, scan_tabs: bool = True, mapped: bool = True
) -> _Parsed:
    if fmt == "json":
        return _parse_json(text, limits, mapped)
    return _parse_yaml(text, limits, scan_tabs, mapped)


def _ends_inside_a_value(text: str, error: ConfigError) -> bool:
    """The parser ran out of text inside a value: its error points past the end of the last line, or at
    a colon that ends it (a key cut after its colon). A line that is itself wrong is reported within it."""
    lines = text.rstrip("\n").split("\n")
    if error.line > len(lines):
        return True
    last = lines[-1]
    return error.line == len(lines) and (
        error.column > len(last) or (error.column == len(last) and last.endswith(":"))
    )


def _complete_lines(
    piece: Piece, limits: Limits, scan_tabs: bool, mapped: bool
) -> tuple[Piece, _Parsed] | None:
    """The complete lines before the cut, as a piece, and their parse: the partial last line dropped. A
    value opened on an earlier line and never closed (a forgotten quote) is the user's error, not a cut:
    the text without its last line must parse."""
    lines = piece.text.rstrip().split("\n")
    if len(lines) < 2:
        return None
    text = "\n".join(lines[:-1]) + "\n"
    parsed = parse_text(text, "yaml", limits, scan_tabs, mapped)
    if parsed.error is not None or not isinstance(parsed.data, dict):
        return None
    return with_text(piece, text), parsed


def parse_config(
    piece: Piece, limits: Limits = DEFAULT_LIMITS, *, scan_tabs: bool = True, mapped: bool = True
) -> ConfigDoc:
    """Parse a config piece; never raises. Broken input gives `data=None` and a ConfigError.

    `scan_tabs=False` leaves out the second scan of a text holding a tab with AI Toolkit's own
    (pure-Python) scanner: for a text made from one that passed it by edits that add no tab.
    `mapped=False` gives the data with an empty source map, for a text that is only checked for what
    it holds (no fix is planned on it).
    """
    fmt = "json" if _is_json(piece) else "yaml"
    text = piece.text
    if _too_big(text, limits):
        return ConfigDoc(piece, fmt, ConfigShape.FRAGMENT, None, (), {}, None, ["max_config_bytes"])
    parsed = parse_text(text, fmt, limits, scan_tabs, mapped)
    cut_off = False
    if parsed.error is not None and fmt == "yaml" and _ends_inside_a_value(text, parsed.error):
        complete = _complete_lines(piece, limits, scan_tabs, mapped)
        if complete is not None:
            # The doc of the complete lines is built below like any other: its source map loses the
            # stale paths too.
            (piece, parsed), cut_off = complete, True
    if parsed.error is not None or parsed.data is None:
        return ConfigDoc(piece, fmt, ConfigShape.FRAGMENT, None, (), {}, parsed.error, parsed.hits)
    shape, process_path = shape_of(parsed.data)
    source_map = parsed.source_map
    if parsed.stale:
        source_map = {path: entry for path, entry in source_map.items() if _exists(parsed.data, path)}
    return ConfigDoc(
        piece,
        fmt,
        shape,
        parsed.data,
        process_path,
        source_map,
        None,
        list(parsed.hits),
        cut_off=cut_off,
        merged_from=parsed.merged_from or {},
    )


# --------------------------------------------------------------------------------------------------
# Checking a corrected text


def same_data(a: Any, b: Any) -> bool:
    """Equal as config data: key order ignored, NaN equal to NaN, a boolean never equal to a number."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if a.keys() != b.keys():
            return False
        pairs: Any = zip(a.values(), map(b.__getitem__, a), strict=True)
    elif kind is list:
        if len(a) != len(b):
            return False
        pairs = zip(a, b, strict=True)
    else:
        return bool(a == b) or (kind is float and a != a and b != b)
    for x, y in pairs:
        # Leaves are compared here, not in a call of their own (a config is mostly leaves).
        leaf = type(x)
        if leaf is not type(y):
            return False
        if leaf is dict or leaf is list:
            if not same_data(x, y):
                return False
        elif x != y and not (leaf is float and x != x and y != y):
            return False
    return True


def _within(data: Any, limits: Limits) -> bool:
    """No deeper and with no more values than the JSON reader keeps (it cuts what lies beyond)."""
    values, level = 0, [data]
    for _ in range(limits.max_yaml_depth):
        values += len(level)
        if values > limits.max_yaml_nodes:
            return False
        inner: list[Any] = []
        for node in level:
            if isinstance(node, dict):
                inner.extend(node.values())
            elif isinstance(node, list):
                inner.extend(node)
        if not inner:
            return True
        level = inner
    # Values below the deepest level kept: not shown here (only a container there is cut, but no
    # config comes near this depth).
    return False


def _json_holds(text: str, expected: dict[str, Any], limits: Limits) -> bool:
    """True when the JSON reader reads `text` as data that `same_data` finds equal to `expected`.

    On a text that the stdlib's reader takes, the JSON reader here reads the same data (the same
    grammar, the same string scanner, NaN and Infinity, the last of duplicate keys) unless a limit cuts
    it; the stdlib refuses what this reader would partly take (text after the document)."""
    import json  # here, not at the top: only a corrected JSON config needs it, and it costs start-up

    try:
        loaded = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return _within(loaded, limits) and same_data(loaded, expected)


def holding(piece: Piece, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS) -> ConfigDoc | None:
    """A JSON `piece` as a ConfigDoc holding `data` without a source map, when its text is shown to
    parse to data equal to `data` (`same_data`) as `parse_config(piece, limits, mapped=False)` reads
    it; None when that is not shown here (a YAML text, or any doubt: then parse_config decides).

    For a corrected config that is only checked: the stdlib's C reader reads it in a fraction of the
    time the JSON reader here needs (which keeps a source map's positions even when none is made).
    """
    text = piece.text
    if not _is_json(piece):
        return None  # libyaml's events cost the same whether or not the data is built from them
    if _too_big(text, limits):
        return None
    if not _json_holds(text, data, limits):
        return None
    shape, process_path = shape_of(data)
    return ConfigDoc(piece, "json", shape, data, process_path, {}, None, [])


def _yaml_holds(text: str, expected: Any, limits: Limits) -> bool:
    """True when the simple reader (`_simple_yaml`) reads `text` as data that `same_data` finds equal
    to `expected`, shown without building it: the events are walked beside `expected`, each scalar
    resolved as the reader resolves it and compared as `same_data` compares leaves. Whatever the reader
    would leave to the general builder (another shape, an alias, a merge key, a limit), a duplicate key
    (the reader keeps the last; shown here only by building) or any difference gives False.
    """
    get = _FAST_LOADER(text).get_event
    scalar_event, mapping_start, sequence_start = (
        yaml.ScalarEvent,
        yaml.MappingStartEvent,
        yaml.SequenceStartEvent,
    )
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    nodes, max_nodes, max_depth = 0, limits.max_yaml_nodes, limits.max_yaml_depth
    # The parents of the open collection: (expected container, is_map, keys seen or items read, key).
    stack: list[tuple[Any, bool, Any, Any]] = []
    try:
        if type(get()) is not yaml.StreamStartEvent or type(get()) is not yaml.DocumentStartEvent:
            return False
        kind = type(get())
        if kind is not mapping_start and kind is not sequence_start:
            return False
        is_map = kind is mapping_start
        container: Any = expected
        if type(container) is not (dict if is_map else list):
            return False
        # In an open mapping: the keys seen, and the key whose value comes next (None while a key is
        # expected); in an open list: how many items were read.
        seen: Any = set() if is_map else 0
        key: Any = None
        nodes = 1
        if nodes > max_nodes or max_depth <= 0:
            return False
        while True:
            event = get()
            kind = type(event)
            if kind is scalar_event:
                nodes += 1
                if nodes > max_nodes:
                    return False
                text_ = event.value
                if is_map and key is None:
                    if text_ == "<<" or text_ in seen or text_ not in container:
                        return False
                    seen.add(text_)
                    key = text_
                    continue
                tag = event.tag
                value = (
                    _scalar_value(text_, event.style, tag)
                    if tag
                    else (text_ if event.style else resolve_plain(text_))
                )
                if is_map:
                    want = container[key]
                    key = None
                else:
                    if seen >= len(container):
                        return False
                    want = container[seen]
                    seen += 1
                leaf = type(value)
                if leaf is not type(want) or leaf is dict or leaf is list:
                    return False
                if value != want and not (leaf is float and value != value and want != want):
                    return False
                continue
            if kind is mapping_start or kind is sequence_start:
                nodes += 1
                if (is_map and key is None) or nodes > max_nodes or len(stack) + 1 >= max_depth:
                    return False
                if is_map:
                    child = container[key]
                else:
                    if seen >= len(container):
                        return False
                    child = container[seen]
                child_is_map = kind is mapping_start
                if type(child) is not (dict if child_is_map else list):
                    return False
                stack.append((container, is_map, seen, key))
                container, is_map, seen, key = child, child_is_map, set() if child_is_map else 0, None
                continue
            if kind is mapping_end or kind is sequence_end:
                if (len(seen) if is_map else seen) != len(container):
                    return False
                if not stack:
                    break
                container, is_map, seen, key = stack.pop()
                if is_map:
                    key = None
                else:
                    seen += 1
                continue
            return False  # an alias
        if type(get()) is not yaml.DocumentEndEvent or type(get()) is not yaml.StreamEndEvent:
            return False
    except (yaml.YAMLError, UnicodeError, ValueError):
        return False
    return True


def yaml_holding(
    piece: Piece, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS, *, scan_tabs: bool = True
) -> ConfigDoc | None:
    """A YAML `piece` as a ConfigDoc holding `data` without a source map, when its text is shown to
    parse to data equal to `data` (`same_data`) as `parse_config(piece, limits, scan_tabs=scan_tabs,
    mapped=False)` reads it; None when that is not shown here (a JSON text, or any doubt: then
    parse_config decides).

    For a corrected config that is only checked: the events are compared with the re-checked data as
    they come, instead of building the data and then comparing it.
    """
    text = piece.text
    if _is_json(piece):
        return None
    if _too_big(text, limits):
        return None
    if scan_tabs and _python_scanner_error(text) is not None:
        return None
    if not _yaml_holds(text, data, limits):
        return None
    shape, process_path = shape_of(data)
    return ConfigDoc(piece, "yaml", shape, data, process_path, {}, None, [])


_MISSING = object()


def get_path(data: Any, path: KeyPath) -> Any:
    """The value at `path`, or `MISSING` when a step does not exist."""
    node = data
    for part in path:
        if isinstance(node, dict):
            # An int step never names a mapping key (paths index lists with ints only).
            if isinstance(part, int):
                return _MISSING
            node = node.get(part, _MISSING)
            if node is _MISSING:
                return _MISSING
        elif isinstance(node, list) and isinstance(part, int):
            if not 0 <= part < len(node):
                return _MISSING
            node = node[part]
        else:
            return _MISSING
    return node


MISSING = _MISSING


def _exists(data: Any, path: KeyPath) -> bool:
    return get_path(data, path) is not _MISSING
