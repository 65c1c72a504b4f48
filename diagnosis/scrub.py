"""Replace secrets in pasted text before anything else reads it.

Every input goes through `scrub` first, so no later stage (parser, rules, renderer, logs) can echo a
token back. Placeholders are plain YAML-safe words (no quotes, flow or anchor characters, no ": "), so
a scrubbed config parses exactly like the original did.

Each detector is a regex with bounded quantifiers and a lookbehind that lets a match start only at the
edge of a run of token characters, so a scan stays linear even on a megabyte of base64. A candidate is
then validated (length, alphabet, variety of characters) so that ordinary words such as `hf_home`,
`sk-learn` or `max_token_length: 77` are left alone.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import NamedTuple

from diagnosis.lazyre import LazyPattern
from diagnosis.models import SecretHit

# How far around a candidate we look for words such as "wandb" or "civitai" (kept small and fixed so a
# single huge line does not make the scan quadratic).
_CONTEXT_CHARS = 160


class Span(NamedTuple):  # a tuple: detectors make many, and a tuple is quick to make
    """A secret a detector found: where it is and what replaces it (the output gate reads these too)."""

    start: int  # span of text to replace
    end: int
    replacement: str
    kind: str
    priority: int  # lower wins when two candidates overlap


def _distinct(value: str) -> int:
    return len(set(value))


def _context(text: str, start: int, end: int) -> str:
    """The part of the candidate's own line within _CONTEXT_CHARS of it, lower-cased."""
    lo = max(0, start - _CONTEXT_CHARS)
    hi = min(len(text), end + _CONTEXT_CHARS)
    window = text[lo:hi]
    left = window.rfind("\n", 0, start - lo)
    right = window.find("\n", end - lo)
    return window[left + 1 : right if right >= 0 else len(window)].lower()


# Patterns begin with a literal ("hf_", ".", "_", "/", ":") and check the character before it with a
# lookbehind placed after that literal: Python's regex engine then jumps between occurrences of the
# literal instead of trying every offset, which keeps multi-megabyte logs fast.

# --------------------------------------------------------------------------------------------------
# Hugging Face: hf_ followed by 30–40 letters and digits (real ones are 34, mixed case).

_HF = LazyPattern(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])")


def _hf_ok(token: str) -> bool:
    body = token[3:]
    return any(c.isupper() for c in body) and any(c.islower() for c in body) and _distinct(body) >= 12


def _find_hf(text: str, low: str) -> Iterator[Span]:
    if "hf_" not in text:
        return
    for m in _HF.finditer(text):
        if _hf_ok(m.group()):
            yield Span(m.start(), m.end(), "hf_REDACTED", "hf_token", 0)


# --------------------------------------------------------------------------------------------------
# Discord bot tokens: base64url(user id) . timestamp . HMAC. Found from the middle part outwards.

_B64 = r"A-Za-z0-9_\-"
_DISCORD_MIDDLE = re.compile(rf"\.[{_B64}]{{6,7}}\.")
_DISCORD_HEAD = LazyPattern(rf"(?<![{_B64}.])[{_B64}]{{23,28}}\Z")
_DISCORD_TAIL = LazyPattern(rf"[{_B64}]{{27,40}}(?![{_B64}.])")


def _decodes_to_snowflake(part: str) -> bool:
    padded = part + "=" * (-len(part) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded)
    except (binascii.Error, ValueError):
        return False
    return 17 <= len(raw) <= 20 and raw.isdigit()


def _find_discord(text: str, low: str) -> Iterator[Span]:
    for m in _DISCORD_MIDDLE.finditer(text):
        head = _DISCORD_HEAD.search(text, max(0, m.start() - 28), m.start())
        tail = _DISCORD_TAIL.match(text, m.end())
        if head is None or tail is None:
            continue
        if _decodes_to_snowflake(head.group()) and _distinct(tail.group()) >= 12:
            yield Span(head.start(), tail.end(), "REDACTED_DISCORD_TOKEN", "discord_token", 0)


# --------------------------------------------------------------------------------------------------
# Hex keys are only looked for near their service's name: a bare 40-hex string is far more often a
# git commit, and a 32-hex one a file hash.

_HEX40 = LazyPattern(r"(?<![0-9A-Za-z_])[0-9a-f]{40}(?![0-9A-Za-z_])")
_HEX32 = LazyPattern(r"(?<![0-9A-Za-z_])[0-9a-fA-F]{32}(?![0-9A-Za-z_])")
_URL_TOKEN = LazyPattern(r"[?&](?:token|api_key|apikey)=([A-Za-z0-9_-]{16,128})(?![A-Za-z0-9_-])")


