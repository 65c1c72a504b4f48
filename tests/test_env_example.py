"""deploy/.env.example speaks both languages: every English comment block is followed by its Japanese one.

README.ja.md sends Japanese operators to this file, so each block of comments (the header, and the
comments above each group of settings) holds the English text first and then the same content in
Japanese, with the same numbers. The settings it lists are exactly the bot's settings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from bot.settings import BotSettings
from oomcheck.botcmd import _env_name
from tests.conftest import ROOT

ENV_EXAMPLE = ROOT / "deploy" / ".env.example"

# A setting line, live (`DISCORD_TOKEN=`) or commented out with its default (`# OOMCHECK_AUTO_MODE=true`).
_SETTING = re.compile(r"^#?\s*([A-Z][A-Z0-9_]*)=")
_JAPANESE = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u4e00-\u9fff]")  # hiragana, katakana, kanji
_LETTER = re.compile(r"[A-Za-z]")
# A setting name inside prose (OOMCHECK_QUEUE_LIMIT): its digits, if any, are not numbers of the text.
_NAME_IN_TEXT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
# 20, 1.0, 600, the 5 of 5xx; not the 3 of sqlite3 nor a digit inside a word or a dotted name.
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?")


@dataclass
class Block:
    """Lines up to a blank line: comments (text after `# `), then the settings they describe."""

    comments: list[str]
    settings: list[str]

    @property
    def english(self) -> list[str]:
        """The comments before the first line holding Japanese."""
        return self.comments[: self._split()]

    @property
    def japanese(self) -> list[str]:
        """The comments from the first line holding Japanese on."""
        return self.comments[self._split() :]

    def _split(self) -> int:
        return next((i for i, line in enumerate(self.comments) if _JAPANESE.search(line)), len(self.comments))

    def label(self) -> str:
        return self.settings[0] if self.settings else "header"


def parse_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        if current is None:
            current = Block([], [])
            blocks.append(current)
        setting = _SETTING.match(line)
        if setting:
            current.settings.append(setting.group(1))
        elif line.startswith("#"):
            assert not current.settings, f"a comment below the settings of its block: {line!r}"
            current.comments.append(line.removeprefix("#").strip())
        else:
            raise AssertionError(f"neither a comment nor a setting: {line!r}")
    return blocks


def numbers(lines: list[str]) -> set[str]:
    return {number for line in lines for number in _NUMBER.findall(_NAME_IN_TEXT.sub(" ", line))}


def language_problems(blocks: list[Block]) -> list[str]:
    """Blocks that are not English first, then Japanese."""
    problems = []
    for block in blocks:
        if not block.comments:
            problems.append(f"{block.label()}: no comment at all")
            continue
        english = [line for line in block.english if line]
        if not any(line.isascii() and _LETTER.search(line) for line in english):
            problems.append(f"{block.label()}: no English comment line")
        if not any(_JAPANESE.search(line) for line in block.japanese):
            problems.append(f"{block.label()}: no Japanese comment line")
        # Once the Japanese starts, an English-only line would be English text after its translation.
        stray = [line for line in block.japanese if line.isascii() and _LETTER.search(line)]
        if stray:
            problems.append(f"{block.label()}: English after the Japanese: {stray}")
    return problems


def number_problems(blocks: list[Block]) -> list[str]:
    """Blocks whose Japanese text lacks a number that the English one gives."""
    problems = []
    for block in blocks:
        missing = numbers(block.english) - numbers(block.japanese)
        if missing:
            problems.append(f"{block.label()}: the Japanese lacks {sorted(missing)}")
    return problems


@pytest.fixture(scope="module")
def blocks() -> list[Block]:
    return parse_blocks(ENV_EXAMPLE.read_text(encoding="utf-8"))


def test_every_block_is_english_then_japanese(blocks: list[Block]) -> None:
    assert blocks[0].settings == [], "the file starts with its header"
    assert all(block.settings for block in blocks[1:])
    assert language_problems(blocks) == []


def test_the_settings_are_exactly_the_bots(blocks: list[Block]) -> None:
    listed = [name for block in blocks for name in block.settings]
    assert len(listed) == len(set(listed)), "a setting is listed twice"
    assert set(listed) == {_env_name(field) for field in BotSettings.model_fields}


def test_the_japanese_gives_the_same_numbers(blocks: list[Block]) -> None:
    assert numbers(blocks[0].english) >= {"600", "123456789012345678"}, "the number pattern reads the header"
    assert number_problems(blocks) == []


def test_the_checks_fire_on_a_broken_copy() -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    # Without the Japanese of one block.
    block = next(b for b in parse_blocks(text) if b.settings == ["OOMCHECK_USER_COOLDOWN_SECONDS"])
    japanese = "".join(f"# {line}\n" for line in block.japanese)
    assert japanese in text
    broken = parse_blocks(text.replace(japanese, "", 1))
    assert language_problems(broken) == ["OOMCHECK_USER_COOLDOWN_SECONDS: no Japanese comment line"]
    # With a number changed in the Japanese only.
    broken = parse_blocks(text.replace("（1〜100）", "（1〜10）", 1))
    assert number_problems(broken) == ["OOMCHECK_HISTORY_DEPTH: the Japanese lacks ['100']"]
    # With the English of one block left out.
    english = "".join(f"# {line}\n" for line in block.english)
    broken = parse_blocks(text.replace(english, "", 1))
    assert language_problems(broken) == ["OOMCHECK_USER_COOLDOWN_SECONDS: no English comment line"]


def test_the_number_pattern_skips_names_and_words() -> None:
    line = "OOMCHECK_X2_Y waits 20.0 s, 5xx or 429, sqlite3 and v1 aside; 1〜100、30 秒"
    assert numbers([line]) == {"20.0", "5", "429", "1", "100", "30"}
