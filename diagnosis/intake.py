"""Pasted texts → pieces: config documents, logs, and the user's own words.

Each input is decoded (`decode_input`), scrubbed of secrets (`scrub`, before anything else reads it),
and cut into regions:

1. Fenced code blocks (``` or ~~~, with or without a language tag; Discord also lets a fence open at
   the end of a line of prose and close at the end of a line of code, or open and close on one line;
   an unterminated fence runs to the end, or to the next "```yaml"-style opener). A single ``` in the
   middle of a line (e.g. inside a quoted YAML value) is not a fence.
2. A fenced block holding a config (by structure and AI Toolkit key names) is one config piece, parsed
   whole even with a stray line in it (so the parser can point at that line); one holding a log
   (`is_log_text`) is one log piece, whatever its tag says; a block holding two configs, a config and a
   log or the user's sentences, or neither, is cut like bare text.
3. Bare text: config regions are found first — YAML that starts at a known key (or `---`) and runs
   while lines are indented deeper, are comments or blank, or are keys at the same indentation; JSON
   that starts with `{` and runs to its matching `}`. A region counts only when its key names score as
   an AI Toolkit config (`keys.key_score`). A JSON object right after log lines is the process dict the
   trainer echoes: it stays inside the log (the log reader recovers it). The rest is split into
   paragraphs at blank lines; log paragraphs (with the short non-sentence paragraphs between them, such
   as the `Result:` banner) form one log piece, and sentence-like lines at the edges of a log paragraph
   ("and the error:") go to the prose.

`Piece.line_offset` is the 0-based line of the decoded (and scrubbed: secrets never span lines) input
where the piece's text starts; `Piece.newline` is the input's own line break, for writing a fix back.
Every step is a scan of the text with linear regexes or a loop over candidate lines only, so a
multi-megabyte log costs a fraction of a second.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import islice
from typing import Any, NamedTuple

from diagnosis.config.keys import ALL_KEYS, MIN_CONFIG_SCORE, key_score
from diagnosis.decode import decode
from diagnosis.lazyre import LazyPattern
from diagnosis.limits import DEFAULT_LIMITS, Limits
from diagnosis.logreader.detect import WHOLE_CHARS, is_log_text
from diagnosis.models import Intake, Piece, PieceKind, SecretHit
from diagnosis.names import display_name
from diagnosis.scrub import LineShapes, scrub_screening
from locales import DEFAULT_LANGUAGE, LANGUAGES, SCRIPTS

_MAX_FENCE_LINES = 2_000
_FENCE_START = LazyPattern(r"[ \t]{0,40}(`{3,}|~{3,})[ \t]*([\w+.#-]{0,40})[ \t]*$")
_TAG = LazyPattern(r"[\w+.#-]{1,40}")
_YAML_KEY_LINE = re.compile(
    r"( *)(?:- +)?([A-Za-z_][\w.\-]{0,80}|\"[^\"\n]{1,80}\"|'[^'\n]{1,80}')[ \t]*:(?:[ \t]|$)"
)
# Key names at the start of lines, searched for in "\n" + text: after the literal newline the regex engine
# jumps from line to line (a `^` would have it try every offset).
_KEY_NAME = re.compile(
    r"\n[ \t]*(?:- +)?[\"']?([A-Za-z_][\w.\-]{0,80})[\"']?[ \t]*:(?:[ \t]|$)", re.MULTILINE
)
_JSON_KEY_NAME = LazyPattern(r"\"([A-Za-z_][\w.\-]{0,80})\"\s{0,40}:")
# Key names read before the first look at their score (then after twice as many, and so on).
_FIRST_SCORE_AT = 4
_DOC_MARKER = re.compile(r"(?:---|\.\.\.)[ \t]*(?:#.*)?$")
# Kana and kanji. A wide class is slow to compile, and ASCII text (checked first) cannot hold it.
_CJK = LazyPattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
# The scripts that mark the user's words as another language than English (locales.SCRIPTS).
_SCRIPTS = tuple(
    (code, LazyPattern(f"[{chars}]")) for code, chars in SCRIPTS.items() if chars and code in LANGUAGES
)
_LATIN_WORD = LazyPattern(r"[A-Za-z]{2,}")
# A quote the user wrote: an opening character, at most _QUOTE_CHARS others, its closing one, on one line.
_QUOTE_PAIRS = {'"': '"', "\u201c": "\u201d", "`": "`"}
_QUOTE_CHARS = 2000
# A whitespace-separated token that is a plain word ("(word", "don't", "it.\""), counted in one scan of
# " " + the line: a match runs from the blank before a token to the token's end, so only tokens that
# are words in full count (\s is what str.split splits at). Starting from the blank lets the scan skip
# from blank to blank.
_WORD_TOKENS = LazyPattern(r"\s[\"'(]{0,3}[A-Za-z][A-Za-z'\u2019-]{0,40}[.,!?:;)\"']{0,3}(?!\S)")
# Lines kept for the language hint and the sentence test.
_HINT_CHARS = 200_000
_PEEL_LINES = 4
_SANDWICH_LINES = 8
_ECHO_LOOKBACK = 6
# A log region longer than this is not cut into paragraphs (each cut costs a scan).
_MAX_PARAGRAPH_LINES = 20_000
_BLANK_CHUNK = 1024
# The longest string the JSON tokenizer skips, in characters and escapes (an escape counts as one).
_JSON_STRING_UNITS = 100_000
# The longest object the JSON decoder measures: no string in it can be longer than the tokenizer skips.
_JSON_FAST_CHARS = _JSON_STRING_UNITS
_JSON_NEXT = LazyPattern(r'["{}\[\]]')
_JSON_BRACKET = LazyPattern(r"[{}\[\]]")
# A string's body: the longest run of characters and escapes; where it stops, a closing quote, a line
# break, a backslash before a line break or the end. Possessive: a body that stops short is given up
# whole, so nothing is tried twice.
_JSON_BODY = LazyPattern(r'(?:[^"\\\n]++|\\.)*+')
_JSON_ESCAPE = LazyPattern(r"\\.")


def prefix_tree(words: Iterable[str]) -> str:
    """An alternation of `words` written as a prefix tree ("ca(?:che|ption)"): the regex engine then
    reads a line's first letters once instead of once per word."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def render(node: dict[str, Any]) -> str:
        alternatives = [re.escape(char) + render(child) for char, child in sorted(node.items()) if char]
        if not alternatives:
            return ""
        if len(alternatives) == 1 and "" not in node:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")" + ("?" if "" in node else "")

    return render(tree)


