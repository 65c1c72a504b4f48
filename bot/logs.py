"""Logging through discord.py's helper, with the token scrubbed from every record as a last guard."""

from __future__ import annotations

import logging

import discord


class RedactFilter(logging.Filter):
    def __init__(self, secret: str) -> None:
        super().__init__()
        self._secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if self._secret:
            message = record.getMessage()
            if self._secret in message:
                record.msg = message.replace(self._secret, "REDACTED_TOKEN")
                record.args = None
        return True


def setup(level: str, token: str) -> None:
    discord.utils.setup_logging(level=getattr(logging, level, logging.INFO))
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactFilter(token))
