"""Auto mode's pre-filter (`diagnosis.screen.may_be_case`) is sound and still filters.

Sound: it answers False only where the whole engine finds no case (`is_case(diagnose(x))`), on every
input the project holds and on texts made of the pieces that make a case. Useful: the chat it is
there for (English and Japanese) is turned away without a diagnosis.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diagnosis import diagnose, facts_prose
from diagnosis.screen import is_case, may_be_case
from tests.conftest import CORPUS, EXAMPLES, ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def _sample(name: str) -> list[str]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _inputs() -> Iterator[tuple[str, list[str]]]:
    """Every input the project holds: the corpus, the goldens' own inputs, the examples (alone and
    as a config and a log posted together), the samples of auto mode's words."""
    files = [
        *sorted(CORPUS.glob("*/*/input.txt")),
        *sorted((ROOT / "tests" / "golden" / "inputs").glob("*.txt")),
        *sorted(EXAMPLES.iterdir()),
    ]
    for path in files:
        yield str(path.relative_to(ROOT)), [path.read_text(encoding="utf-8")]
    yield "examples, together", [path.read_text(encoding="utf-8") for path in sorted(EXAMPLES.iterdir())]
    for name in ("report_sample.txt", "chat_sample.txt"):
        for number, line in enumerate(_sample(name)):
            yield f"{name}:{number}", [line]
    for number, edge in enumerate(_EDGES):
        yield f"edge {number}", edge


_FENCE = "`" * 3
# Inputs at the screen's edges: configs of the least score (and one split over two inputs, which
# intake does not join: no case), log lines that only a fence puts at the start of a line.
_EDGES = [
    ["train:\n  batch_size: 4"],
    ['{"train": {"batch_size": 4}}'],
    ["batch_size: 4\nlr: 1e-4\nsteps: 100"],
    ["thanks", "batch_size: 4\n", "lr: 1e-4\nsteps: 100"],
    [f"it stops at {_FENCE}Loading transformer{_FENCE} every time"],
    [f"my job dies: {_FENCE}Killed{_FENCE}"],
    [f"hmm {_FENCE}\nKilled"],
]


INPUTS = dict(_inputs())
# Each input's verdict from the whole engine, worked out once for the tests below.
_CASES: dict[str, bool] = {}


def _is_case(name: str) -> bool:
    if name not in _CASES:
        _CASES[name] = is_case(diagnose(INPUTS[name]))
    return _CASES[name]


def _unsound(screen: Callable[[list[str]], bool]) -> list[str]:
    return [name for name in INPUTS if _is_case(name) and not screen(INPUTS[name])]


def test_every_case_the_project_holds_passes_the_screen() -> None:
    cases = [name for name in INPUTS if _is_case(name)]
    assert len(cases) >= 60  # the corpus, the goldens' inputs, the examples and the told problems
    assert _unsound(may_be_case) == []


def test_the_check_above_catches_a_screen_that_drops_a_word_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen that forgets the rules' own word lists, or the Japanese problem words, turns real
    cases away, and the soundness check says so."""
    reports = {name for name in INPUTS if name.startswith("report_sample")}
    keep = facts_prose._names_a_problem
    monkeypatch.setattr(facts_prose, "_names_a_problem", lambda key: keep(key) and key.startswith("words."))
    facts_prose._screen.cache_clear()
    try:
        assert set(_unsound(may_be_case)) & reports
    finally:
        monkeypatch.undo()
        facts_prose._screen.cache_clear()
    assert _unsound(may_be_case) == []


# ------------------------------------------------------------------------------------------------
# Texts made of the pieces of cases and of chat


def _corpus_lines() -> list[str]:
    lines: list[str] = []
    for path in sorted(CORPUS.glob("*/*/input.txt"))[::4]:
        lines += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()][:12]
    return lines


# Every literal the prose patterns need (the rules' word lists, the problem and context words), as
# the prose pass folds them: a new rule word is in here as soon as it is in a rule.
_LITERALS = sorted(facts_prose._index().literals)
_PIECES = [
    *_sample("report_sample.txt"),
    *_sample("chat_sample.txt"),
    *_corpus_lines(),
    # config lines
    "batch_size: 4",
    "train:",
    "  gradient_checkpointing: false",
    '"lr": 1e-4,',
    "network:\n  type: lora\n  linear: 32",
    "model:\n  name_or_path: black-forest-labs/FLUX.1-dev\n  quantize: true",
    '{"job": "extension", "config": {"process": [{"train": {"batch_size": 2}}]}}',
    # log lines
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "Traceback (most recent call last):",
    '  File "run.py", line 3, in <module>',
    "RuntimeError: CUDA error: out of memory",
    "Killed",
    "Loading transformer",
    "Quantizing transformer",
    "flux_lora:  12%|█▏   | 360/3000 [10:42<1:00,  1.20s/it, lr: 1e-04 loss: 3.1e-01]",
    # the user's words, en and ja, problems and the trainer's world
    "oom",
    "out of memory",
    "stuck",
    "crashed",
    "slow",
    "training",
    "lora",
    "my 4090",
    "on a 3060 12GB",
    "flux dev",
    "Wan 2.2",
    "メモリ不足",
    "落ちた",
    "止まった",
    "エラー",
    "遅い",
    "学習",
    "トレーニング",
    "4090です",
    # chat, Markdown and secrets
    "thanks",
    "lol",
    "ありがとうございます",
    "**bold**",
    "> quoted",
    "`inline`",
    "```",
    "```yaml",
    "~~~",
    "https://example.com/a:b",
    "10:30",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
]
_SEPARATORS = [" ", "", "\n", "\n\n", ", ", ": ", "。", "\u3000", "\r\n"]


@st.composite
def _texts(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from(_PIECES) | st.sampled_from(_LITERALS), min_size=1, max_size=6))
    out = pieces[0]
    for piece in pieces[1:]:
        out += draw(st.sampled_from(_SEPARATORS)) + piece
    change = draw(st.sampled_from([str, str.upper, str.title, str.lower]))
    return change(out)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_texts(), min_size=1, max_size=3))
def test_a_text_the_screen_turns_away_holds_no_case(inputs: list[str]) -> None:
    if not may_be_case(inputs):
        assert not is_case(diagnose(inputs)), inputs


# ------------------------------------------------------------------------------------------------
# What it turns away

_MORE_CHAT = [
    "thanks!! that worked 🎉",
    "lol same",
    "meeting at 10:30 tomorrow?",
    "see https://github.com/ostris/ai-toolkit for the docs",
    "check the pinned post: it has everything",
    "model: flux",
    "has anyone tried the new flux kontext model? looks great",
    "haha same, my run finished overnight",
    "**bold** and _italic_ and `code` in a chat line",
    "> quoted reply\nagreed",
    "おつかれさまです！",
    "お疲れ様です。今日の配信何時からですか？",
    "設定ありがとうございます、助かりました",
    "LoRAの学習、さっき無事に終わりました！設定ありがとうございます",
    "Ｗａｎ ２．２ 最高",
    "新しいモデル出ましたね",
]


@pytest.mark.parametrize("line", [*_sample("chat_sample.txt"), *_MORE_CHAT])
def test_chat_is_turned_away_without_a_diagnosis(line: str) -> None:
    assert not may_be_case([line]), line


def test_a_config_a_log_or_a_fence_is_never_turned_away_unread() -> None:
    config = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    assert may_be_case([config])
    assert may_be_case(
        ["thanks", "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'a'"]
    )
    assert may_be_case(["```\nthanks\n```"])  # a fence is read by the engine, not screened
