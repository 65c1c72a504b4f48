from __future__ import annotations

import io
import logging

from bot.logs import RedactFilter


def test_the_token_is_redacted_from_formatted_records() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactFilter("tok.en-123"))
    logger = logging.getLogger("oomcheck.test.redact")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("login with %s failed", "tok.en-123")
        logger.warning("plain message")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "tok.en-123" not in text
    assert "login with REDACTED_TOKEN failed" in text
    assert "plain message" in text


def test_an_empty_secret_changes_nothing() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "a %s", ("b",), None)
    assert RedactFilter("").filter(record)
    assert record.getMessage() == "a b"
