"""Logging through discord.py's helper, with the token scrubbed from every record as a last guard.

At DEBUG, discord.py logs every gateway event and HTTP body whole (`discord.gateway`,
`discord.client`, `discord.http`): message text, file names, the replies' text. The bot's own DEBUG
never needs them, so the library's loggers stay at INFO or above whatever `OOMCHECK_LOG_LEVEL` says.
"""

from __future__ import annotations

import logging

import discord

# The parent covers every discord.* logger; the named ones are those that log payloads.
LIBRARY_LOGGERS = ("discord", "discord.gateway", "discord.client", "discord.http")
_EXCEPTION_FORMATTER = logging.Formatter()


class RedactFilter(logging.Filter):
    def __init__(self, secret: str) -> None:
        super().__init__()
        self._secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secret:
            return True
        message = record.getMessage()
        if self._secret in message:
            record.msg = message.replace(self._secret, "REDACTED_TOKEN")
            record.args = None
        # A traceback can quote the token too (an exception's message, a local in a frame); the
        # formatter reuses `exc_text` when it is set, so the redacted text is what gets written.
        if record.exc_info and not record.exc_text:
            record.exc_text = _EXCEPTION_FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = record.exc_text.replace(self._secret, "REDACTED_TOKEN")
        if record.stack_info:
            record.stack_info = record.stack_info.replace(self._secret, "REDACTED_TOKEN")
        return True


def setup(level: str, token: str) -> None:
    numeric = getattr(logging, level, logging.INFO)
    discord.utils.setup_logging(level=numeric)
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(max(numeric, logging.INFO))
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactFilter(token))