def _config_line(keys: str) -> str:
    """A line that can start a config region (`keys`: an alternation of the known key names)."""
    return (
        r"(?:[ \t]{0,8}\{|---[ \t]*(?=\n|$)|[ \t]{0,40}(?:- {1,8})?[\"']?(?:"
        + keys
        + r")[\"']?[ \t]*:(?=[ \t\n]|$))"
    )


# Each line is matched after its line break (the first one after a break put in front of it): the
# literal newline up front lets the regex engine jump from line to line instead of trying every position.
_CONFIG_START = re.compile("\n" + _config_line(prefix_tree(ALL_KEYS)))


@cache
def _config_line_shape() -> re.Pattern[bytes]:
    """The same test on line shapes (see scrub.LineShapes: letters lower-cased, digits as "0"): it
    matches the shape of every line that can start a config, and possibly a few more. Only long texts
    are read through their shapes, so it is built when the first one comes."""
    keys = {key.translate(_DIGITS_AS_ZERO) for key in ALL_KEYS}
    return re.compile(("(?m)^" + _config_line(prefix_tree(keys))).encode("ascii"))


_DIGITS_AS_ZERO = str.maketrans("0123456789", "0000000000")


class _Region(NamedTuple):
    kind: str  # "yaml", "json", "log", "prose"
    start: int  # first line (0-based, within the input)
    lines: list[str]  # empty for a long log read whole from `text` (see _long_log)
    fenced: bool = False
    lang_tag: str | None = None
    text: str | None = None  # "\n".join(lines) when it is at hand already (a long log: no second copy)


# --------------------------------------------------------------------------------------------------
# Fences


class _Block(NamedTuple):
    start: int  # line of the first content line
    lines: list[str]
    fenced: bool
    lang_tag: str | None = None
    closed: bool = True  # False for a fence still open at the end of the text
    text: str | None = None  # "\n".join(lines) when it is at hand already


def _fence_lines(text: str) -> list[int]:
    """Indexes of the lines that contain ``` or ~~~ (the only lines that can open or close a fence)."""
    hits: list[int] = []
    for marker in ("```", "~~~"):
        # Looking for one character is many times faster than for three: most logs have neither.
        at = text.find(marker) if marker[0] in text else -1
        while at >= 0 and len(hits) < 2 * _MAX_FENCE_LINES:
            hits.append(at)
            at = text.find("\n", at)  # one hit per line is enough
            at = text.find(marker, at) if at >= 0 else -1
    hits.sort()
    out: list[int] = []
    line = 0
    last = 0
    for at in hits:
        line += text.count("\n", last, at)
        last = at
        if not out or out[-1] != line:
            out.append(line)
            if len(out) >= _MAX_FENCE_LINES:
                break  # hostile input: the rest is read as bare text
    return out


def _closes(line: str, marker: str) -> tuple[bool, str | None]:
    """(closes, content before the fence on this line) for a line inside a fence."""
    stripped = line.strip()
    if len(stripped) >= len(marker) and stripped == marker[0] * len(stripped):
        return True, None
    if marker.startswith("`") and line.rstrip().endswith("```"):
        return True, line.rstrip().rstrip("`")
    return False, None


