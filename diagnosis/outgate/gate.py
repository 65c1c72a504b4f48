"""The output gate: the last check on every text that leaves (a reply, an embed, an attachment, what
the command line prints or writes).

The input scrubber (`diagnosis.scrub`) is the fast first pass over whole inputs; the gate reads the
little that leaves, so it can afford more: it reads a view of the text with hidden characters
removed and escapes decoded (`view.py`), runs the scrubber's detectors, its own (`shapes.py`) and
detect-secrets' token plugins (`library.py`) on it, looks inside base64 runs, and replaces each secret
in the original text, hidden characters and escapes included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from diagnosis.lazyre import LazyPattern
from diagnosis.outgate.library import find_library
from diagnosis.outgate.shapes import find_emails, find_pairs, find_private_keys, find_shapes, find_urls
from diagnosis.outgate.view import make_view
from diagnosis.scrub import Span, find_secrets

# Found but no credential to revoke: the reply does not count these as secrets.
PERSONAL_KINDS = frozenset({"home_path", "email"})

_Detector = Callable[[str], Iterator[Span]]
_TOKEN_DETECTORS: tuple[_Detector, ...] = (find_shapes, find_library)
_DETECTORS: tuple[_Detector, ...] = (
    lambda text: iter(find_secrets(text)),
    find_shapes,
    find_pairs,
    find_urls,
    find_private_keys,
    find_emails,
    find_library,
)
_BASE64 = LazyPattern(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,4096}={0,2}(?![A-Za-z0-9+/=_-])")


def fingerprint(secret: str) -> str:
    import hashlib  # only a text that held a secret needs it: the command line's start-up does not

    return hashlib.blake2b(secret.encode("utf-8", "replace"), digest_size=12).hexdigest()


class Found:
    """What the gate replaced, by a fingerprint of each distinct secret (never the secret itself)."""

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}

    def credentials(self) -> list[str]:
        """The kind of each distinct credential replaced (personal data such as paths left out)."""
        return [kind for kind in self.kinds.values() if kind not in PERSONAL_KINDS]


def _decoded_base64(run: str) -> str | None:
    """The run's text when it is base64 of printable ASCII."""
    import base64
    import binascii

    padded = run.rstrip("=") + "=" * (-len(run.rstrip("=")) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) < 12 or sum(32 <= b < 127 for b in raw) < len(raw) * 0.95:
        return None
    return raw.decode("ascii", "replace")


def _in_base64(text: str) -> Iterator[Span]:
    """A base64 run that decodes to a token is replaced whole."""
    for m in _BASE64.finditer(text):
        decoded = _decoded_base64(m.group())
        if decoded is None:
            continue
        inner = [s for detect in (*_TOKEN_DETECTORS, find_pairs) for s in detect(decoded)]
        inner += [s for s in find_secrets(decoded) if s.kind != "home_path"]
        if inner:
            yield Span(m.start(), m.end(), "REDACTED_BASE64", inner[0].kind, 0)


def _spans(text: str, keep_personal: bool) -> list[Span]:
    spans = [s for detect in _DETECTORS for s in detect(text)]
    spans += _in_base64(text)
    if keep_personal:
        spans = [s for s in spans if s.kind not in PERSONAL_KINDS]
    return spans


def gate_text(text: str, found: Found | None = None, *, keep_personal: bool = False) -> str:
    """`text` with every secret replaced; each replaced secret is added to `found`.

    `keep_personal`: leave home paths and e-mail addresses (a file written on the user's own disk)."""
    if not text:
        return text
    gated, replaced = _gate(text, keep_personal)
    if found is not None:
        for secret_id, kind in replaced:
            found.kinds.setdefault(secret_id, kind)
    return gated


def _gate(text: str, keep_personal: bool) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The gated text and (fingerprint, kind) of each secret replaced."""
    view = make_view(text)
    spans = _spans(view.text, keep_personal)
    if not spans:
        return text, ()
    spans.sort(key=lambda s: (s.start, s.priority, -s.end))
    mapped: list[tuple[int, int, str, str]] = []
    for s in spans:
        if s.end <= s.start:
            continue
        start, end = view.span(s.start, s.end)
        if mapped and start < mapped[-1][1]:
            continue  # overlaps one already taken (the token inside `hf_token: …`)
        mapped.append((start, end, s.replacement, s.kind))
    out: list[str] = []
    replaced: list[tuple[str, str]] = []
    pos = 0
    for start, end, replacement, kind in mapped:
        out.append(text[pos:start])
        out.append(replacement)
        replaced.append((fingerprint(text[start:end]), kind))
        pos = end
    out.append(text[pos:])
    return "".join(out), tuple(replaced)


T = TypeVar("T")


def gate_all(value: T, found: Found | None = None) -> T:
    """`value` with every text in it gated: a string, UTF-8 bytes (an attachment), and the strings in
    dicts, lists, tuples, named tuples and dataclasses (an embed, a reply, a JSON document, a message
    to send), keys left as they are."""
    return _gate_any(value, found if found is not None else Found())  # type: ignore[no-any-return]


def _gate_any(value: Any, found: Found) -> Any:
    if isinstance(value, str):
        return gate_text(value, found)
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            return value
        gated = gate_text(text, found)
        return value if gated == text else gated.encode("utf-8")
    names = getattr(value, "__dataclass_fields__", None)
    if names is not None and not isinstance(value, type):
        # A dataclass, made again from its gated fields (dataclasses itself is not imported: the
        # command line's start-up keeps it out).
        return type(value)(**{name: _gate_any(getattr(value, name), found) for name in names})
    if isinstance(value, dict):
        return {key: _gate_any(item, found) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_gate_any(item, found) for item in value))
    if isinstance(value, list | tuple):
        return type(value)(_gate_any(item, found) for item in value)
    return value
