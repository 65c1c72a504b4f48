"""A long log taken whole without cutting it into lines (`_long_log`) gives the region the general path
(`_split_regions`) gives, and only when it does."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diagnosis.intake import _MAX_PARAGRAPH_LINES, _long_log, _regions, _split_regions
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
]


def _log(lines: int, inserts: list[tuple[int, str]], tail: str, line: str = _BAR) -> str:
    body = [line.format(i % 100, i) for i in range(lines)]
    for at, line in inserts:
        body.insert(at % (len(body) + 1), line)
    return "\n".join(body) + tail


def _same(text: str, budget: int) -> None:
    fast = _long_log(text, budget)
    assert _long_log(text, budget, LineShapes(text.encode("utf-8"))) == fast
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
