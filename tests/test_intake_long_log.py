"""A long log taken whole without cutting it into lines (`_long_log`) gives the region the general path
(`_split_regions`) gives, and only when it does."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.intake import (
    _BLANK_CHUNK,
    _MAX_PARAGRAPH_LINES,
    _configless,
    _content_end,
    _long_log,
    _Region,
    _regions,
    _split_regions,
)
from diagnosis.scrub import LineShapes

_BAR = "my_lora:  {:2d}%|██        | {}/900 [00:01<00:09,  1.70s/it]"
_NOTE = "I tried {} things and then {} more but it still fails"
_INSERTS = [
    "```",
    "~~~yaml",
    "train:",
    "  batch_size: 4",
    '{"config": {"name": "x"}}',
    "---",
    "job: extension\nconfig:\n  name: my_lora\n  process:\n    - type: sd_trainer\n      train:\n"
    "        batch_size: 4\n        gradient_checkpointing: false\n        steps: 3000",
    '{"job": "extension", "config": {"name": "x", "process": [{"type": "sd_trainer", '
    '"train": {"batch_size": 4, "gradient_checkpointing": false, "steps": 3000}}]}}',
    "Traceback (most recent call last):",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "I ran it again and it crashed",
    "",
    "   ",
    "\u3000",
    # A config after an inline fence: its line does not start like a config, so the text's line shapes
    # say "no config can start here", yet the bare block after the fence does start one.
    '```x``` {"train": {"batch_size": 4}}',
]


def _log(lines: int, inserts: list[tuple[int, str]], tail: str, line: str = _BAR) -> str:
    body = [line.format(i % 100, i) for i in range(lines)]
    for at, line in inserts:
        body.insert(at % (len(body) + 1), line)
    return "\n".join(body) + tail


def _plain(regions: list[_Region]) -> list[tuple[str, int, bool, str | None, str]]:
    return [
        (r.kind, r.start, r.fenced, r.lang_tag, "\n".join(r.lines) if r.text is None else r.text)
        for r in regions
    ]


def _same(text: str, budget: int) -> None:
    fast = _long_log(text, budget)
    shapes = LineShapes(text.encode("utf-8"))
    assert _long_log(text, budget, shapes, _configless(shapes)) == fast
    assert _plain(_regions(text, budget, shapes)) == _plain(_split_regions(text, budget))
    general = _split_regions(text, budget)
    if fast is None:
        assert _regions(text, budget) == general
        return
    assert len(general) == 1
    region = general[0]
    assert (fast.kind, fast.start, fast.fenced, fast.lang_tag, fast.text) == (
        region.kind,
        region.start,
        region.fenced,
        region.lang_tag,
        "\n".join(region.lines) if region.text is None else region.text,
    )


@settings(max_examples=25, deadline=None)
@given(
    st.integers(_MAX_PARAGRAPH_LINES - 3, _MAX_PARAGRAPH_LINES + 3),
    st.lists(st.tuples(st.integers(0, 30_000), st.sampled_from(_INSERTS)), min_size=1, max_size=3),
    st.sampled_from(["", "\n", "\n\n   \n", " " * 50, "\nI ran it again and it crashed"]),
    st.sampled_from([100, 1 << 20, 10 << 20]),
    st.sampled_from([_BAR, _NOTE]),
)
@example(_MAX_PARAGRAPH_LINES, [(5, "```")], "", 100, _BAR)
@example(_MAX_PARAGRAPH_LINES, [(5, _INSERTS[6])], "", 100, _BAR)
@example(_MAX_PARAGRAPH_LINES, [(3000, _INSERTS[-1])], "", 100, _BAR)
@example(_MAX_PARAGRAPH_LINES - 3, [(5, "")], "\nI ran it again and it crashed", 100, _BAR)
@example(_MAX_PARAGRAPH_LINES - 1, [(5, "")], "", 100, _BAR)  # 20 000 lines: one short of the limit
@example(_MAX_PARAGRAPH_LINES, [(5, "")], "", 100, _BAR)
@example(_MAX_PARAGRAPH_LINES + 1, [(0, "")], "", 1 << 20, _NOTE)
@example(_MAX_PARAGRAPH_LINES + 1, [(0, "")], "\n\n   \n", 10 << 20, _BAR)
def test_long_log_shortcut_equals_the_general_path(
    lines: int, inserts: list[tuple[int, str]], tail: str, budget: int, line: str
) -> None:
    _same(_log(lines, inserts, tail, line), budget)


def test_the_shortcut_is_taken_for_a_plain_long_log() -> None:
    text = "Running 1 job\n" + _log(_MAX_PARAGRAPH_LINES + 10, [], "\n")
    assert _long_log(text, 1000) is not None
    _same(text, 1000)


_MARKS = st.lists(
    st.tuples(st.integers(0, 4 * _BLANK_CHUNK), st.sampled_from(["x", " x", "\u3000", " ", ""]))
)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3 * _BLANK_CHUNK), _MARKS)
def test_content_end_equals_the_line_by_line_walk(blank: int, marks: list[tuple[int, str]]) -> None:
    lines = [""] * blank
    for at, line in marks[:4]:
        lines.insert(at % (len(lines) + 1), line)
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    assert _content_end(lines) == end


def test_a_flood_of_blank_lines_is_read_in_one_pass() -> None:
    """Stripping trailing blank lines one list copy at a time took minutes here; a pass takes well under
    a second (the test has no clock: a return to the old way would hang it)."""
    text = "x\n" + "\n" * 400_000
    regions = _regions(text, 1 << 20, LineShapes(text.encode("utf-8")))
    assert [(r.kind, "\n".join(r.lines).strip()) for r in regions] == [("prose", "x")]
