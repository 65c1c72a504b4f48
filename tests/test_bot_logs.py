from __future__ import annotations

import io
import logging
from collections.abc import Callable

import pytest

from bot.logs import RedactFilter


def _written(secret: str, log: Callable[[logging.Logger], None]) -> str:
    """What a handler filtered with `RedactFilter(secret)` writes for the records `log` makes."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactFilter(secret))
    logger = logging.getLogger("oomcheck.test.redact")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        log(logger)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


def test_the_token_is_redacted_from_formatted_records() -> None:
    def log(logger: logging.Logger) -> None:
        logger.warning("login with %s failed", "tok.en-123")
        logger.warning("plain message")

    text = _written("tok.en-123", log)
    assert "tok.en-123" not in text
    assert "login with REDACTED_TOKEN failed" in text
    assert "plain message" in text


def test_an_empty_secret_changes_nothing() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "a %s", ("b",), None)
    assert RedactFilter("").filter(record)
    assert record.getMessage() == "a b"


def test_a_debug_run_logs_the_bots_own_debug_but_no_gateway_payload(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bot.logs import setup

    token = "tok.en-456"
    pasted = "batch_size: 99  # pasted by alice"
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    names = ("discord", "discord.gateway", "discord.client", "discord.http", "discord.state")
    saved = {name: logging.getLogger(name).level for name in names}
    try:
        setup("DEBUG", token)
        # What discord.py itself logs at DEBUG for a MESSAGE_CREATE and for a REST call.
        event = {"t": "MESSAGE_CREATE", "d": {"content": pasted, "token": token}}
        logging.getLogger("discord.gateway").debug("For Shard ID %s: WebSocket Event: %s", None, event)
        logging.getLogger("discord.client").debug("Dispatching event %s: %s", "message", pasted)
        logging.getLogger("discord.http").debug("POST with %s has returned 200", {"content": pasted})
        logging.getLogger("discord.state").debug("unknown event: %s", pasted)
        logging.getLogger("discord.gateway").info("Shard ID %s has connected to Gateway", None)
        logging.getLogger("oomcheck.bot").debug("own debug line for message %s", 123)
        logging.getLogger("oomcheck.bot").info("login with %s", token)
    finally:
        for handler in root.handlers[:]:
            if handler not in saved_handlers:
                root.removeHandler(handler)
        root.setLevel(saved_level)
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)
    err = capsys.readouterr().err
    assert "own debug line for message 123" in err
    assert "has connected to Gateway" in err
    assert "login with REDACTED_TOKEN" in err
    assert pasted not in err and "alice" not in err
    assert token not in err


def test_the_token_is_redacted_from_a_logged_traceback() -> None:
    def log(logger: logging.Logger) -> None:
        try:
            raise RuntimeError("login failed for tok.en-789")
        except RuntimeError:
            logger.exception("gateway error")

    text = _written("tok.en-789", log)
    assert "tok.en-789" not in text
    assert "RuntimeError: login failed for REDACTED_TOKEN" in text
    assert "Traceback (most recent call last)" in text