def _split_fences(text: str) -> list[_Block]:
    """Alternate bare and fenced blocks, in order (fence lines themselves belong to neither)."""
    lines = text.split("\n")
    n = len(lines)
    candidates = _fence_lines(text)
    if not candidates:
        return [_Block(0, lines, False, text=text)]  # no fence: one bare block, the text itself
    blocks: list[_Block] = []
    bare: list[str] = []
    bare_start = 0
    pos = 0  # the first line not yet given to a block

    def take_bare(upto: int) -> None:
        nonlocal bare, bare_start, pos
        if upto > pos:
            if not bare:
                bare_start = pos
            bare.extend(lines[pos:upto])
        pos = max(pos, upto)

    def flush_bare() -> None:
        nonlocal bare
        if bare:
            blocks.append(_Block(bare_start, bare, False))
        bare = []

    k = 0
    while k < len(candidates):
        i = candidates[k]
        k += 1
        if i < pos:
            continue
        opening = _open_fence(lines[i])
        if opening is None:
            continue
        before, marker, tag, first = opening
        take_bare(i)
        if before.strip():
            if not bare:
                bare_start = i
            bare.append(before)  # prose on the fence's own line
        flush_bare()
        pos = i + 1
        if first is not None:
            close = first.find(marker)
            if marker.startswith("`") and close >= 0:
                # ```one line``` : a block of its own; the rest of the line is prose
                blocks.append(_Block(i, [first[:close]], True, None))
                rest = first[close + len(marker) :]
                if rest.strip():
                    bare_start = i
                    bare.append(rest)
                continue
        content_start = i if first is not None else i + 1
        head = [first] if first is not None else []
        end, last_part, reopens = n, None, False
        while k < len(candidates):
            j = candidates[k]
            k += 1
            opener = _FENCE_START.get().match(lines[j])
            if opener is not None and opener.group(2):
                # "```yaml" inside a block: the user forgot to close the previous one
                end, reopens = j, True
                k -= 1
                break
            closes, part = _closes(lines[j], marker)
            if closes:
                end, last_part = j, part
                break
        content = head + lines[i + 1 : end]
        if last_part is not None:
            content.append(last_part)
        blocks.append(_Block(content_start, content, True, tag, closed=end < n))
        pos = end if reopens else end + 1
        bare_start = pos
    take_bare(n)
    flush_bare()
    return blocks


def _open_fence(line: str) -> tuple[str, str, str | None, str | None] | None:
    """(text before, fence marker, language tag, content on the same line) when `line` opens a fence."""
    if "```" not in line and "~~~" not in line:
        return None
    match = _FENCE_START.get().match(line)
    if match:
        return "", match.group(1), match.group(2) or None, None
    stripped = line.lstrip()
    if stripped.startswith("```"):
        # ```content on the same line (Discord treats a lone word as the language tag)
        run = len(stripped) - len(stripped.lstrip("`"))
        rest = stripped[run:]
        return "", "`" * run, None, rest
    first = line.find("```")
    if first >= 0 and line.find("```", first + 3) > first + 3:
        # prose ```inline block``` prose: the block ends on this line
        run_end = first
        while run_end < len(line) and line[run_end] == "`":
            run_end += 1
        return line[:first], line[first:run_end], None, line[run_end:]
    at = line.rfind("```")
    if at < 0:
        return None
    run_start = at
    while run_start > 0 and line[run_start - 1] == "`":
        run_start -= 1
    after = line[at + 3 :].strip()
    if after and not _TAG.get().fullmatch(after):
        return None  # a ``` inside a line (a quoted value, inline code): not a fence
    return line[:run_start], line[run_start : at + 3], after or None, None


# --------------------------------------------------------------------------------------------------
# Config regions


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _scores_as_config(names: re.Pattern[str], text: str) -> bool:
    """Do the key names that `names` finds in `text` (its group 1) score as an AI Toolkit config?

    `key_score` is a sum over the distinct names, so it only grows as names are added: it is asked
    again each time the count doubles, and the first few names of a config settle it without reading
    the rest.
    """
    keys: list[str] = []
    ask_at = _FIRST_SCORE_AT
    for match in names.finditer(text):
        keys.append(match.group(1))
        if len(keys) == ask_at:
            if key_score(keys) >= MIN_CONFIG_SCORE:
                return True
            ask_at *= 2
    return key_score(keys) >= MIN_CONFIG_SCORE


def _yaml_scores(lines: Sequence[str]) -> bool:
    return _scores_as_config(_KEY_NAME, "\n" + "\n".join(lines))


def _json_scores(lines: Sequence[str]) -> bool:
    return _scores_as_config(_JSON_KEY_NAME.get(), "\n".join(lines))


