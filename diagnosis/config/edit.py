"""Fixes as minimal text edits: ConfigEdit (set this key to that value) → TextEdit (replace these bytes).

A corrected config must read like the user's own file with one thing changed: comments, key order,
quoting and indentation stay, and every line outside an edit is byte-identical. So nothing is ever
re-serialised; each change is computed from the source map of the parsed document:

- an existing scalar is replaced in place (a string keeps its quote style, a trailing comment stays);
- a missing key is inserted into its mapping with that mapping's indentation, right after a related
  sibling when one exists (`_NEIGHBOURS`: `gradient_accumulation` goes after `batch_size`, `low_vram`
  after the quantization keys …), otherwise after the mapping's last key; a missing section
  (`sample:`) is inserted as a new nested block; several missing keys of one mapping share one insert;
- a list is rewritten in its own style: a flow list keeps its spacing (`[ 512, 768 ]`), a block list
  keeps its dash indentation (items are replaced, removed or appended line by line), a JSON list keeps
  its one-line or one-item-per-line layout;
- JSON documents get JSON edits (quoted keys, commas in the right places, the object's indentation).

Edits that cannot be made safely are skipped, with a reason (`plan_edits_detailed`): the document did
not parse or hit a limit, the path runs through a list or a scalar, an anchor or alias is on the path
(changing it would change other places), or the value is not a scalar or a list of scalars.
A value that is already set produces no edit, so planning the same ConfigEdits on the corrected text
yields nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from diagnosis.config.parse import MISSING, get_path, resolve_plain
from diagnosis.models import ConfigDoc, ConfigEdit, ConfigShape, KeyPath, SourceEntry, TextEdit

# Where a missing key reads best: right after the first of these siblings that exists.
_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "gradient_accumulation": ("batch_size", "gradient_accumulation_steps"),
    "gradient_accumulation_steps": ("batch_size",),
    "gradient_checkpointing": ("train_text_encoder", "train_unet", "gradient_accumulation", "batch_size"),
    "low_vram": ("qtype_te", "quantize_te", "qtype", "quantize"),
    "quantize": ("arch", "name_or_path"),
    "qtype": ("quantize",),
    "quantize_te": ("qtype", "quantize"),
    "qtype_te": ("quantize_te",),
    "layer_offloading": ("low_vram", "qtype_te", "quantize_te"),
    "unload_text_encoder": ("train_text_encoder",),
    "cache_text_embeddings": ("train_text_encoder", "unload_text_encoder"),
    "skip_first_sample": ("disable_sampling", "steps"),
    "cache_latents_to_disk": ("cache_latents", "resolution"),
    "sample_steps": ("sample_every",),
    "width": ("sample_every",),
    "height": ("width",),
    "num_frames": ("height", "resolution"),
    "dtype": ("lr", "optimizer"),
}


class SkippedEdit(NamedTuple):
    edit: ConfigEdit
    reason: str  # not_parsed, limit_hit, no_process, not_a_mapping, alias, list_item, value_type, section


class EditPlan:
    """The text edits planned, and the config edits that could not be made (a plain class: a
    dataclass costs start-up)."""

    __slots__ = ("edits", "skipped")

    def __init__(self) -> None:
        self.edits: list[TextEdit] = []
        self.skipped: list[SkippedEdit] = []


# --------------------------------------------------------------------------------------------------
# Formatting values


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


_PLAIN_UNSAFE_START = set("-?:,[]{}#&*!|>'\"%@` \t")


def _plain_ok(text: str, flow: bool) -> bool:
    """Can `text` be written unquoted and still read back as this string? (Inside a flow collection
    PyYAML ends a plain scalar at any `:`.)"""
    return (
        bool(text)
        and text[0] not in _PLAIN_UNSAFE_START
        and text[-1] not in " :\t"
        and ": " not in text
        and " #" not in text
        and not (flow and ":" in text)
        and not any(c in text for c in "\n\r\t,[]{}")
        and resolve_plain(text) == text
    )


def _yaml_float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return repr(value)


def _yaml_scalar(value: Any, like: str = "", flow: bool = False) -> str:
    """`value` as YAML; strings take the quote style of `like` (the text being replaced)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _yaml_float(value)
    text = str(value)
    if like.startswith("'") and "\n" not in text:
        return "'" + text.replace("'", "''") + "'"
    if like.startswith('"') or not _plain_ok(text, flow):
        return _json_scalar(text)
    return text