def _near(low: str, word: str) -> Iterator[tuple[int, int]]:
    """Merged ranges within _CONTEXT_CHARS (plus a key's length) of each occurrence of `word`."""
    reach = _CONTEXT_CHARS + 140
    lo = hi = -1
    pos = low.find(word)
    while pos >= 0:
        start, end = max(0, pos - reach), min(len(low), pos + len(word) + reach)
        if start > hi:
            if hi >= 0:
                yield lo, hi
            lo = start
        hi = max(hi, end)
        pos = low.find(word, pos + 1)
    if hi >= 0:
        yield lo, hi


def _find_wandb(text: str, low: str) -> Iterator[Span]:
    for lo, hi in _near(low, "wandb"):
        for m in _HEX40.finditer(text, lo, hi):
            ctx = _context(text, m.start(), m.end())
            has_words = "wandb" in ctx and any(w in ctx for w in ("key", "login", "token"))
            if has_words and _distinct(m.group()) >= 8:
                yield Span(m.start(), m.end(), "REDACTED_WANDB_KEY", "wandb_key", 0)


def _find_civitai(text: str, low: str) -> Iterator[Span]:
    for lo, hi in _near(low, "civitai"):
        for m in _HEX32.finditer(text, lo, hi):
            if "civitai" in _context(text, m.start(), m.end()) and _distinct(m.group()) >= 8:
                yield Span(m.start(), m.end(), "REDACTED_CIVITAI_KEY", "civitai_key", 0)
        for m in _URL_TOKEN.finditer(text, lo, hi):
            if "civitai" in _context(text, m.start(), m.end()) and _distinct(m.group(1)) >= 8:
                yield Span(m.start(1), m.end(1), "REDACTED_CIVITAI_KEY", "civitai_key", 0)


# --------------------------------------------------------------------------------------------------
# OpenAI-style keys: sk-…, sk-proj-…

_OPENAI = LazyPattern(
    r"sk-(?<![A-Za-z0-9_-]sk-)(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])"
)


def _find_openai(text: str, low: str) -> Iterator[Span]:
    if "sk-" not in text:
        return
    for m in _OPENAI.finditer(text):
        body = m.group()[3:]
        if any(c.isdigit() for c in body) and any(c.isalpha() for c in body) and _distinct(body) >= 10:
            yield Span(m.start(), m.end(), "sk-REDACTED", "openai_key", 0)


# --------------------------------------------------------------------------------------------------
# Service tokens with a fixed prefix: GitHub (ghp_, gho_, ghu_, ghs_, ghr_), RunPod (rpa_),
# Replicate (r8_). The prefix alone is too common in words, so the body must look random.

# Found from the underscore, with the prefix (and the edge before it) checked behind it: the body has
# no underscore, so each match has exactly one, and a scan that jumps from underscore to underscore
# finds the same tokens as one that tries every offset for a prefix.
_EDGE = "(?<![A-Za-z0-9_])"
_PREFIXED = LazyPattern(
    rf"_(?:(?<={_EDGE}gh[pousr]_)|(?<={_EDGE}rpa_)|(?<={_EDGE}r8_))[A-Za-z0-9]{{20,80}}(?![A-Za-z0-9_])"
)
_PREFIX_KIND = {"rpa": "runpod_key", "r8": "replicate_token"}


_GH_PREFIX = LazyPattern(r"gh[pousr]_")  # starts with a literal: searched from "gh" to "gh"


def _has_prefix(low: str) -> bool:
    """Does the (lower-cased) text hold one of the prefixes? "gh" alone is in many words ("height")."""
    return _GH_PREFIX.get().search(low) is not None or "rpa_" in low or "r8_" in low


def _find_prefixed(text: str, low: str) -> Iterator[Span]:
    if not _has_prefix(low):
        return
    for m in _PREFIXED.finditer(text):
        prefix = "r8" if text[m.start() - 1] == "8" else text[m.start() - 3 : m.start()]
        body = m.group()[1:]
        has_digit = any(c.isdigit() for c in body)
        if has_digit and any(c.isalpha() for c in body) and _distinct(body) >= 10:
            kind = _PREFIX_KIND.get(prefix, "github_token")
            yield Span(m.start() - len(prefix), m.end(), f"{prefix}_REDACTED", kind, 0)