def _config_kind(lines: Sequence[str]) -> str | None:
    """ "json" / "yaml" when the whole block is shaped like an AI Toolkit config, else None."""
    first = next((ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")), None)
    if first is None:
        return None
    if first.lstrip().startswith("{"):
        return "json" if _json_scores(lines) else None
    if _DOC_MARKER.match(first.strip()) or _YAML_KEY_LINE.match(first):
        return "yaml" if _yaml_scores(lines) else None
    return None


def _json_object_size(text: str, start_pos: int, limit: int) -> int:
    """The length of the valid JSON object that starts at `start_pos` and ends within `limit`
    characters; 0 when there is none (then the tokenizer below reads the text).

    Within such an object every string is one the tokenizer skips (strict JSON has no raw line break
    or control character in a string, and each escape is a backslash and one more character, none
    longer than `limit` <= _JSON_FAST_CHARS), and outside its strings there are no quotes: the
    tokenizer would see the same brackets and close at the same one. The JSON decoder finds that
    bracket in C, where the tokenizer's string pattern reads a string a character at a time.
    """
    import json  # only a JSON config needs it

    try:
        # Decoded in place: the decoder stops at the object's end or at the first thing strict JSON
        # does not allow. (Its error message counts the lines before that point: the caller asks
        # once per text, or a text of many short "{x}" lines would cost that count per line.)
        end = json.JSONDecoder().raw_decode(text, start_pos)[1]
    except (ValueError, RecursionError):  # not valid JSON: the tokenizer reads it
        return 0
    return end - start_pos if end - start_pos <= limit else 0


def _json_end(
    text: str, lines: list[str], start: int, start_pos: int, budget: int, decode: bool = False
) -> int:
    """The line after the bracket that closes the object opened on line `start` (at `start_pos`).

    Strings are skipped by the tokenizer, so brackets inside values do not count. An object still open
    after `budget` characters (or at the end) ends there. With `decode`, the JSON decoder is asked
    first (see _json_object_size).
    """
    closing = _json_object_size(text, start_pos, min(budget, _JSON_FAST_CHARS)) if decode else 0
    if closing:
        return start + text.count("\n", start_pos, start_pos + closing - 1) + 1
    depth = 0
    line = start
    last = start_pos
    for at in _json_brackets(text, start_pos, min(len(text), start_pos + budget)):
        depth += 1 if text[at] in "{[" else -1
        if depth <= 0:
            return line + text.count("\n", last, at) + 1
    return min(len(lines), line + text.count("\n", last, min(len(text), start_pos + budget)) + 1)


def _json_brackets(text: str, pos: int, end: int, units: int = _JSON_STRING_UNITS) -> Iterator[int]:
    r"""The offsets of the brackets in `text[pos:end]` that are not inside a string, a string being a
    quote, at most `units` characters or backslash escapes on one line, and a closing quote: what
    finditer of `"(?:[^"\
]|\.){0,units}"|[{}\[\]]` yields, token by token.

    A quote that opens no such string is skipped and the search goes on from the next character, so a
    bracket after it counts. Every quote inside a string that failed is the second character of an
    escape, and a string opened there reads the same escapes to the same end: it fails the same way
    (when that end is not a closing quote) or, if the string was only too long, succeeds from the first
    such quote near enough to the closing one. So no part of the text is read twice, where that regex
    read a run of escaped quotes with no closing one again from each of them.
    """
    end = min(end, len(text))
    next_token = _JSON_NEXT.get().search
    body = _JSON_BODY.get().match
    while (token := next_token(text, pos, end)) is not None:
        at = token.start()
        if text[at] != '"':
            yield at
            pos = at + 1
            continue
        string = body(text, at + 1, end)  # matches always (an empty body at the least)
        stop = at + 1 if string is None else string.end()
        closed = stop < end and text[stop] == '"'
        if closed and (stop - at - 1 <= units or _json_units(text, at + 1, stop) <= units):
            pos = stop + 1  # a whole string: skipped
            continue
        # No string opens at `at`. A later quote before `stop` opens one only if the string was too long.
        restart = _json_restart(text, at, stop, units) if closed else -1
        brackets = _JSON_BRACKET.get().finditer(text, at + 1, stop if restart < 0 else restart)
        yield from (bracket.start() for bracket in brackets)
        pos = stop if restart < 0 else stop + 1


def _json_units(text: str, start: int, stop: int) -> int:
    """The characters and escapes (one each) of the string body `text[start:stop]`."""
    return stop - start - sum(1 for _ in _JSON_ESCAPE.get().finditer(text, start, stop))


def _json_restart(text: str, at: int, stop: int, units: int) -> int:
    """The first escaped quote in the too-long string body from `at` + 1 to its closing quote at `stop`
    from which at most `units` characters and escapes remain; -1 when there is none."""
    escapes = [m.start() for m in _JSON_ESCAPE.get().finditer(text, at + 1, stop)]
    for k, escape in enumerate(escapes):
        after = len(escapes) - k - 1
        quote = escape + 1
        if text[quote] == '"' and (stop - quote - 1) - after <= units:
            return quote
    return -1


def _yaml_end(lines: list[str], start: int, budget: int) -> int:
    """The end of a YAML region starting at a key line (or `---`) at line `start`, at most `budget` chars."""
    base = _indent(lines[start])
    i = start + 1
    n = len(lines)
    used = len(lines[start])
    while i < n and used < budget:
        line = lines[i]
        used += len(line) + 1
        # Most lines of a config are nested deeper: they go on the region before anything else is
        # looked at (blank and comment lines go on it as well, whatever their indentation).
        indent = _indent(line)
        if indent > base:
            i += 1
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if indent < base:
            break
        if _DOC_MARKER.match(stripped) or stripped.startswith("- ") or stripped == "-":
            i += 1
            continue
        key = _YAML_KEY_LINE.match(line)
        if key is None:
            break
        if (
            key.group(2).strip("\"'") not in ALL_KEYS
            and not _nested_below(lines, i, indent)
            # `gc_part: &gc {gradient_checkpointing: false}`: an anchor or an alias is YAML, and the
            # config's aliases need it (cut off, they would read as nothing)
            and line[key.end() :].lstrip()[:1] not in ("&", "*")
        ):
            break  # "Note: it crashed" — an unknown key with nothing nested under it is prose
        i += 1
    while i > start and not lines[i - 1].strip():
        i -= 1
    return i


def _nested_below(lines: list[str], i: int, indent: int) -> bool:
    """Is the next line with content (within a few lines) indented deeper than `indent`?"""
    for line in lines[i + 1 : i + 8]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _indent(line) > indent
    return False


def _after_log(lines: list[str], start: int) -> bool:
    """Do log lines come right before line `start` (so a JSON object there is the trainer's echo)?"""
    before = [ln for ln in lines[max(0, start - _ECHO_LOOKBACK) : start] if ln.strip()]
    return bool(before) and is_log_text("\n".join(before))


def _config_candidates(text: str, pos: int = 0) -> Iterator[tuple[int, int]]:
    """(start of the line, end of the match) of each line from offset `pos` on (a line start) that can
    start a config region."""
    first_end = 0
    if pos == 0:
        # No match reads past its line's end (the lookahead there sees "\n" or the end alike).
        line_end = text.find("\n")
        first = _CONFIG_START.match("\n" + (text if line_end < 0 else text[:line_end]))
        if first is not None:
            first_end = first.end() - 1
            yield 0, first_end
    for match in _CONFIG_START.finditer(text, first_end if first_end else max(0, pos - 1)):
        yield match.start() + 1, match.end()


def _region_at(
    text: str, lines: list[str], line: int, match_end: int, budget: int, decode: bool = False
) -> tuple[int, str | None] | None:
    """(end line, kind or None when it does not score as a config) of the region a candidate line
    starts; None when the candidate starts nothing (a `---` with no key line after it). `decode`: a
    JSON object may be measured by the JSON decoder (see _json_end)."""
    current = lines[line]
    if current.lstrip().startswith("{"):
        end = _json_end(text, lines, line, match_end - 1, budget, decode)
        is_config = _json_scores(lines[line:end]) and not _after_log(lines, line)
        return end, "json" if is_config else None
    if current.startswith("---") and not _YAML_KEY_LINE.match(
        next((ln for ln in lines[line + 1 : line + 5] if ln.strip()), "")
    ):
        return None
    end = _yaml_end(lines, line, budget)
    return end, "yaml" if _yaml_scores(lines[line:end]) else None


def _find_configs(text: str, lines: list[str], budget: int) -> list[tuple[int, int, str]]:
    """(start line, end line, kind) of the config regions in bare text."""
    found: list[tuple[int, int, str]] = []
    line = 0
    last = 0  # the offset of line `line`
    json_seen = False
    candidates = _config_candidates(text)
    while (candidate := next(candidates, None)) is not None:
        line_start, match_end = candidate
        line += text.count("\n", last, line_start)
        last = line_start
        # The first JSON object of the text only is offered to the JSON decoder (see _json_object_size).
        is_json = lines[line].lstrip().startswith("{")
        region = _region_at(text, lines, line, match_end, budget, is_json and not json_seen)
        json_seen = json_seen or is_json
        if region is None:
            continue
        end, kind = region
        if kind is not None:
            found.append((line, end, kind))
        # The lines up to `end` have been looked at (a shorter region inside a failed one cannot score
        # higher): the search goes on from the first line after them, not from candidate to candidate.
        done = max(end, line + 1)
        last += sum(map(len, lines[line:done])) + done - line
        line = done
        candidates = _config_candidates(text, last)
    return found


# --------------------------------------------------------------------------------------------------
# Logs and prose


def _sentence_like(line: str) -> bool:
    """A line a person wrote: Japanese text, or mostly plain words (paths and code are not words)."""
    stripped = line.strip()
    if not stripped:
        return False
    if not stripped.isascii() and _CJK.search(stripped):
        return True
    words = len(_WORD_TOKENS.get().findall(" " + stripped))
    return words >= 3 and words >= 0.6 * len(stripped.split())


def _quotes_error(line: str) -> bool:
    """A sentence that quotes an error ("crashed with "CUDA error: out of memory""): the user's words."""
    # The quote characters first: most lines have none, and the sentence test reads every token.
    if ('"' not in line and "`" not in line and "\u201c" not in line) or not _sentence_like(line):
        return False
    spans = _quoted_spans(line)
    if not spans or not any(is_log_text(line[a:b].strip('"`\u201c\u201d')) for a, b in spans):
        return False
    ends = [0, *(i for span in spans for i in span), len(line)]
    return not is_log_text("".join(line[ends[k] : ends[k + 1]] for k in range(0, len(ends), 2)))


def _quoted_spans(line: str) -> list[tuple[int, int]]:
    r"""(start, end) of each quote in `line`, as findall of
        `"[^"
    ]{0,N}"|“[^”
    ]{0,N}”|`[^`
    ]{0,N}`` (N = _QUOTE_CHARS) finds them.

        The next mark and line break of each kind are kept, and an opening mark that fails tells where the
        next one of its kind could succeed: after the line break that came first, or within N of the
        closing mark that was too far away. So the line is read a bounded number of times, where that
        regex read N characters after each opening mark (a “ closes with another character: a line
        of them cost N steps each).
    """
    n = len(line)
    found: dict[str, tuple[int, int]] = {}  # character → (searched from, next offset; n: none)

    def next_at(char: str, start: int) -> int:
        cached = found.get(char)
        if cached is not None and cached[0] <= start <= cached[1]:
            return cached[1]
        at = line.find(char, start)
        at = n if at < 0 else at
        found[char] = (start, at)
        return at

    spans: list[tuple[int, int]] = []
    earliest = dict.fromkeys(_QUOTE_PAIRS, 0)  # before this no opening mark of the kind can succeed
    pos = 0
    while True:
        opener, at = min(
            ((char, next_at(char, max(pos, earliest[char]))) for char in _QUOTE_PAIRS), key=lambda x: x[1]
        )
        if at >= n:
            return spans
        close = next_at(_QUOTE_PAIRS[opener], at + 1)
        line_end = next_at("\n", at + 1)
        if close < line_end and close - at - 1 <= _QUOTE_CHARS:
            spans.append((at, close + 1))
            pos = close + 1
        elif line_end < close:
            earliest[opener] = line_end + 1
        else:
            earliest[opener] = n if close >= n else max(at + 1, close - _QUOTE_CHARS - 1)


def _peel_tail(p: list[str], head: int) -> int:
    """Where the sentences at the end of log paragraph `p` start (at most _PEEL_LINES of them, and not
    before line `head` + 1): `len(p)` when there are none."""
    tail = len(p)
    # A log line ends the peeling whether or not it reads like a sentence: that is asked first (it is
    # the cheaper question).
    while tail > head + 1 and len(p) - tail < _PEEL_LINES and not is_log_text(p[tail - 1]):
        if not _sentence_like(p[tail - 1]):
            break
        tail -= 1
    return tail


def _paragraphs(lines: list[str], start: int) -> list[tuple[int, list[str]]]:
    out: list[tuple[int, list[str]]] = []
    current: list[str] = []
    current_start = start
    for offset, line in enumerate(lines):
        if line.strip():
            if not current:
                current_start = start + offset
            current.append(line)
        elif current:
            out.append((current_start, current))
            current = []
    if current:
        out.append((current_start, current))
    return out


def _logs_and_prose(lines: list[str], start: int, joined: str | None = None) -> list[_Region]:
    text = "\n".join(lines) if joined is None else joined
    if not text.strip():
        return []
    if not is_log_text(text):
        return [_Region("prose", start, lines)]  # the common case, decided in one scan
    if len(lines) > _MAX_PARAGRAPH_LINES:
        return [_Region("log", start, lines, text=text)]  # too long to cut finely: keep it whole
    found = _paragraphs(lines, start)
    if len(found) == 1 and len(text) <= WHOLE_CHARS:
        # The one paragraph is the text without its blank lines at either end, where no match of
        # is_log_text's patterns can start or end (each starts and ends with a character that is not
        # blank, or reads within one line): it is a log like the text.
        paragraphs = [(found[0][0], found[0][1], True)]
    else:
        paragraphs = [(s, p, is_log_text("\n".join(p))) for s, p in found]
    # A short paragraph with no sentence between two log paragraphs belongs to the log.
    for k in range(1, len(paragraphs) - 1):
        s, p, is_log = paragraphs[k]
        if (
            not is_log
            and paragraphs[k - 1][2]
            and paragraphs[k + 1][2]
            and len(p) <= _SANDWICH_LINES
            and not any(_sentence_like(ln) for ln in p)
        ):
            paragraphs[k] = (s, p, True)
    regions: list[_Region] = []
    for s, p, is_log in paragraphs:
        if not is_log:
            regions.append(_Region("prose", s, p))
            continue
        head = 0
        while head < min(_PEEL_LINES, len(p) - 1) and _sentence_like(p[head]) and not is_log_text(p[head]):
            head += 1
        tail = _peel_tail(p, head)
        if head and not is_log_text("\n".join(p[head:tail])):
            head = 0  # the sentence was what made it a log (e.g. it quotes the error): keep it whole
        if head:
            regions.append(_Region("prose", s, p[:head]))
        log_lines = p[head:tail]
        last = regions[-1] if regions else None
        if last is not None and last.kind == "log":
            gap = s + head - (last.start + len(last.lines))
            last.lines.extend([""] * gap + log_lines)
        else:
            regions.append(_Region("log", s + head, log_lines))
        said = [ln for ln in log_lines[:_PEEL_LINES] if _quotes_error(ln)]
        if said:
            regions.append(_Region("prose", s + head, said))  # the user's sentence, also kept in the log
        if tail < len(p):
            regions.append(_Region("prose", s + tail, p[tail:]))
    return regions


def _bare_regions(
    lines: list[str],
    start: int,
    fenced: bool,
    tag: str | None,
    budget: int,
    text: str | None = None,
    configless: bool = False,
) -> list[_Region]:
    """Config, log and prose regions of bare text (`text`: the lines joined, when at hand;
    `configless`: no line of it can start a config region, as its line shapes showed)."""
    regions: list[_Region] = []
    pos = 0
    configs = [] if configless else _find_configs("\n".join(lines) if text is None else text, lines, budget)
    for cfg_start, cfg_end, kind in configs:
        regions.extend(_logs_and_prose(lines[pos:cfg_start], start + pos))
        regions.append(_Region(kind, start + cfg_start, lines[cfg_start:cfg_end], fenced, tag))
        pos = cfg_end
    rest = lines if pos == 0 else lines[pos:]  # no copy of a long text's list of lines
    regions.extend(_logs_and_prose(rest, start + pos, text if pos == 0 else None))
    for index, region in enumerate(regions):
        if region.kind == "log":
            regions[index] = region._replace(fenced=fenced, lang_tag=tag)
    return regions


def _top_keys(lines: list[str]) -> set[str]:
    base = _indent(lines[0])
    keys = set()
    for line in lines:
        key = _YAML_KEY_LINE.match(line)
        if key is not None and _indent(line) == base:
            keys.add(key.group(2).strip("\"'"))
    return keys


def _one_config(content: str, lines: list[str], budget: int) -> bool:
    """Is a fenced block that looks like a config one config, to be parsed whole?

    Not when it holds two configs (JSON and YAML, or two YAML parts that repeat a top-level key), or a
    config with a log or the user's sentences around it. A stray line between two parts of one config
    (a typo) keeps the block whole, so the parser can point at it.
    """
    found = _find_configs(content, lines, budget)
    if len(found) > 1:
        if any(kind != "yaml" for _, _, kind in found):
            return False
        seen: set[str] = set()
        for start, end, _ in found:
            keys = _top_keys(lines[start:end])
            if keys & seen:
                return False
            seen |= keys
        return True
    if not found:
        return True
    start, end, _ = found[0]
    outside = [ln for ln in lines[:start] + lines[end:] if ln.strip() and not ln.lstrip().startswith("#")]
    return not (is_log_text("\n".join(outside)) or any(_sentence_like(ln) for ln in outside))


def _content_end(lines: list[str]) -> int:
    """The number of lines up to the last one that is not blank."""
    end = len(lines)
    # Runs of blank lines are passed over a chunk at a time (joined, they are whitespace or nothing).
    while end > _BLANK_CHUNK:
        joined = "".join(lines[end - _BLANK_CHUNK : end])
        if joined and not joined.isspace():
            break
        end -= _BLANK_CHUNK
    while end and not lines[end - 1].strip():
        end -= 1
    return end


def _whole_config(lines: list[str], budget: int) -> str | None:
    """The kind ("yaml" / "json") when this unfenced text, from its first line to its last (blank lines
    at the end left out), is one AI Toolkit config; None otherwise."""
    lines = lines[: _content_end(lines)]
    # The size test first: on a multi-megabyte log, scoring key names would be a needless scan.
    if not lines or sum(map(len, lines)) + len(lines) - 1 > budget:
        return None
    kind = _config_kind(lines)
    if kind is None:
        return None
    content = "\n".join(lines)
    if is_log_text(content):
        return None
    found = _find_configs(content, lines, budget)
    if len(found) != 1:
        return None
    start, end, _ = found[0]
    # Only comments, blank lines and a document marker may stand outside the config's own lines.
    outside = lines[:start] + lines[end:]
    if all(not ln.strip() or ln.lstrip().startswith("#") or ln.strip() in ("---", "...") for ln in outside):
        return kind
    return None


def _configless(shapes: LineShapes | None) -> bool:
    """No line of the text can start a config region, as its line shapes show (False: not known)."""
    return shapes is not None and shapes.few and not shapes.matching(_config_line_shape())


def _long_log(
    text: str, budget: int, shapes: LineShapes | None = None, configless: bool = False
) -> _Region | None:
    """The whole text as one log region, when that is clear without cutting it into lines.

    That is what the general path below makes of a text with no fence, in which no config region can
    start (so it is not one config either), and which is a log with too many lines to cut into
    paragraphs; for a multi-megabyte log, making the list of its lines would cost more than reading it.
    `shapes` (of the text's lines, when at hand) tell the line count without a pass over the text, and
    `configless` (from `_configless`) spares the search for a config start.
    """
    breaks = len(shapes.lines) - 1 if shapes is not None else text.count("\n")
    if breaks < _MAX_PARAGRAPH_LINES or _fence_lines(text) or not is_log_text(text):
        return None
    if not configless and next(_config_candidates(text), None) is not None:
        return None
    return _Region("log", 0, [], text=text)


def _regions(text: str, budget: int, shapes: LineShapes | None = None) -> list[_Region]:
    configless = _configless(shapes)
    whole = _long_log(text, budget, shapes, configless)
    return [whole] if whole is not None else _split_regions(text, budget, configless)


def _split_regions(text: str, budget: int, configless: bool = False) -> list[_Region]:
    """`configless`: no line of `text` can start a config region (from its line shapes)."""
    regions: list[_Region] = []
    blocks = _split_fences(text)
    for block in blocks:
        if not block.fenced:
            # Only the unsplit text itself is known to be configless: a block cut at a fence may
            # start in the middle of a line.
            no_config = configless and block.text is text
            whole = _whole_config(block.lines, budget) if len(blocks) == 1 and not no_config else None
            if whole is not None:
                # A config file (or a config pasted alone) is kept whole, header comments and `---`
                # included, so the corrected file and its line numbers match what the user has.
                # The piece gets its one final line break back when it is built.
                lines = block.lines[: _content_end(block.lines)]
                regions.append(_Region(whole, block.start, lines, False, None))
                continue
            regions.extend(
                _bare_regions(block.lines, block.start, False, None, budget, block.text, no_config)
            )
            continue
        if not any(line.strip() for line in block.lines):
            continue
        kind = _config_kind(block.lines)
        content = "\n".join(block.lines)
        if kind is not None and not _one_config(content, block.lines, budget):
            kind = None  # two configs in one block, or a config with something else after it
            if not is_log_text(content):
                regions.extend(_bare_regions(block.lines, block.start, True, block.lang_tag, budget))
                continue
        if kind is not None and not is_log_text(content):
            regions.append(_Region(kind, block.start, block.lines, True, block.lang_tag))
        elif kind is None and is_log_text(content):
            regions.append(_Region("log", block.start, block.lines, True, block.lang_tag))
        else:
            regions.extend(_bare_regions(block.lines, block.start, True, block.lang_tag, budget))
    return regions


# --------------------------------------------------------------------------------------------------
# The case


def language_hint(prose: str) -> str | None:
    """The language whose script the user's words are written in (kana or kanji: Japanese), English
    for Latin words, None otherwise."""
    sample = prose[:_HINT_CHARS]
    # Two matches decide: the search stops at the second.
    if not sample.isascii():
        for code, script in _SCRIPTS:
            if next(islice(script.finditer(sample), 1, None), None) is not None:
                return code
    if next(islice(_LATIN_WORD.finditer(sample), 1, None), None) is not None:
        return DEFAULT_LANGUAGE
    return None


_KINDS = {"yaml": PieceKind.CONFIG_YAML, "json": PieceKind.CONFIG_JSON, "log": PieceKind.LOG}


class _Input(NamedTuple):
    number: int  # its index among the inputs
    source: str
    text: str
    newline: str
    shapes: LineShapes | None  # the shapes of `text`'s lines, when the scrubber made them


def _ends_in_open_fence(text: str) -> bool:
    blocks = _split_fences(text)
    return bool(blocks) and blocks[-1].fenced and not blocks[-1].closed


def _closes_a_fence_first(text: str) -> bool:
    """Does `text` close a fence before it opens one? (The rest of a block split over two messages.)"""
    first = _fence_lines(text)[:1]
    if not first:
        return False
    stripped = text.split("\n", first[0] + 1)[first[0]].strip()
    return stripped.startswith("```") and stripped == "`" * len(stripped)


def _chains(inputs: list[_Input]) -> list[list[_Input]]:
    """Consecutive inputs that form one text: a code block opened in one message and closed in the
    next (Discord's length limit makes people split a long config over several messages)."""
    chains: list[list[_Input]] = []
    for item in inputs:
        previous = chains[-1] if chains else None
        # The new input is tested first: the text before it may be a multi-megabyte log.
        if (
            previous is not None
            and _closes_a_fence_first(item.text)
            and _ends_in_open_fence("\n".join(i.text for i in previous))
        ):
            previous.append(item)
        else:
            chains.append([item])
    return chains


def read_case(
    inputs: Sequence[str | bytes],
    sources: Sequence[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Intake:
    """Decode, scrub and split every input; never raises on user input.

    A code block opened in one input and closed in the next is read as one block; its piece belongs to
    the input where it starts (its line numbers count on from that input's first line).
    """
    pieces: list[Piece] = []
    prose: list[str] = []
    secrets: list[SecretHit] = []
    hits: list[str] = []
    truncated = False
    decoded_inputs: list[_Input] = []
    for index, data in enumerate(inputs):
        # A file name is quoted by the reply and the CLI: nothing hidden in it may reach them.
        source = (
            display_name(sources[index])
            if sources is not None and index < len(sources)
            else f"message {index + 1}"
        )
        decoded = decode(data, limits.max_input_bytes)
        truncated = truncated or decoded.truncated
        text, found, shapes = scrub_screening(decoded.text, source, decoded.utf8)
        secrets.extend(found)
        decoded_inputs.append(_Input(index, source, text, decoded.newline, None if found else shapes))
    for chain in _chains(decoded_inputs):
        starts = [0]  # the line where each input starts (the last one's length is never needed)
        for item in chain[:-1]:
            starts.append(starts[-1] + item.text.count("\n") + 1)
        text = "\n".join(item.text for item in chain)
        shapes = chain[0].shapes if len(chain) == 1 else None
        for region in _regions(text, limits.max_config_bytes, shapes):
            if region.kind == "prose":
                words = "\n".join(region.lines).strip("\n")
                if words.strip():
                    prose.append(words)
                continue
            if len(pieces) >= limits.max_pieces:
                if "max_pieces" not in hits:
                    hits.append("max_pieces")
                continue
            owner = bisect.bisect_right(starts, region.start) - 1
            item = chain[owner]
            body = "\n".join(region.lines) if region.text is None else region.text
            if region.kind != "log":
                body += "\n"
            pieces.append(
                Piece(
                    kind=_KINDS[region.kind],
                    text=body,
                    source=item.source,
                    input_index=item.number,
                    line_offset=region.start - starts[owner],
                    fenced=region.fenced,
                    lang_tag=region.lang_tag,
                    newline=item.newline,
                )
            )
    joined = "\n".join(prose)
    return Intake(
        pieces=pieces,
        prose=joined,
        language_hint=language_hint(joined),
        truncated=truncated,
        limits_hit=hits,
        secrets=secrets,
    )