def _json_scalar(value: Any) -> str:
    import json  # here, not at the top: most fixes write no quoted string, and json costs start-up

    return json.dumps(value, ensure_ascii=False)


def _yaml_flow(value: Any, flow: bool = False) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_flow(item, True) for item in value) + "]"
    return _yaml_scalar(value, flow=flow)


# --------------------------------------------------------------------------------------------------
# Positions


class _Text:
    def __init__(self, doc: ConfigDoc) -> None:
        self.doc = doc
        self.text = doc.piece.text
        self.sm = doc.source_map
        self.json = doc.format == "json"

    def value_text(self, entry: SourceEntry) -> str:
        return self.text[entry.value.start_index : entry.value.end_index]

    def line_start(self, index: int) -> int:
        return self.text.rfind("\n", 0, index) + 1

    def line_indent(self, index: int) -> int:
        """How many spaces start the line that holds text[index]."""
        start = self.line_start(index)
        end = start
        while end < len(self.text) and self.text[end] == " ":
            end += 1
        return end - start

    def after_line(self, index: int) -> int:
        """The start of the line after the one holding text[index - 1] (len(text) at the end)."""
        if index <= 0:
            return 0
        newline = self.text.find("\n", index - 1)
        return len(self.text) if newline < 0 else newline + 1

    def children(self, path: KeyPath) -> list[tuple[KeyPath, SourceEntry]]:
        data = get_path(self.doc.data, path)
        out: list[tuple[KeyPath, SourceEntry]] = []
        if isinstance(data, dict):
            keys: Sequence[str | int] = list(data)
        elif isinstance(data, list):
            keys = list(range(len(data)))
        else:
            return out
        for key in keys:
            entry = self.sm.get((*path, key))
            if entry is not None:
                out.append(((*path, key), entry))
        out.sort(key=lambda item: item[1].value.start_index)
        return out

    def entry_end(self, path: KeyPath) -> int:
        """Where the text of the entry at `path` ends (its last descendant for a block collection)."""
        entry = self.sm[path]
        while entry.node != "scalar" and not entry.flow:
            kids = self.children(path)
            if not kids:
                break
            path, entry = kids[-1]
        if entry.value.end_index == entry.value.start_index and entry.key is not None:
            return max(entry.key.end_index, entry.value.end_index)
        return entry.value.end_index

    def aliased(self, path: KeyPath, *, replacing: bool = False) -> bool:
        """An anchor or alias on `path` or above it: an edit there would change other places too.
        `replacing`: the value at `path` itself is replaced, and an alias there
        (`gradient_checkpointing: *off`) is only a use of its anchor: replacing it changes this
        place alone."""
        if self.json:
            return False
        for depth in range(1, len(path) + 1):
            entry = self.sm.get(path[:depth])
            head = self.value_text(entry)[:1] if entry is not None else ""
            if head == "&" or (head == "*" and not (replacing and depth == len(path))):
                return True
        return False

    def indent_step(self) -> int:
        for path, entry in self.sm.items():
            if not path or entry.key is None:
                continue
            parent = self.sm.get(path[:-1])
            if parent is not None and parent.key is not None and not parent.flow:
                step = entry.key.start_col - parent.key.start_col
                if step > 0:
                    return step
        return 2


# --------------------------------------------------------------------------------------------------
# Planning


class _Insert:
    """The keys to insert under one mapping (a plain class: a dataclass costs start-up)."""

    __slots__ = ("edits", "parent", "tree")

    def __init__(self, parent: KeyPath) -> None:
        self.parent = parent
        self.tree: dict[str, Any] = {}  # new keys → value or nested dict of new keys
        self.edits: list[ConfigEdit] = []


