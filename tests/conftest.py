"""Shared test set-up: hypothesis profiles and paths to the bundled corpus and examples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
EXAMPLES = ROOT / "examples"

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def ocr_installed() -> None:
    """Skips a test where Tesseract (with English and Japanese data), pytesseract or Pillow is absent."""
    from bot import ocr

    if not ocr.available():
        pytest.skip("Tesseract with English and Japanese data (or pytesseract, Pillow) is not installed")


@pytest.fixture
def bot_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's own user, as discord.py sets it at login (the bot tests that build an OomBot)."""
    from bot.app import OomBot
    from tests.bot_fakes import BOT_ID, User

    monkeypatch.setattr(OomBot, "user", property(lambda self: User(BOT_ID, bot=True)))