# --------------------------------------------------------------------------------------------------
# HTTP credentials: `Authorization: Bearer <token>` and `https://user:password@host`.

_BEARER = LazyPattern(r"[ \t]+([A-Za-z0-9._~+/=-]{12,2048})(?![A-Za-z0-9._~+/=-])")
_URL_CREDENTIALS = LazyPattern(r"://[^\s/:@]{1,64}:([^\s/@]{1,128})@")


def _find_bearer(text: str, low: str) -> Iterator[Span]:
    pos = low.find("bearer")
    while pos >= 0:
        m = _BEARER.match(text, pos + 6) if pos == 0 or not low[pos - 1].isalnum() else None
        if m and _plausible_secret(m.group(1), 12):
            yield Span(m.start(1), m.end(1), "REDACTED_TOKEN", "bearer_token", 0)
        pos = low.find("bearer", pos + 1)


def _find_url_credentials(text: str, low: str) -> Iterator[Span]:
    if "@" not in text:
        return
    pos = text.find("://")
    while pos >= 0:
        m = _URL_CREDENTIALS.match(text, pos)
        if m and not is_placeholder(m.group(1)):
            yield Span(m.start(1), m.end(1), "REDACTED", "url_credentials", 0)
        pos = text.find("://", pos + 3)


# --------------------------------------------------------------------------------------------------
# Assignments: HF_TOKEN=…, export WANDB_API_KEY=…, hf_token: …, api_key: "…" — found from the key's
# last word (in the lower-cased text), then the value after `:` or `=`.

_KEY_WORDS = ("token", "secret", "password", "_key", "apikey")
_VALUE = LazyPattern(r"[ \t]*[:=][ \t]*[\"']?([^\s\"'`#,;]{8,512})")
_PLACEHOLDER_WORDS = ("your", "xxxx", "redacted", "example", "changeme", "here", "<", "${", "$(", "%")


_LOOSE_KEYS = ("password", "secret")  # people pick these by hand: letters only, 8+ characters


def is_placeholder(value: str) -> bool:
    """A value that stands for a secret ("your_token_here", "REDACTED_TOKEN", "****")."""
    low = value.lower()
    return any(w in low for w in _PLACEHOLDER_WORDS) or _distinct(value.strip("*")) <= 1


@lru_cache(maxsize=4096)  # pasted logs repeat the same line many times
def _plausible_secret(value: str, min_len: int, letters_only: bool = False) -> bool:
    low = value.lower()
    if is_placeholder(value) or low in _LOOSE_KEYS:
        return False
    if value[0] in "/.~\\" or "://" in value or "\\" in value or value.isdigit():
        return False
    if low in {"true", "false", "null", "none"}:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if letters_only and has_alpha and len(value) >= min_len:
        return _distinct(value) >= 5
    return len(value) >= min_len and has_digit and has_alpha and _distinct(value) >= 8


def _find_assignments(text: str, low: str) -> Iterator[Span]:
    for word in _KEY_WORDS:
        pos = low.find(word)
        while pos >= 0:
            # `token` must start a word (hf_token, token); `_key` always follows one (API_KEY).
            starts_word = word.startswith("_") or pos == 0 or not low[pos - 1].isalnum()
            m = _VALUE.match(text, pos + len(word)) if starts_word else None
            if m and _plausible_secret(m.group(1), *((8, True) if word in _LOOSE_KEYS else (12, False))):
                yield Span(m.start(1), m.end(1), "REDACTED_TOKEN", "assignment", 1)
            pos = low.find(word, pos + 1)


# --------------------------------------------------------------------------------------------------
# User names in home folders: /home/<name>/, /var/home/<name>, /Users/<name>/, C:\Users\<name>\ (also
# C:\\Users\\ in YAML strings and C:/Users/ with forward slashes), HOMEPATH=\Users\<name>, and the user
# name of a shell prompt (alice@gpu-box:~$). A name is any run of characters a file name may hold, in
# any script (müller, 田中), and is replaced whole: a name is never cut where an ASCII class ends.