class _Planner:
    def __init__(self, doc: ConfigDoc) -> None:
        self.t = _Text(doc)
        self.doc = doc
        self.plan = EditPlan()
        self.inserts: dict[KeyPath, _Insert] = {}
        self.queued: list[tuple[int, int, int, int, str]] = []

    def skip(self, edit: ConfigEdit, reason: str) -> None:
        self.plan.skipped.append(SkippedEdit(edit, reason))

    def add(self, start: int, end: int, new: str, depth: int = 0) -> None:
        """Queue an edit; inserts at one position go innermost mapping (largest `depth`) first."""
        self.queued.append((start, end, -depth, len(self.queued), new))

    # -- one ConfigEdit ----------------------------------------------------------------------------

    def edit(self, edit: ConfigEdit) -> None:
        value = edit.value
        if isinstance(value, tuple):
            value = list(value)
        if not (_is_scalar(value) or (isinstance(value, list) and all(_is_scalar(v) for v in value))):
            self.skip(edit, "value_type")
            return
        path = (*self.doc.process_path, *edit.path)
        current = get_path(self.doc.data, path)
        entry = self.t.sm.get(path)
        if current is not MISSING and entry is not None:
            if _same(current, value):
                return
            if self.t.aliased(path, replacing=entry.node == "scalar"):
                self.skip(edit, "alias")
            elif isinstance(value, list):
                self.set_list(edit, path, entry, value)
            elif entry.node == "scalar":
                self.set_scalar(entry, value)
            elif entry.flow:
                self.replace(entry, value)
            else:
                self.skip(edit, "section")
            return
        self.insert(edit, path, value)

    def replace(self, entry: SourceEntry, value: Any) -> None:
        text = _json_scalar(value) if self.t.json else _yaml_flow(value, True)
        self.add(entry.value.start_index, entry.value.end_index, text)

    def set_scalar(self, entry: SourceEntry, value: Any) -> None:
        start, end = entry.value.start_index, entry.value.end_index
        if self.t.json:
            self.add(start, end, _json_scalar(value))
            return
        like = self.t.value_text(entry)
        new = _yaml_flow(value) if isinstance(value, list) else _yaml_scalar(value, like, entry.flow)
        if start == end and start > 0 and self.t.text[start - 1] == ":":
            new = " " + new  # `key:` with an empty value
        if like[:1] in ("|", ">"):
            new += like[len(like.rstrip("\n")) :]  # a block scalar's span takes its line break with it
        self.add(start, end, new)

    def set_list(self, edit: ConfigEdit, path: KeyPath, entry: SourceEntry, value: list[Any]) -> None:
        if entry.node == "scalar":
            self.set_scalar(entry, value)
            return
        if entry.node != "sequence":
            self.skip(edit, "section")
            return
        items = self.t.children(path)
        if any(item.node != "scalar" for _, item in items):
            self.skip(edit, "section")
            return
        if entry.flow:
            self.rewrite_flow_list(entry, items, value)
        elif value:
            self.rewrite_block_list(items, value)
        else:
            self.skip(edit, "section")

    def rewrite_flow_list(
        self, entry: SourceEntry, items: list[tuple[KeyPath, SourceEntry]], value: list[Any]
    ) -> None:
        t = self.t
        start, end = entry.value.start_index, entry.value.end_index
        old = t.text[start:end]
        olds = [t.value_text(item) for _, item in items]

        def fmt(i: int, v: Any) -> str:
            if t.json:
                return _json_scalar(v)
            return _yaml_scalar(v, olds[min(i, len(olds) - 1)] if olds else "", True)

        formatted = [fmt(i, v) for i, v in enumerate(value)]
        if t.json and entry.value.start_line != entry.value.end_line and items:
            # One item per line, as the UI writes it.
            first = items[0][1].value
            indent = t.text[t.line_start(first.start_index) : first.start_index]
            close_indent = t.text[t.line_start(end - 1) : end - 1]
            if not formatted:
                self.add(start, end, "[]")
                return
            body = ",\n".join(indent + item for item in formatted)
            self.add(start, end, "[\n" + body + "\n" + close_indent + "]")
            return
        inner = old[1:-1]
        left = inner[: len(inner) - len(inner.lstrip(" "))] if inner.strip() else ""
        right = inner[len(inner.rstrip(" ")) :] if inner.strip() else ""
        separator = ", "
        if len(items) >= 2:
            between = t.text[items[0][1].value.end_index : items[1][1].value.start_index]
            if "\n" not in between and "," in between:
                separator = between.strip(" ") + between[between.index(",") + 1 :]
        new = "[" + left + separator.join(formatted) + right + "]" if formatted else "[]"
        self.add(start, end, new)

    def rewrite_block_list(self, items: list[tuple[KeyPath, SourceEntry]], value: list[Any]) -> None:
        t = self.t
        for (item_path, item), new in zip(items, value, strict=False):
            if not _same(get_path(self.doc.data, item_path), new):
                self.set_scalar(item, new)
        if len(items) > len(value):
            first_gone = items[len(value)][1]
            last = items[-1][1]
            self.add(t.line_start(first_gone.value.start_index), t.after_line(last.value.end_index), "")
        elif len(value) > len(items):
            last = items[-1][1]
            lead = t.text[t.line_start(last.value.start_index) : last.value.start_index]
            if lead.strip() != "-":
                return  # not one item per line (`- - 1`, a flow item): leave the list as it is
            like = t.value_text(last)
            lines = "".join(lead + _yaml_scalar(v, like) + "\n" for v in value[len(items) :])
            at = t.after_line(last.value.end_index)
            if at == len(t.text) and not t.text.endswith("\n"):
                lines = "\n" + lines
            self.add(at, at, lines)

    def insert(self, edit: ConfigEdit, path: KeyPath, value: Any) -> None:
        t = self.t
        data = self.doc.data
        depth = len(path) - 1
        while depth > 0:
            prefix = path[:depth]
            if prefix in t.sm:
                if isinstance(get_path(data, prefix), dict):
                    break
                self.skip(edit, "list_item" if isinstance(path[depth], int) else "not_a_mapping")
                return
            depth -= 1
        parent = path[:depth]
        if not isinstance(get_path(data, parent), dict) or parent not in t.sm:
            self.skip(edit, "not_a_mapping")
            return
        chain = path[depth:]
        if any(not isinstance(part, str) for part in chain):
            self.skip(edit, "list_item")
            return
        if len(chain) > 1 and get_path(data, path[: depth + 1]) is not MISSING:
            self.skip(edit, "alias")  # a section that came from a merge key lives elsewhere
            return
        if t.aliased(parent):
            self.skip(edit, "alias")
            return
        pending = self.inserts.setdefault(parent, _Insert(parent))
        node = pending.tree
        for part in chain[:-1]:
            assert isinstance(part, str)
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                self.skip(edit, "not_a_mapping")
                return
            node = child
        last = chain[-1]
        assert isinstance(last, str)
        if isinstance(node.get(last), dict):
            self.skip(edit, "section")
            return
        node[last] = value
        pending.edits.append(edit)

    # -- inserts -----------------------------------------------------------------------------------

    def flush_inserts(self) -> None:
        for pending in self.inserts.values():
            entry = self.t.sm[pending.parent]
            kids = [(p, e) for p, e in self.t.children(pending.parent) if e.key is not None]
            if not kids and not entry.flow:
                # Every key of this block mapping comes from a merge (`<<: *base`): its indentation is
                # unknown here, and an insert at the wrong depth would land in another mapping.
                for edit in pending.edits:
                    self.skip(edit, "alias")
                continue
            if entry.flow:
                self.insert_flow(entry, kids, pending.tree)
            else:
                self.insert_block(pending.parent, kids, pending.tree)

    def anchor_for(self, key: str, kids: list[tuple[KeyPath, SourceEntry]]) -> KeyPath | None:
        names = {p[-1]: p for p, _ in kids}
        for neighbour in _NEIGHBOURS.get(key, ()):
            if neighbour in names:
                return names[neighbour]
        return kids[-1][0] if kids else None

    def insert_block(
        self, parent: KeyPath, kids: list[tuple[KeyPath, SourceEntry]], tree: dict[str, Any]
    ) -> None:
        t = self.t
        step = t.indent_step()
        first_key = kids[0][1].key if kids else None
        indent = first_key.start_col if first_key is not None else 0
        groups: dict[int, list[str]] = {}
        for key, value in tree.items():
            anchor = self.anchor_for(key, kids)
            at = t.after_line(t.entry_end(anchor)) if anchor is not None else len(t.text)
            groups.setdefault(at, []).append(_yaml_block(key, value, indent, step))
        for at, blocks in groups.items():
            text = "".join(blocks)
            if at == len(t.text) and t.text and not t.text.endswith("\n"):
                text = "\n" + text
            self.add(at, at, text, len(parent))

    def insert_flow(
        self, entry: SourceEntry, kids: list[tuple[KeyPath, SourceEntry]], tree: dict[str, Any]
    ) -> None:
        t = self.t
        if t.json:
            import json  # JSON configs only (see _json_scalar)
        multiline = entry.value.start_line != entry.value.end_line
        if t.json and multiline and kids:
            first_key = kids[0][1].key
            assert first_key is not None
            indent = first_key.start_col
            step = max(indent - t.line_indent(entry.value.start_index), 1)
            groups: dict[int, list[str]] = {}
            for key, value in tree.items():
                anchor = self.anchor_for(key, kids)
                assert anchor is not None
                at = t.sm[anchor].value.end_index
                dumped = json.dumps(value, ensure_ascii=False, indent=step).replace("\n", "\n" + " " * indent)
                groups.setdefault(at, []).append(",\n" + " " * indent + json.dumps(key) + ": " + dumped)
            for at, parts in groups.items():
                self.add(at, at, "".join(parts))
            return
        if t.json:
            members = [json.dumps(k) + ": " + json.dumps(v, ensure_ascii=False) for k, v in tree.items()]
        else:
            members = [k + ": " + _yaml_flow_mapping(v) for k, v in tree.items()]
        if kids:
            at = t.sm[kids[-1][0]].value.end_index
            self.add(at, at, "".join(", " + member for member in members))
        else:
            at = entry.value.start_index + 1
            self.add(at, at, ", ".join(members))

    def finish(self) -> EditPlan:
        self.flush_inserts()
        merged: list[TextEdit] = []
        for start, end, _, _, new in sorted(self.queued):
            edit = TextEdit(start, end, new)
            if merged and edit.start == edit.end == merged[-1].start == merged[-1].end:
                new = edit.new
                if merged[-1].new.endswith("\n") and new.startswith("\n"):
                    new = new[1:]  # both inserts at the end of a text without a final newline
                merged[-1] = TextEdit(edit.start, edit.end, merged[-1].new + new)
            elif merged and edit.start < merged[-1].end:
                continue  # two edits of one region: keep the first
            else:
                merged.append(edit)
        self.plan.edits = merged
        return self.plan


