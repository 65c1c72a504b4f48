"""Fakes shared by the bot's unit tests: the engine, Discord messages and attachments, the bot itself.

`FakeEngine` stands in for the engine (the adapter is tested, not the diagnosis). Markers in the text
decide the report: "CUDA out of memory" makes a log with one OOM event, "train:" a parsed config;
"steps=N" sets the ladder length.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord

from bot.app import OomBot
from bot.diagnosis_port import InputKinds, kinds_of_report
from bot.inputs import Gathered, SourcedText
from bot.request import Request
from bot.settings import BotSettings
from diagnosis.facts_model import Facts
from diagnosis.models import (
    Applicability,
    ConfigDoc,
    ConfigShape,
    Finding,
    LadderStep,
    LogFacts,
    LogLine,
    OomEvent,
    OomKind,
    Piece,
    PieceKind,
    Severity,
)
from diagnosis.render.discord import DiscordReply, ReplyFile
from diagnosis.report import Report


class FakeEngine:
    rule_ids = ("gc_off", "batch_too_large", "not_oom")

    def __init__(self) -> None:
        self.diagnosed: list[list[str]] = []
        self.steps_asked: list[int] = []  # how many ladder steps each diagnosis was asked to write

    def diagnose(
        self,
        inputs: Sequence[str],
        *,
        locale: str | None,
        gpu_vram_gib: float | None,
        sources: Sequence[str],
        steps: int = 1,
        default_language: str = "en",
    ) -> Report:
        self.diagnosed.append(list(inputs))
        self.steps_asked.append(steps)
        text = "\n".join(inputs)
        config = log = None
        findings: list[Finding] = []
        if "train:" in text:
            piece = Piece(PieceKind.CONFIG_YAML, text, sources[0] if sources else "x", 0, 0)
            config = ConfigDoc(piece, "yaml", ConfigShape.FULL_JOB, {"train": {}}, (), {})
            findings.append(Finding("gc_off", Severity.ERROR, Applicability.MEMORY_ONLY))
        if "CUDA out of memory" in text:
            piece = Piece(PieceKind.LOG, text, "log", 0, 0)
            log = LogFacts(piece, events=[OomEvent(OomKind.CUDA_ALLOC, LogLine(1, "oom"))])
            findings.append(Finding("batch_too_large", Severity.ERROR, Applicability.MEMORY_ONLY))
        count = re.search(r"steps=(\d)", text)
        ladder = [LadderStep(n, ["gc_off"], []) for n in range(1, int(count.group(1)) + 1)] if count else []
        # The user's own words: what is left without mentions, log lines and config lines.
        prose = "\n".join(
            line
            for line in re.sub(r"<@\d+>", "", text).splitlines()
            if "Error" not in line and not re.match(r"\s*-?\s*[\w-]+:", line)
        )
        if re.search(r"[ぁ-ん]", prose):
            words: str | None = "ja"
        else:
            words = "en" if re.search(r"\b[a-z]{3,}\b", prose) else None
        language = locale or words or default_language
        return Report(findings, ladder, Facts(), language, False, config=config, log=log)

    def render(self, report: Report, *, lang: str, step: int) -> DiscordReply:
        ids = ",".join(f.rule_id for f in report.findings) or "none"
        return DiscordReply(
            content=f"[{lang}] step {step}: {ids}",
            embeds=[{"title": "oomcheck", "description": "d"}],
            files=[ReplyFile("fixed.yaml", b"train: {}\n")] if report.config else [],
        )

    def message(self, key: str, lang: str, **params: object) -> str:
        args = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
        return f"{lang}:{key}" + (f"({args})" if args else "")

    def choose_language(
        self, explicit: str | None, user_locale: str | None, guild_default: str | None, text_hint: str | None
    ) -> str:
        for value in (explicit, user_locale, guild_default, text_hint):
            if value and value[:2] in ("ja", "en"):
                return value[:2]
        return "en"

    def scrub(self, text: str, source: str) -> str:
        return re.sub(r"hf_[A-Za-z0-9]{10,}", "hf_REDACTED", text)

    def may_be_case(self, inputs: Sequence[str]) -> bool:
        return True  # the markers decide, in `diagnose`

    def kinds(self, text: str) -> InputKinds:
        return kinds_of_report(self.diagnose([text], locale=None, gpu_vram_gib=None, sources=["m"]))

    def rules_text(self, lang: str) -> str:
        return "\n".join(self.rule_ids)

    def explain(self, rule_id: str, lang: str) -> str | None:
        return f"{rule_id} explained" if rule_id in self.rule_ids else None

    def estimate_text(self, inputs: Sequence[str], *, lang: str, gpu_vram_gib: float | None) -> str:
        return f"[{lang}] estimate of {len(inputs)} input(s) on {gpu_vram_gib} GB"


class SlowEngine(FakeEngine):
    """Takes 0.3 s over the inputs that `is_slow` picks (longer than the tests' diagnosis timeouts)."""

    def __init__(self, is_slow: Callable[[Sequence[str]], bool]) -> None:
        super().__init__()
        self.is_slow = is_slow

    def diagnose(self, inputs: Sequence[str], **kwargs: Any) -> Report:
        if self.is_slow(inputs):
            time.sleep(0.3)
        return super().diagnose(inputs, **kwargs)


CONFIG = "job: extension\nconfig:\n  process:\n    - train:\n        batch_size: 4\n"
LOG = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
SECRET = "hf_abcdefghijklmnopqrstuvwxyz0123"
BOT_ID = 42
HELP = 10
GENERAL = 11
_ids = itertools.count(1000)


@dataclass
class User:
    id: int
    bot: bool = False
    system: bool = False


@dataclass
class Channel:
    id: int
    parent_id: int | None = None


@dataclass
class Sent:
    id: int
    content: str | None
    kwargs: dict[str, Any]


@dataclass
class FakeAttachment:
    filename: str
    data: bytes
    content_type: str | None = None
    reads: int = 0

    @property
    def size(self) -> int:
        return len(self.data)

    async def read(self) -> bytes:
        self.reads += 1
        return self.data


@dataclass
class FakeMessage:
    """What `gather_message` reads of a message."""

    content: str
    attachments: list[FakeAttachment] = field(default_factory=list)


@dataclass
class Message:
    """A member's message as the listeners see it; `reply` records what the bot sent."""

    content: str
    author: User
    channel: Channel
    id: int = field(default_factory=lambda: next(_ids))
    guild: Any = field(default_factory=lambda: SimpleNamespace(id=1, self_role=None))
    attachments: list[Any] = field(default_factory=list)
    reference: Any = None
    type: discord.MessageType = discord.MessageType.default
    webhook_id: int | None = None
    outbox: list[Sent] = field(default_factory=list)

    @property
    def raw_mentions(self) -> list[int]:
        return [BOT_ID] if f"<@{BOT_ID}>" in self.content else []

    @property
    def raw_role_mentions(self) -> list[int]:
        return [int(r) for r in re.findall(r"<@&(\d+)>", self.content)]

    async def reply(self, content: str | None = None, **kwargs: Any) -> Sent:
        await asyncio.sleep(0)  # let a concurrent event run, as the real HTTP call would
        sent = Sent(next(_ids), content if content is not None else kwargs.get("content"), kwargs)
        self.outbox.append(sent)
        return sent


def pasted(*texts: str | SourcedText, source_id: int = 1) -> Request:
    """The request of a member's message in the help channel holding `texts` (a bare string is the
    message's own text)."""
    inputs = tuple(t if isinstance(t, SourcedText) else SourcedText("message", t) for t in texts)
    return Request(gathered=Gathered(inputs), guild_id=1, channel_id=HELP, author_id=7, source_id=source_id)


def settings(tmp_path: Path, **overrides: Any) -> BotSettings:
    values: dict[str, Any] = {
        "DISCORD_TOKEN": "t",
        "help_channel_ids": [HELP],
        "forum_channel_ids": [20],
        "user_cooldown_seconds": 0,
        "database_path": tmp_path / "bot.sqlite3",
        "default_language": "en",
    }
    values.update(overrides)
    return BotSettings(_env_file=None, **values)  # type: ignore[call-arg]


async def make_bot(
    tmp_path: Path, engine: FakeEngine | None = None, *, inline: int = 0, **overrides: Any
) -> OomBot:
    """A bot with its store open, not connected; engine work over `inline` characters goes to the pool."""
    bot = OomBot(settings(tmp_path, **overrides), engine or FakeEngine(), inline_input_chars=inline)
    await bot.service.open_store()
    return bot


# What `client.get_partial_messageable(channel_id)` gives the bot when it edits a reply: the edits it
# made, in order.
class PartialTarget:
    def __init__(self) -> None:
        self.edits: list[dict[str, Any]] = []

    def get_partial_message(self, reply_id: int) -> Any:
        async def edit(**kwargs: Any) -> None:
            self.edits.append({"reply_id": reply_id, **kwargs})

        return SimpleNamespace(edit=edit)