_NAME_CHAR = r"[^\s/\\:*?\"'`<>|,;=()\[\]{}]"
_NAME = rf"{_NAME_CHAR}{{1,64}}(?!{_NAME_CHAR})"
_UNIX_HOME = LazyPattern(rf"/(?:(?<![A-Za-z0-9_.-]/)|(?<=/var/))(?:home|Users)/({_NAME})")
# Inside a Windows name a space is allowed ("Erin Ko"); the name runs to the next separator, or, with
# none after it (a prompt `PS C:\Users\alice>`, a path at the end of a line), to its last name character.
_WIN_NAME = r"([^\\/:*?\"<>|\r\n\t]{1,64}?(?=\\|/)|[^\s\\/:*?\"'`<>|,;]{1,64}(?![^\s\\/:*?\"'`<>|,;]))"
_WIN_HOME = LazyPattern(
    r":(?<![A-Za-z0-9_][A-Za-z]:)(?<=[A-Za-z]:)(?:\\\\|\\|/)[Uu][Ss][Ee][Rr][Ss](?:\\\\|\\|/)" + _WIN_NAME
)
_HOMEPATH = LazyPattern(
    r"(?<![A-Za-z0-9_])HOMEPATH[ \t]{0,8}[=:][ \t]{0,8}[\"']?(?:\\\\|\\|/)[Uu]sers(?:\\\\|\\|/)" + _WIN_NAME
)
_SEP = r"(?:\\\\|\\|/)"
_WSL_MOUNT_HOME = LazyPattern(rf"/mnt/[A-Za-z]/[Uu]sers/({_NAME})")
_WSL_SHARE_HOME = LazyPattern(
    rf"[Ww][Ss][Ll](?:\$|\.localhost){_SEP}[A-Za-z0-9._-]{{1,64}}{_SEP}home{_SEP}({_NAME})"
)
# A shell prompt: user@host:~$, user@host:/path#, found from the "@" (the user is read backwards).
_PROMPT_HOST = LazyPattern(r"@[A-Za-z0-9][A-Za-z0-9._-]{0,63}:(?:~|/)[^\s$#>]{0,256}[$#](?![^\s])")
_NOT_A_USER = {"user", "public", "default", "default user", "all users", "shared", "username", "<user>"}


def _prompt_user(text: str, at: int) -> int:
    """Where the user name before the "@" at `at` starts (== at: none). It starts a line or follows a
    blank, a bracket (a venv's "(venv) ") or a prompt's own punctuation."""
    start = at
    while start > 0 and at - start < 64 and re.match(_NAME_CHAR, text[start - 1]) and text[start - 1] != "@":
        start -= 1
    if start == at or (start > 0 and text[start - 1] not in " \t\n\r)]>"):
        return at
    return start


def _find_prompts(text: str, low: str) -> Iterator[Span]:
    if "@" not in text:
        return
    for m in _PROMPT_HOST.finditer(text):
        at = m.start()
        start = _prompt_user(text, at)
        if start < at and text[start:at].lower() not in _NOT_A_USER:
            yield Span(start, at, "USER", "home_path", 2)


def _find_home_paths(text: str, low: str) -> Iterator[Span]:
    patterns = []
    if "/home/" in text or "/Users/" in text:
        patterns.append(_UNIX_HOME)
    if "users" in low:
        patterns.append(_WIN_HOME)
    if "/mnt/" in low:
        patterns.append(_WSL_MOUNT_HOME)
    if "wsl" in low:
        patterns.append(_WSL_SHARE_HOME)
    if "HOMEPATH" in text:
        patterns.append(_HOMEPATH)
    for pattern in patterns:
        for m in pattern.finditer(text):
            name = m.group(1)
            if name.lower() not in _NOT_A_USER and name.strip():
                yield Span(m.start(1), m.end(1), "USER", "home_path", 2)


_DETECTORS: tuple[Callable[[str, str], Iterator[Span]], ...] = (
    _find_hf,
    _find_discord,
    _find_wandb,
    _find_civitai,
    _find_openai,
    _find_prefixed,
    _find_bearer,
    _find_url_credentials,
    _find_assignments,
    _find_home_paths,
    _find_prompts,
)


def _all_candidates(text: str) -> list[Span]:
    """Every detector over the whole text."""
    low = _lower(text)
    return [c for detect in _DETECTORS for c in detect(text, low)]


def _lower(text: str) -> str:
    # ASCII-only lower-casing keeps every offset of `low` equal to the same offset in `text`.
    return text.encode("ascii", "replace").lower().decode("ascii")


# --------------------------------------------------------------------------------------------------
# Screening a long text. Every detector but two finds its secrets within one line, and each of its
# matches contains a short ASCII literal ("hf_", "token", "://", …). A long log is mostly progress-bar
# redraws that differ only in their digits, so its lines are folded into a few distinct shapes (ASCII
# lower-cased, digits as "0", non-ASCII bytes as one byte), the literals are looked for in those shapes
# only, and the line-bound detectors then run on the lines whose shape holds one of their literals.
# The two detectors that look around a service's name (wandb, civitai) still scan the whole text, but
# only when that name occurs. The result is the same list of candidates as `_all_candidates`.

