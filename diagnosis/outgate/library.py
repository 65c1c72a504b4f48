"""Token shapes from detect-secrets: its pattern plugins, run on the outgoing text a line at a time.

Only the plugins that recognise a service's token by its shape are used. Its keyword and entropy
plugins are not: the gate reads keys (`shapes.find_pairs`) with the words of this domain, and flags a
random value only in a setting, where detect-secrets' entropy plugins flag any quoted string of a
reply. Importing detect-secrets takes a fifth of a second (it imports `requests`), so it is imported
only when the text holds something one of its plugins could match (`_MAYBE`): a plain reply never
pays for it.

Three of its token plugins are left out because their patterns reread the text (an unbounded repeat
after a common prefix: quadratic on a long run of `eyJ`, `//` or `sk-`, which tests/test_regex_sweep.py
shows): JWT, npm and OpenAI. OpenAI keys are found by the input scrubber's own bounded pattern, which
the gate runs as well.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Protocol

from diagnosis.lazyre import LazyPattern
from diagnosis.scrub import Span

# Every plugin below matches a run of 16 letters and digits or one of these literals.
_MAYBE = LazyPattern(r"[A-Za-z0-9]{16}|xox[abposr]-|sq0csp-|SG\.|pypi-")

# plugin class name → the kind of secret it finds
_PLUGINS = {
    "AWSKeyDetector": "aws_key",
    "AzureStorageKeyDetector": "service_token",
    "DiscordBotTokenDetector": "discord_token",
    "GitHubTokenDetector": "github_token",
    "GitLabTokenDetector": "service_token",
    "MailchimpDetector": "service_token",
    "PypiTokenDetector": "service_token",
    "SendGridDetector": "service_token",
    "SlackDetector": "slack_token",
    "SquareOAuthDetector": "service_token",
    "StripeDetector": "stripe_key",
    "TelegramBotTokenDetector": "service_token",
    "TwilioKeyDetector": "service_token",
}
_MIN_SECRET = 8  # a shorter "secret" is a plugin's group that caught a fragment


class _Plugin(Protocol):
    def analyze_string(self, string: str) -> Iterator[str]: ...


def _whole(line: str, start: int, end: int) -> tuple[int, int]:
    """A plugin's match widened to the whole token: some patterns take a fixed length of a longer key
    (Stripe's 24 characters of a longer one), which would leave its tail in the reply."""
    while start > 0 and line[start - 1].isascii() and line[start - 1].isalnum():
        start -= 1
    while end < len(line) and line[end].isascii() and line[end].isalnum():
        end += 1
    return start, end


@cache
def _plugins() -> tuple[tuple[_Plugin, str], ...]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    mapping: Mapping[str, Callable[[], _Plugin]] = get_mapping_from_secret_type_to_class()
    classes = {getattr(cls, "__name__", ""): cls for cls in mapping.values()}
    return tuple((classes[name](), kind) for name, kind in _PLUGINS.items() if name in classes)


def find_library(text: str) -> Iterator[Span]:
    if _MAYBE.search(text) is None:
        return
    plugins = _plugins()
    offset = 0
    for line in text.split("\n"):
        if _MAYBE.search(line) is not None:
            for plugin, kind in plugins:
                for secret in set(plugin.analyze_string(line)):
                    if len(secret) < _MIN_SECRET:
                        continue
                    at = line.find(secret)
                    while at >= 0:
                        start, end = _whole(line, at, at + len(secret))
                        yield Span(offset + start, offset + end, f"REDACTED_{kind.upper()}", kind, 0)
                        at = line.find(secret, at + len(secret))
        offset += len(line) + 1
