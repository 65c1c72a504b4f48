"""Intake's fast paths answer like the plain computations they replace."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis import intake
from diagnosis.config.keys import ALL_KEYS, JOB_KEYS, MIN_CONFIG_SCORE, SECTION_KEYS, key_score
from diagnosis.logreader.detect import is_log_text
from tests.conftest import CORPUS

_NAMES = st.sampled_from(sorted(JOB_KEYS | SECTION_KEYS) + sorted(ALL_KEYS)[:12] + ["foo", "bar_baz", "x.y"])
_YAML_LINE = st.builds(
    lambda indent, name, tail: f"{' ' * indent}{name}:{tail}",
    st.integers(0, 6),
    _NAMES,
    st.sampled_from(["", " 1", " x", "x"]),
)
_LINE = st.one_of(_YAML_LINE, st.sampled_from(["", "# job: x", "- a", "text", '"name": 1,', "{", "}"]))


@settings(max_examples=400)
@given(st.lists(_LINE, max_size=40))
def test_the_early_score_answers_like_the_score_of_every_name(lines: list[str]) -> None:
    yaml_text = "\n" + "\n".join(lines)
    expected = key_score(intake._KEY_NAME.findall(yaml_text)) >= MIN_CONFIG_SCORE
    assert intake._scores_as_config(intake._KEY_NAME, yaml_text) is expected
    json_text = "\n".join(lines)
    expected = key_score(intake._JSON_KEY_NAME.get().findall(json_text)) >= MIN_CONFIG_SCORE
    assert intake._scores_as_config(intake._JSON_KEY_NAME.get(), json_text) is expected


@given(st.lists(_NAMES, max_size=20), st.lists(_NAMES, max_size=20))
def test_the_score_only_grows_as_names_are_added(first: list[str], more: list[str]) -> None:
    # What the early score relies on: once the names read so far score, the rest cannot undo it.
    assert key_score(first) <= key_score(first + more)


def test_a_score_reached_only_after_many_names_is_still_found() -> None:
    lines = [f"unknown_{i}: 1" for i in range(37)] + ["sample_every: 1", "sample_steps: 1", "walk_seed: 1"]
    assert intake._yaml_scores(lines)
    assert not intake._yaml_scores(lines[:-1])


_PLAIN_WORD = re.compile(r"[\"'(]{0,3}[A-Za-z][A-Za-z'\u2019-]{0,40}[.,!?:;)\"']{0,3}")


def _plain_sentence_like(line: str) -> bool:
    """_sentence_like as first written: each whitespace-separated token tested on its own."""
    stripped = line.strip()
    if not stripped:
        return False
    if not stripped.isascii() and intake._CJK.search(stripped):
        return True
    tokens = stripped.split()
    words = sum(1 for token in tokens if _PLAIN_WORD.fullmatch(token))
    return words >= 3 and words >= 0.6 * len(tokens)


_TOKEN_PIECES = st.sampled_from(
    [
        "word",
        "It",
        "don't",
        "it\u2019s",
        "(see",
        "end.",
        'said"',
        "'q'",
        "a-b",
        "x",
        "B",
        "12",
        "3x",
        "/path/to",
        "a/b",
        "---",
        "((((word",
        "word....",
        "...",
        ":",
        ")",
        '"',
        "'",
        "-",
        "é",
        "日本",
    ]
)
_BLANKS = st.sampled_from([" ", "  ", "\t", "\u00a0", "\u3000", "\x1c", "\x85", "\u2028", "\n"])


@settings(max_examples=500)
@given(st.lists(st.tuples(_TOKEN_PIECES, st.lists(_TOKEN_PIECES, max_size=2), _BLANKS), max_size=10))
def test_sentence_like_counts_words_like_token_by_token(parts: list[tuple[str, list[str], str]]) -> None:
    line = "".join(first + "".join(more) + blank for first, more, blank in parts)
    assert intake._sentence_like(line) is _plain_sentence_like(line)
    assert intake._sentence_like(line.strip()) is _plain_sentence_like(line.strip())


def test_sentence_like_on_the_bot_benchmark_message_and_corpus_lines() -> None:
    from benchmarks.botbench import OOM

    lines = OOM.format(mib=512).splitlines()
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        lines.extend(path.read_text(encoding="utf-8").splitlines())
    verdicts = [intake._sentence_like(line) for line in lines]
    assert verdicts == [_plain_sentence_like(line) for line in lines]
    assert any(verdicts) and not all(verdicts)


def test_the_word_scan_splits_where_str_split_does() -> None:
    blank = re.compile(r"\s")
    assert all(bool(blank.fullmatch(chr(code))) == chr(code).isspace() for code in range(sys.maxunicode + 1))


# Intake's quotes as a regex, before a scanner replaced it (tests/test_intake_scanners.py).
_QUOTED = re.compile(r"\"[^\"\n]{0,2000}\"|\u201c[^\u201d\n]{0,2000}\u201d|`[^`\n]{0,2000}`")


def _plain_quotes_error(line: str) -> bool:
    """_quotes_error as first written: the sentence test first, the quotes found by a regex."""
    if not intake._sentence_like(line):
        return False
    quoted = _QUOTED.findall(line)
    return (
        bool(quoted)
        and any(is_log_text(q.strip('"`\u201c\u201d')) for q in quoted)
        and not is_log_text(_QUOTED.sub("", line))
    )


def _plain_peel_tail(p: list[str], head: int) -> int:
    """_peel_tail as first written: the sentence test first, then the log test."""
    tail = len(p)
    while tail > head + 1 and len(p) - tail < intake._PEEL_LINES and intake._sentence_like(p[tail - 1]):
        if is_log_text(p[tail - 1]):
            break
        tail -= 1
    return tail


_USER_LINES = st.sampled_from(
    [
        "my run dies at step 1, please help",
        'it crashed with "CUDA error: out of memory" again today',
        "it crashed with `Killed` and nothing else, any idea",
        "it crashed with \u201cCUDA error: out of memory\u201d on my 4090",
        'she said "hello there" to me',
        'see "Traceback (most recent call last)" and Error running job: x here',
        "Error running job: CUDA out of memory. Tried to allocate 20.00 MiB",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        'File "/x/run.py", line 90, in main',
        "Killed",
        "thanks in advance for any help with this",
        "CUDA error: out of memory",
        "ok",
        '"',
        "",
    ]
)


@settings(max_examples=300)
@given(st.lists(_USER_LINES, min_size=1, max_size=9), st.integers(0, 3))
def test_the_peeling_answers_like_the_sentence_first_order(p: list[str], head: int) -> None:
    head = min(head, len(p) - 1)
    assert intake._peel_tail(p, head) == _plain_peel_tail(p, head)
    for line in p:
        assert intake._quotes_error(line) is _plain_quotes_error(line)


_JSON_STRINGS = st.text(alphabet='ab{}[]"\\\n\t\u2028é/ ', max_size=12)
_JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), _JSON_STRINGS),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_JSON_STRINGS, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400)
@given(
    st.dictionaries(_JSON_STRINGS, _JSON_VALUES, max_size=5),
    st.sampled_from([None, 0, 2]),
    st.sampled_from(["", "\n", "\nmore } text {", '"', "]}"]),
    st.integers(0, 60),
    st.sampled_from([5, 40, 1 << 20]),
    st.sampled_from([20, 60, 100_000]),
)
def test_the_json_decoder_closes_the_object_where_the_tokenizer_does(
    data: dict[str, object], indent: int | None, tail: str, cut: int, budget: int, fast_chars: int
) -> None:
    import json

    body = json.dumps(data, indent=indent, ensure_ascii=False)
    raw_breaks = body.replace("\\n", "\n")  # a line break inside a string: strict JSON has none
    for text in (
        "pre\n" + body + tail,
        "pre\n" + body[: len(body) - cut] + tail,
        "pre\n" + raw_breaks + tail,
    ):
        lines = text.split("\n")
        original = intake._JSON_FAST_CHARS
        intake._JSON_FAST_CHARS = fast_chars  # shorter limits reach strings and objects near them
        try:
            # The reference is the tokenizer alone: the same function without the decoder.
            plain = intake._json_end(text, lines, 1, 4, budget, decode=False)
            assert intake._json_end(text, lines, 1, 4, budget, decode=True) == plain
        finally:
            intake._JSON_FAST_CHARS = original


def test_the_json_fast_path_is_taken_for_the_ui_config() -> None:
    text = (
        CORPUS / "synthetic" / "102-zimage-turbo-gc-off-1024-1536-batch4-ui-json" / "input.txt"
    ).read_text()
    start_pos = text.index("{")
    assert intake._json_object_size(text, start_pos, 100_000) > 1000
    # No object the decoder is asked about may hold a string longer than the tokenizer skips.
    assert intake._JSON_FAST_CHARS <= intake._JSON_STRING_UNITS


def test_the_json_decoder_is_asked_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its error message counts the lines before the error: asked for each of many short objects, a
    # text of them would cost that count each time.
    text = '{"a" }\n' * 50 + '{"config": {"process": [{"type": "sd_trainer", "train": {"batch_size": 1}}]}}\n'
    lines = text.split("\n")
    monkeypatch.setattr(intake, "_json_object_size", lambda text, start_pos, limit: 0)
    tokenized = intake._find_configs(text, lines, 1 << 20)
    asked: list[int] = []

    def counting(text: str, start_pos: int, limit: int) -> int:
        asked.append(start_pos)
        return real(text, start_pos, limit)

    monkeypatch.undo()
    real = intake._json_object_size
    monkeypatch.setattr(intake, "_json_object_size", counting)
    assert intake._find_configs(text, lines, 1 << 20) == tokenized
    assert tokenized[-1][2] == "json"
    assert asked == [0]