_SCREEN_MIN_CHARS = 1 << 16  # shorter texts are scanned whole: screening would cost more than it saves
_MERGE_GAP_LINES = 16  # flagged lines this close together are scanned as one window
# A detector whose literal flags more windows than this, or more than 1/_MAX_FLAGGED_SHARE of the
# lines, scans the whole text; distinct shapes longer than that share of the text are not worth screening.
_MAX_WINDOWS = 256
_MAX_FLAGGED_SHARE = 8
_SHAPE = bytes(
    b + 32 if 65 <= b <= 90 else 48 if 48 <= b <= 57 else 0x80 if b >= 0x80 else b for b in range(256)
)
# The literal(s) that every match of a line-bound detector contains, as they read in a line's shape.
_LINE_LITERALS: dict[Callable[[str, str], Iterator[Span]], LazyPattern[bytes]] = {
    _find_hf: LazyPattern(rb"hf_"),
    _find_discord: LazyPattern(rb"\.[a-z0_\-]{6,7}\."),
    _find_openai: LazyPattern(rb"sk-"),
    _find_prefixed: LazyPattern(rb"gh[pousr]_|rpa_|r0_"),
    _find_bearer: LazyPattern(rb"bearer"),
    _find_url_credentials: LazyPattern(rb"://"),
    _find_assignments: LazyPattern(rb"token|secret|password|_key|apikey"),
    _find_home_paths: LazyPattern(rb"/home/|users|/mnt/|wsl|homepath"),
    _find_prompts: LazyPattern(rb"@[a-z0][a-z0._-]{0,63}:[~/]"),
}
_NAME_LITERALS: dict[Callable[[str, str], Iterator[Span]], LazyPattern[bytes]] = {
    _find_wandb: LazyPattern(b"wandb"),
    _find_civitai: LazyPattern(b"civitai"),
}


def _windows(flagged: list[int]) -> list[tuple[int, int]]:
    """Sorted line indexes → [first, end) line ranges, neighbours within _MERGE_GAP_LINES joined."""
    out: list[tuple[int, int]] = []
    for i in flagged:
        if out and i - out[-1][1] <= _MERGE_GAP_LINES:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def _char_offsets(utf8: bytes, n_chars: int, byte_offsets: list[int]) -> list[int]:
    """Sorted character-boundary offsets into `utf8` → offsets into the text it encodes.

    Only the bytes between the offsets and the nearer end of the text are decoded.
    """
    half = len(utf8) // 2
    out: list[int] = []
    b = c = 0
    for offset in byte_offsets:
        if offset > half:
            break
        c += len(utf8[b:offset].decode("utf-8"))
        b = offset
        out.append(c)
    tail: list[int] = []
    b, c = len(utf8), n_chars
    for offset in reversed(byte_offsets[len(out) :]):
        c -= len(utf8[offset:b].decode("utf-8"))
        b = offset
        tail.append(c)
    return out + tail[::-1]


def _lines_of(lines: list[bytes], shapes: set[bytes]) -> list[int]:
    """Sorted indexes of the lines that have one of `shapes`."""
    if len(shapes) > 4:
        return [i for i, line in enumerate(lines) if line in shapes]
    found: list[int] = []
    for shape in shapes:  # list.index compares in C: a few passes beat one loop in Python
        at = -1
        try:
            while True:
                at = lines.index(shape, at + 1)
                found.append(at)
        except ValueError:
            pass
    return sorted(found)


class LineShapes:
    """The lines of a UTF-8 text folded to their shapes (ASCII lower-cased, digits as "0", every
    non-ASCII byte as one byte), and the distinct shapes. A question about every line that the folding
    cannot change the answer of can be asked of the distinct shapes alone: a long log has few."""

    def __init__(self, utf8: bytes) -> None:
        self.utf8 = utf8
        self.lines = utf8.translate(_SHAPE).split(b"\n")
        self.shapes = list(dict.fromkeys(self.lines))
        # Worth asking the shapes only when they are much shorter than the text.
        self.few = sum(map(len, self.shapes)) <= len(utf8) // _MAX_FLAGGED_SHARE
        self._blob: bytes | None = None
        self._starts: list[int] = []

    def matching(self, pattern: re.Pattern[bytes] | LazyPattern[bytes]) -> set[bytes]:
        """The shapes that `pattern` matches in (it must not match across a line break)."""
        if self._blob is None:
            self._blob = b"\n".join(self.shapes)
            at = 0
            for shape in self.shapes:
                self._starts.append(at)
                at += len(shape) + 1
        return {
            self.shapes[bisect.bisect_right(self._starts, m.start()) - 1]
            for m in pattern.finditer(self._blob)
        }


