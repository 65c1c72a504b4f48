"""Turn whatever the user gave us (bytes from an attachment or a pipe, or a str) into clean text.

Pastes arrive as UTF-8, UTF-8 with a BOM, UTF-16 from PowerShell's `>` redirection (with or without a
BOM), Shift-JIS from an old Japanese Notepad, or raw terminal captures full of `\\r` redraws. The result
always uses `\\n` line breaks, has no NUL characters, and is at most `cap` UTF-8 bytes: a larger input
keeps its end, because that is where the error is. Nothing here raises.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

# How many leading bytes decide whether BOM-less bytes are UTF-16.
_SNIFF_BYTES = 4096
# Share of the sniffed 16-bit units that must carry a NUL on one side to call the bytes UTF-16.
_UTF16_NUL_SHARE = 0.3
_KANA = re.compile(r"[\u3040-\u30ff]")
# How much of the text decides its line-break style.
_NEWLINE_SAMPLE = 65_536


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when ASCII-range text shows up as byte pairs with a NUL, else None."""
    sample = data[:_SNIFF_BYTES]
    units = len(sample) // 2
    if units < 2:
        return None
    nul_odd = sample[1::2].count(0)
    nul_even = sample[0::2].count(0)
    if nul_odd >= units * _UTF16_NUL_SHARE and nul_even < units * 0.05:
        return "utf-16-le"
    if nul_even >= units * _UTF16_NUL_SHARE and nul_odd < units * 0.05:
        return "utf-16-be"
    return None


def _encoding_of(data: bytes) -> tuple[str | None, int]:
    """(codec, BOM length) for BOM-marked or NUL-patterned UTF-16 and BOM-marked UTF-8; None otherwise."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8", len(codecs.BOM_UTF8)
    if data.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le", 2
    if data.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", 2
    return _utf16_without_bom(data), 0


def _decode_bytes(data: bytes, codec: str | None) -> str:
    if codec is not None:
        return data.decode(codec, "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # Not UTF-8: a Japanese Windows editor may have saved Shift-JIS. Accept that reading only when it
    # decodes cleanly and yields kana, which random bytes practically never do.
    try:
        sjis = data.decode("cp932")
    except UnicodeDecodeError:
        sjis = ""
    if _KANA.search(sjis):
        return sjis
    return data.decode("utf-8", "replace")


def _clean(text: str) -> tuple[bytes, bool]:
    """`text` as UTF-8 without a BOM or NULs and with `\\n` line breaks, and whether anything changed.

    The work is done on the encoded bytes: a multi-megabyte log then costs one encoding and one
    decoding (of what survives the cap) instead of several copies of the text.
    """
    changed = False
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (from a str built by surrogateescape, or a broken clipboard) cannot be
        # encoded or parsed; make them visible replacement characters.
        data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")
        changed = True
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
        changed = True
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
        changed = True
    if b"\r" in data:
        # Two plain replacements do what one `\r\n?` substitution does, several times faster.
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        changed = True
    return data, changed


def _keep_end(data: bytes, cap: int) -> tuple[str, bool]:
    """At most `cap` bytes from the end of UTF-8 `data`, decoded, starting at a line boundary if any."""
    if len(data) <= cap:
        return data.decode("utf-8"), False
    start = len(data) - max(cap, 0)
    newline = data.find(b"\n", start)
    if 0 <= newline < len(data) - 1:
        start = newline + 1
    # Without a newline the cut may split a character; drop the partial bytes.
    return str(memoryview(data)[start:], "utf-8", "ignore"), True


@dataclass(frozen=True)
class Decoded:
    text: str  # normalised: "\n" line breaks, no NULs, at most the cap
    truncated: bool
    newline: str  # the input's own line break, "\r\n" or "\n": a fix written back should use it


def decode(data: str | bytes, cap: int) -> Decoded:
    """Decode and normalise one input, remembering its line-break style."""
    truncated = False
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        codec, bom = _encoding_of(raw)
        start = bom
        # Bound the work on a huge input before decoding: no character takes more than 4 bytes in
        # UTF-8 or UTF-16, so the last 4*cap bytes hold everything that can survive the cap.
        limit = 4 * max(cap, 0) + 4
        if len(raw) - start > limit:
            start = len(raw) - limit
            if codec is not None and codec.startswith("utf-16") and (start - bom) % 2:
                start += 1
            truncated = True
        text = _decode_bytes(raw[start:], codec)
    else:
        text = str(data)
    sample = text[:_NEWLINE_SAMPLE]
    crlf = sample.count("\r\n")
    newline = "\r\n" if crlf > sample.count("\n") - crlf else "\n"
    data, changed = _clean(text)
    if changed or len(data) > cap:
        text, cut = _keep_end(data, cap)
    else:
        cut = False  # already clean and within the cap: keep the str as it is
    return Decoded(text, truncated or cut, newline)


def decode_input(data: str | bytes, cap: int) -> tuple[str, bool]:
    """Decode and normalise one input; return (text, truncated)."""
    decoded = decode(data, cap)
    return decoded.text, decoded.truncated
