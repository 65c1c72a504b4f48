"""The gate's own detectors: what the input scrubber does not look for and no detector library has.

Token shapes (github_pat_, Google AIza…, fal.ai id:secret, Discord webhooks), values under keys that
name a secret at any depth and in any quoting, URL user-info, private-key blocks, signed-URL
parameters, e-mail addresses, and random-looking values in settings. Every pattern starts with a
literal or is found from one, and every repeat is bounded, so a scan stays linear.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

from diagnosis.lazyre import LazyPattern
from diagnosis.scrub import Span, is_placeholder

REDACTED = "REDACTED"
_EDGE = r"(?<![A-Za-z0-9_-])"

# --------------------------------------------------------------------------------------------------
# Token shapes

_SHAPES: tuple[tuple[LazyPattern[str], str, str], ...] = (
    (
        LazyPattern(rf"github_pat_(?<={_EDGE}github_pat_)[A-Za-z0-9_]{{22,255}}"),
        "github_token",
        "github_REDACTED",
    ),
    (
        LazyPattern(rf"AIza(?<={_EDGE}AIza)[0-9A-Za-z_-]{{35}}(?![0-9A-Za-z_-])"),
        "google_key",
        "REDACTED_GOOGLE_KEY",
    ),
    # fal.ai: a UUID, a colon, 32 hex digits; found from the colon.
    (
        LazyPattern(
            r":(?<=(?<![0-9A-Fa-f-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:)"
            r"[0-9a-f]{32}(?![0-9A-Za-z])"
        ),
        "fal_key",
        "REDACTED_FAL_KEY",
    ),
    (
        LazyPattern(r"discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/(\d{15,22}/[A-Za-z0-9_-]{30,120})"),
        "discord_webhook",
        REDACTED,
    ),
    (
        LazyPattern(r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9/_-]{20,200})"),
        "slack_token",
        REDACTED,
    ),
)
_FAL_ID = 37  # the UUID and the colon before the secret


def find_shapes(text: str) -> Iterator[Span]:
    for pattern, kind, placeholder in _SHAPES:
        for m in pattern.finditer(text):
            if kind == "fal_key":
                yield Span(m.start() - _FAL_ID + 1, m.end(), placeholder, kind, 0)
            elif m.lastindex:
                yield Span(m.start(1), m.end(1), placeholder, kind, 0)
            else:
                yield Span(m.start(), m.end(), placeholder, kind, 0)


# --------------------------------------------------------------------------------------------------
# Values under secret-like keys: `token: …`, `"api_key": "…"`, `wandb:` → `key: …`, `PASSWORD=…`.

_PAIR = LazyPattern(
    r"(?<![A-Za-z0-9_.])([A-Za-z][A-Za-z0-9_.-]{0,63})[\"']?[ \t]{0,16}[:=][ \t]{0,16}"
    r"(?:\"((?:[^\"\\\n]|\\.){1,512})\"|'([^'\n]{1,512})'|([^\s\"',;{}\[\]#`]{1,512}))"
)
# The last word of a key that holds a secret, and words that make any key hold one.
_LAST_WORDS = frozenset(
    {
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "pwd",
        "pass",
        "auth",
        "authorization",
        "webhook",
        "credential",
        "credentials",
        "cookie",
        "cookies",
        "apikey",
        "passphrase",
        "signature",
        "sig",
    }
)
_ANY_WORDS = frozenset({"webhook", "password", "passwd", "secret", "credential", "credentials", "cookie"})
# Keys whose value is a secret however short or plain (a person picks it), not only a random string.
_PLAIN_OK = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "secret", "cookie", "credential"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORDS = re.compile(r"[_.\-]+")
_NOT_VALUES = frozenset({"true", "false", "null", "none", "yes", "no", "on", "off", "~", "required"})


def _key_words(key: str) -> list[str]:
    return [w for w in _WORDS.split(_CAMEL.sub("_", key).lower()) if w]


@lru_cache(maxsize=1024)
def secret_key(key: str) -> bool:
    """Does a setting of this name hold a secret (hf_token, api_key, wandb.key, aws_secret_access_key)?"""
    words = _key_words(key)
    return bool(words) and (words[-1] in _LAST_WORDS or any(w in _ANY_WORDS for w in words))


def _random_looking(value: str) -> bool:
    if not value.isascii() or any(c.isspace() for c in value):
        return False  # a sentence ("the token has 3 parts"), not a token
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return len(value) >= 12 and has_digit and has_alpha and len(set(value)) >= 8


def _secret_value(key: str, value: str) -> bool:
    low = value.lower()
    if low in _NOT_VALUES or is_placeholder(value) or value.startswith(("$", "{", "<", "%")):
        return False
    words = _key_words(key)
    if "webhook" in words or "url" in words:
        return "://" in value and len(value) >= 16
    if value[0] in "/.~\\" or "://" in value or value.replace(".", "").isdigit():
        return False
    if any(w in _PLAIN_OK for w in words):
        return len(value) >= 4 and len(set(value)) >= 3
    return _random_looking(value) or high_entropy(value)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def high_entropy(value: str) -> bool:
    """A random string: long, one token, with no path or sentence in it."""
    if len(value) < 20 or any(c in value for c in "/\\. :@"):
        return False
    hexdigits = all(c in "0123456789abcdefABCDEF" for c in value)
    if hexdigits:
        return len(value) >= 32 and _entropy(value) >= 3.3
    mixed = (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )
    return mixed and _entropy(value) >= 4.0


# A line is read for pairs only if it holds a word of a secret's key or a long run of token characters
# (a random value): most lines of a reply are prose, where "word: value" is common and never secret.
_KEY_HINTS = ("token", "key", "secret", "pass", "pwd", "auth", "webhook", "credential", "cookie", "sig")
_LONG_RUN = LazyPattern(r"[A-Za-z0-9+_=-]{20}")


def _lines_worth_reading(text: str) -> list[tuple[int, int]]:
    low = text.lower()
    hits = [m.start() for m in _LONG_RUN.finditer(text)]
    for word in _KEY_HINTS:
        at = low.find(word)
        while at >= 0:
            hits.append(at)
            at = low.find(word, text.find("\n", at) + 1 or len(text))
    lines: list[tuple[int, int]] = []
    end = -1
    for at in sorted(hits):
        if at < end:
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        lines.append((start, end))
    return lines


def find_pairs(text: str) -> Iterator[Span]:
    """Values under secret-like keys, and random-looking values under any key."""
    for lo, hi in _lines_worth_reading(text):
        yield from _pairs(text, lo, hi)


def _pairs(text: str, lo: int, hi: int) -> Iterator[Span]:
    for m in _PAIR.finditer(text, lo, hi):
        group = next(g for g in (2, 3, 4) if m.group(g) is not None)
        value = m.group(group)
        key = m.group(1)
        if secret_key(key) and _secret_value(key, value):
            yield Span(m.start(group), m.end(group), "REDACTED_TOKEN", "assignment", 1)
        elif high_entropy(value):
            yield Span(m.start(group), m.end(group), "REDACTED_TOKEN", "high_entropy", 1)


# --------------------------------------------------------------------------------------------------
# URLs: user-info (a password may hold "@": the user-info runs to the last "@" before the host) and
# signature parameters of signed URLs.

_USERINFO = LazyPattern(r"://([^\s/?#\"'<>`]{1,320})@(?=[A-Za-z0-9\[])")
_SIGNED = LazyPattern(
    r"[?&;](?i:x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential"
    r"|signature|sig|awsaccesskeyid|access_token|token|api_key|apikey|key|auth)=([^&\s#\"'<>`]{1,2048})"
)


def find_urls(text: str) -> Iterator[Span]:
    if "://" in text and "@" in text:
        for m in _USERINFO.finditer(text):
            info = m.group(1)
            colon = info.find(":")
            secret = info[colon + 1 :] if colon >= 0 else ""
            if secret and not is_placeholder(secret):
                yield Span(m.start(1) + colon + 1, m.end(1), REDACTED, "url_credentials", 0)
    if "=" in text:
        for m in _SIGNED.finditer(text):
            if len(m.group(1)) >= 8 and not is_placeholder(m.group(1)):
                yield Span(m.start(1), m.end(1), REDACTED, "signed_url", 0)


# --------------------------------------------------------------------------------------------------
# Private keys: the BEGIN line, the lines of key material after it and the END line, also indented
# inside a YAML block scalar or a JSON string.

_BEGIN_KEY = LazyPattern(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d")
_END_KEY = LazyPattern(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_KEY_LINE = LazyPattern(r"[ \t]{0,64}[A-Za-z0-9+/=]{16,256}[ \t]{0,8}(?:\\n)?[\"',]{0,2}$", re.MULTILINE)
_MAX_KEY_CHARS = 16_384


def find_private_keys(text: str) -> Iterator[Span]:
    if "PRIVATE KEY" not in text and "PuTTY" not in text:
        return
    for m in _BEGIN_KEY.finditer(text):
        end = _END_KEY.search(text, m.end(), min(len(text), m.end() + _MAX_KEY_CHARS))
        if end is not None:
            yield Span(m.start(), end.end(), "REDACTED_PRIVATE_KEY", "private_key", 0)
            continue
        # No END line (cut off): the key material is the lines after the BEGIN line that hold only it.
        stop = m.end()
        while stop < len(text) and stop - m.end() < _MAX_KEY_CHARS:
            line = _KEY_LINE.match(text, stop + 1) if text[stop] == "\n" else None
            if line is None:
                break
            stop = line.end()
        yield Span(m.start(), stop, "REDACTED_PRIVATE_KEY", "private_key", 0)


# --------------------------------------------------------------------------------------------------
# E-mail addresses, found from the "@": the local part is read backwards, the domain forwards.

_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
_DOMAIN = LazyPattern(r"@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9_-])")


_AT = LazyPattern(r"@(?<=[A-Za-z0-9._%+-]@)(?=[A-Za-z0-9])")


def find_emails(text: str) -> Iterator[Span]:
    for m in _AT.finditer(text):
        at = m.start()
        start = at
        while start > 0 and at - start < 64 and text[start - 1] in _LOCAL:
            start -= 1
        domain = _DOMAIN.match(text, at)
        if domain is not None and text[start] not in ".-":
            yield Span(start, domain.end(), "REDACTED_EMAIL", "email", 1)