def _screened(text: str, shapes: LineShapes, *, always: bool = False) -> list[Span] | None:
    """The candidates of `_all_candidates(text)`, found through the shapes of its lines.

    None when the text has too many distinct shapes for screening to pay. A detector whose literal
    flags too many lines scans the whole text, like the rest of it does unscreened (unless `always`).
    """
    if not always and not shapes.few:
        return None
    low: str | None = None
    candidates: list[Span] = []
    for detect in _DETECTORS:
        name = _NAME_LITERALS.get(detect)
        literal = _LINE_LITERALS.get(detect)
        if name is not None or literal is None:
            if name is None or shapes.matching(name):
                low = _lower(text) if low is None else low
                candidates.extend(detect(text, low))
            continue
        flagged = _lines_of(shapes.lines, shapes.matching(literal))
        windows = _windows(flagged)
        if not always and (
            len(flagged) > len(shapes.lines) // _MAX_FLAGGED_SHARE or len(windows) > _MAX_WINDOWS
        ):
            low = _lower(text) if low is None else low
            candidates.extend(detect(text, low))
            continue
        for offset, part in _parts(text, shapes, windows):
            for c in detect(part, _lower(part)):
                candidates.append(Span(c.start + offset, c.end + offset, c.replacement, c.kind, c.priority))
    return candidates


def _parts(text: str, shapes: LineShapes, windows: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(offset, text) of each window of lines."""
    lines, utf8 = shapes.lines, shapes.utf8
    byte_spans: list[tuple[int, int]] = []
    b = 0
    line = 0
    for first, end in windows:
        b += sum(map(len, lines[line:first])) + first - line
        size = sum(map(len, lines[first:end])) + end - first - 1
        byte_spans.append((b, b + size))
        b, line = b + size + 1, end
    char_starts = _char_offsets(utf8, len(text), [start for start, _ in byte_spans])
    return [
        (offset, utf8[start:end].decode("utf-8"))
        for offset, (start, end) in zip(char_starts, byte_spans, strict=True)
    ]


def _candidates(text: str, utf8: bytes | None) -> tuple[list[Span], LineShapes | None]:
    if len(text) >= _SCREEN_MIN_CHARS:
        if utf8 is None:
            try:
                utf8 = text.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates: scanned whole
                utf8 = None
        shapes = LineShapes(utf8) if utf8 is not None else None
        screened = _screened(text, shapes) if shapes is not None else None
        if screened is not None:
            return screened, shapes
        return _all_candidates(text), shapes
    return _all_candidates(text), None


def scrub(text: str, source: str) -> tuple[str, list[SecretHit]]:
    """Return `text` with every secret replaced, and one hit (kind, source, line) per replacement."""
    out, hits, _ = scrub_screening(text, source, None)
    return out, hits


def scrub_screening(
    text: str, source: str, utf8: bytes | None
) -> tuple[str, list[SecretHit], LineShapes | None]:
    """`scrub`, for a caller that has `text.encode("utf-8")` at hand already (it saves encoding again);
    also the shapes of the text's lines when it was long enough to be screened through them (they
    describe the returned text too when no secret was replaced)."""
    candidates, shapes = _candidates(text, utf8)
    if not candidates:
        return text, [], shapes
    candidates.sort(key=lambda c: (c.start, c.priority, -c.end))
    out: list[str] = []
    hits: list[SecretHit] = []
    pos = 0
    line = 1
    for cand in candidates:
        if cand.start < pos:
            continue  # overlaps one already replaced (e.g. the hf_ token inside `hf_token: …`)
        line += text.count("\n", pos, cand.start)
        out.append(text[pos : cand.start])
        out.append(cand.replacement)
        hits.append(SecretHit(kind=cand.kind, source=source, line=line))
        line += text.count("\n", cand.start, cand.end)
        pos = cand.end
    out.append(text[pos:])
    return "".join(out), hits, shapes


def find_secrets(text: str) -> list[Span]:
    """Every candidate of every detector over `text`, unmerged (the output gate merges them with its
    own)."""
    return _all_candidates(text)