def _yaml_flow_mapping(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(k + ": " + _yaml_flow_mapping(v) for k, v in value.items()) + "}"
    return _yaml_flow(value, True)


def _yaml_block(key: str, value: Any, indent: int, step: int) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        return pad + key + ":\n" + "".join(_yaml_block(k, v, indent + step, step) for k, v in value.items())
    return pad + key + ": " + _yaml_flow(value) + "\n"


def uneditable(doc: ConfigDoc) -> str | None:
    """Why no edit of `doc` can be planned (the SkippedEdit reason), or None when edits can be."""
    if not doc.ok:
        return "not_parsed"
    if doc.limits_hit:
        return "limit_hit"
    if doc.shape == ConfigShape.FULL_JOB and not doc.process_path:
        return "no_process"
    return None


def plan_edits_detailed(doc: ConfigDoc, edits: Sequence[ConfigEdit]) -> EditPlan:
    """Plan `edits` (paths relative to the training process) as text edits, with the ones skipped."""
    planner = _Planner(doc)
    reason = uneditable(doc)
    if reason is not None:
        for edit in edits:
            planner.skip(edit, reason)
        return planner.plan
    for edit in edits:
        planner.edit(edit)
    return planner.finish()


def plan_edits(doc: ConfigDoc, edits: Sequence[ConfigEdit]) -> list[TextEdit]:
    """The text edits that make `doc` hold the values of `edits`; see `plan_edits_detailed`."""
    return plan_edits_detailed(doc, edits).edits


def apply_text_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """Apply non-overlapping edits (inserts at one position are applied in the given order).

    Raises ValueError on an edit out of range or overlapping another: that is a planning bug, not
    something user input can cause.
    """
    ordered = sorted(enumerate(edits), key=lambda item: (item[1].start, item[1].end, item[0]))
    out: list[str] = []
    pos = 0
    for _, edit in ordered:
        if not 0 <= edit.start <= edit.end <= len(text) or edit.start < pos:
            raise ValueError(f"text edit {edit.start}:{edit.end} is out of range or overlaps another")
        out.append(text[pos : edit.start])
        out.append(edit.new)
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)
