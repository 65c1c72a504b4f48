"""A case on its way through the bot: what to diagnose, where the answer goes, and the built answer."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine_jobs import StoredInputs
from bot.inputs import Gathered
from bot.send import Outgoing
from bot.views import ReplyButtons
from diagnosis.report import Report


@dataclass(frozen=True)
class Request:
    """One case to diagnose and where its answer goes."""

    gathered: Gathered
    guild_id: int | None
    channel_id: int
    author_id: int
    source_id: int | None  # the message answered (None for a command's own text or file)
    also_answers: tuple[int, ...] = ()  # earlier messages merged into this case (same reply)
    explicit_language: str | None = None
    user_locale: str | None = None
    gpu_vram_gib: float | None = None
    deletable: bool = True
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prepared:
    request: Request
    report: Report
    language: str
    step: int
    outgoing: Outgoing
    buttons: ReplyButtons
    # The whole corrected config (name, bytes): never part of `outgoing`, sent privately on request.
    whole_config: tuple[str, bytes] | None = None
    # The inputs as the store keeps them, when they were packed along with the diagnosis.
    stored: StoredInputs | None = None
