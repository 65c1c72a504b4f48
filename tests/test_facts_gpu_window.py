"""The card named next to the crash is looked for in a window of the log's lines (300 before the
error, 30 from it on), and only that window is split out of the text. Oracle: the same search over
every line of the text split as the log reader numbers it; the cards stand at and around both edges
of the window, so a window one line off says something else here.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.facts import _gpu_near_the_error, build_facts, choose_log
from diagnosis.facts_model import Facts
from diagnosis.intake import read_case
from diagnosis.logreader import read_log
from diagnosis.logreader.gpus import vram_of_gpu_name
from diagnosis.logreader.reader import GPU_LINES_AFTER as _GPU_LINES_AFTER
from diagnosis.logreader.reader import GPU_LINES_BEFORE as _GPU_LINES_BEFORE
from diagnosis.models import LogFacts, PieceKind

CRASH = "Job process terminated with signal SIGKILL"
CARDS = ["Running on NVIDIA GeForce RTX 4090", "Moved to NVIDIA RTX A6000", "then an RTX 3060 12GB"]
# Offsets from the crash line: both edges of the window, and the crash's own neighbourhood.
EDGES = [-_GPU_LINES_BEFORE - 1, -_GPU_LINES_BEFORE, -_GPU_LINES_BEFORE + 1, -1, 0, 1]
EDGES += [_GPU_LINES_AFTER - 1, _GPU_LINES_AFTER, _GPU_LINES_AFTER + 1]


def reference(logs: Sequence[LogFacts], facts: Facts) -> tuple[str, float] | None:
    """_gpu_near_the_error over every line of the text (its guards are the product's own)."""
    main = choose_log(logs)
    event = facts.fatal or facts.host_oom
    assert main is not None and event is not None and main.device_index is None
    lines = main.piece.text.split("\n")
    error = min(max(event.where.line - 1, 0), len(lines))
    window = range(max(0, error - _GPU_LINES_BEFORE), min(len(lines), error + _GPU_LINES_AFTER))
    named = [(i, found) for i in window if (found := vram_of_gpu_name(lines[i][:400])) is not None]
    if len({name for _, (name, _) in named}) < 2:
        return None
    before = [item for item in named if item[0] <= error]
    return before[-1][1] if before else named[0][1]


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.sampled_from(EDGES), st.sampled_from(CARDS), min_size=2, max_size=5),
    st.integers(0, 2),
)
def test_the_window_finds_what_every_line_finds(cards: dict[int, str], lead: int) -> None:
    crash = _GPU_LINES_BEFORE + 2 + lead  # lines before the crash line (all edges fit in the text)
    lines = [f"step {i}: loss 0.1" for i in range(crash + _GPU_LINES_AFTER + 3)]
    lines[crash] = CRASH
    for offset, card in cards.items():
        if offset:
            lines[crash + offset] = card
    intake = read_case(["\n".join(lines)])
    logs = [read_log(p) for p in intake.pieces if p.kind == PieceKind.LOG]
    facts = build_facts(intake, [], logs, None)
    assert facts.host_oom is not None and facts.host_oom.where.line == crash + 1  # the window's centre
    assert _gpu_near_the_error(logs, facts) == reference(logs, facts)
