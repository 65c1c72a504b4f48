"""The config-start scan (key names as a prefix tree, first line matched on its own) finds the same
candidate lines as the plain alternation of key names run over "\\n" + text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.config.keys import ALL_KEYS
from diagnosis.intake import (
    _DOC_MARKER,
    _KEY_NAME,
    _YAML_KEY_LINE,
    _config_candidates,
    _config_line,
    _config_line_shape,
    _find_configs,
    _indent,
    _nested_below,
    _region_at,
    _yaml_end,
    prefix_tree,
)
from diagnosis.scrub import LineShapes

_PLAIN = re.compile("\n" + _config_line("|".join(sorted(ALL_KEYS, key=len, reverse=True))))
_KEYS = sorted(ALL_KEYS)
_PIECES = [
    *_KEYS,
    *(key[:-1] for key in _KEYS),  # a key cut short
    *(key + "x" for key in _KEYS[:20]),  # and one run on
    ":",
    ": ",
    ":\t",
    ":x",
    '"',
    "'",
    "- ",
    "-  ",
    " ",
    "  ",
    "\t",
    "{",
    "}",
    "---",
    "--- ",
    "\n",
    "\n",
    "\n",
    "é",
    "#",
]
_fragments = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=8).map("".join)
# Lines shaped like a key line (indent, list dash, quote, key, quote, spaces, colon, rest) or like anything.
_key_lines = st.tuples(
    st.sampled_from(["", " ", "  ", "\t", " " * 41]),
    st.sampled_from(["", "- ", "-  ", "-"]),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(_PIECES),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(["", " ", "\t"]),
    st.sampled_from([":", "", "="]),
    st.sampled_from(["", " 1", "\t1", "x", ":"]),
).map("".join)
_texts = st.lists(st.one_of(_key_lines, _fragments), max_size=12).map("\n".join)


def _plain_candidates(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end() - 1) for m in _PLAIN.finditer("\n" + text)]


@settings(max_examples=500, deadline=None)
@given(_texts)
def test_candidates_equal_the_plain_scan(text: str) -> None:
    assert list(_config_candidates(text)) == _plain_candidates(text)


@settings(max_examples=500, deadline=None)
@given(_texts)
def test_the_shape_of_every_candidate_line_is_flagged(text: str) -> None:
    """A text whose line shapes hold no config start has no candidate line (the shapes may flag more)."""
    shapes = LineShapes(text.encode("utf-8"))
    flagged = shapes.matching(_config_line_shape())
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for start, _ in _config_candidates(text):
        assert shapes.lines[starts.index(start)] in flagged


def test_shape_flags_keys_with_digits_and_capitals() -> None:
    for line in ("  is_v3: true", "  IS_LUMINA2: true", '- "Train": x', "{", "---"):
        assert LineShapes(line.encode("utf-8")).matching(_config_line_shape()), line
    assert not LineShapes(b"my_lora:  12%|###| 3/9 [").matching(_config_line_shape())


def test_prefix_tree_matches_exactly_the_words() -> None:
    tree = re.compile(f"(?:{prefix_tree(_KEYS)})")
    for key in _KEYS:
        assert tree.fullmatch(key)
        assert not tree.fullmatch(key + "x")
    assert prefix_tree(["cache", "cache_latents", "cap"]) == "ca(?:che(?:_latents)?|p)"


def test_first_line_and_json_brace_positions() -> None:
    text = 'train:\n  x: 1\n{"config": {}}\nnoise\n  batch_size: 2\n'
    assert list(_config_candidates(text)) == [(0, 6), (14, 15), (35, 48)]
    assert text[15 - 1] == "{"


def _plain_find_configs(text: str, lines: list[str], budget: int) -> list[tuple[int, int, str]]:
    """`_find_configs` without its shortcut: every candidate in turn, skipping those inside a region
    already looked at (instead of restarting the candidate search after the region)."""
    found: list[tuple[int, int, str]] = []
    line = last = done = 0
    for line_start, match_end in _config_candidates(text):
        line += text.count("\n", last, line_start)
        last = line_start
        if line < done:
            continue
        region = _region_at(text, lines, line, match_end, budget)
        if region is None:
            continue
        end, kind = region
        if kind is not None:
            found.append((line, end, kind))
        done = max(end, line + 1)
    return found


_BLOCKS = [
    "job: extension\nconfig:\n  name: my_lora\n  process:\n    - type: sd_trainer\n      train:\n"
    "        batch_size: 4\n        steps: 3000\n        gradient_checkpointing: false",
    "train:\n  batch_size: 4\n  lr: 1e-4\n  steps: 100\n  optimizer: adamw8bit",
    "model:\n  name_or_path: black-forest-labs/FLUX.1-dev\n  quantize: true\n  low_vram: true",
    '{"job": "extension", "config": {"name": "x", "process": [{"type": "sd_trainer", '
    '"train": {"batch_size": 4, "steps": 3000}}]}}',
    '{\n  "type": "sd_trainer",\n  "train": {"batch_size": 2, "steps": 10},\n'
    '  "model": {"quantize": true}\n}',
    "---",
    "---\ntrain:\n  batch_size: 1",
    "Note: it crashed",
    "  batch_size: 8",
    "Loading transformer",
    "Traceback (most recent call last):",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "my_lora:  12%|█▏        | 360/3000 [10:42<52:03,  1.70s/it]",
    "I changed the batch size and it still fails",
    "",
    "# comment",
    "    - indented item",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_BLOCKS), max_size=14), st.sampled_from([40, 200, 1 << 20]))
def test_find_configs_equals_the_candidate_by_candidate_scan(blocks: list[str], budget: int) -> None:
    text = "\n".join(blocks)
    lines = text.split("\n")
    assert _find_configs(text, lines, budget) == _plain_find_configs(text, lines, budget)


# Key names as first looked for: at every `^` of the text.
_PLAIN_KEY_NAME = re.compile(
    r"^[ \t]*(?:- +)?[\"']?([A-Za-z_][\w.\-]{0,80})[\"']?[ \t]*:(?:[ \t]|$)", re.MULTILINE
)


@settings(max_examples=500, deadline=None)
@given(_texts)
def test_key_names_after_line_breaks_equal_those_at_line_starts(text: str) -> None:
    assert _KEY_NAME.findall("\n" + text) == _PLAIN_KEY_NAME.findall(text)


def _plain_yaml_end(lines: list[str], start: int, budget: int) -> int:
    """The end of a YAML region as first written: blank and comment lines tested before indentation."""
    base = _indent(lines[start])
    i, n, used = start + 1, len(lines), len(lines[start])
    while i < n and used < budget:
        line = lines[i]
        used += len(line) + 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        indent = _indent(line)
        if indent > base:
            i += 1
            continue
        if indent < base:
            break
        if _DOC_MARKER.match(stripped) or stripped.startswith("- ") or stripped == "-":
            i += 1
            continue
        key = _YAML_KEY_LINE.match(line)
        if key is None:
            break
        if key.group(2).strip("\"'") not in ALL_KEYS and not _nested_below(lines, i, indent):
            break
        i += 1
    while i > start and not lines[i - 1].strip():
        i -= 1
    return i


_INDENTS = ["", " ", "  ", "\t", "    ", "\u3000"]
_LINE_BODIES = [*_BLOCKS, "#x", "x"]
_INDENTED = st.lists(st.tuples(st.sampled_from(_INDENTS), st.sampled_from(_LINE_BODIES)), max_size=16)


@settings(max_examples=300, deadline=None)
@given(_INDENTED, st.sampled_from([10, 60, 1 << 20]))
def test_yaml_end_equals_the_blank_lines_first_order(parts: list[tuple[str, str]], budget: int) -> None:
    lines = "\n".join(indent + block for indent, block in parts).split("\n")
    for start in range(len(lines)):
        assert _yaml_end(lines, start, budget) == _plain_yaml_end(lines, start, budget)
