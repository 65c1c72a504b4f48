"""Turn whatever the user gave us (bytes from an attachment or a pipe, or a str) into clean text.

Pastes arrive as UTF-8, UTF-8 with a BOM, UTF-16 from PowerShell's `>` redirection (with or without a
BOM), Shift-JIS from an old Japanese Notepad, or raw terminal captures full of `\\r` redraws. The result
always uses `\\n` line breaks, has no NUL characters, and is at most `cap` UTF-8 bytes: a larger input
keeps its end, because that is where the error is. Nothing here raises.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

# How many leading bytes decide whether BOM-less bytes are UTF-16.
_SNIFF_BYTES = 4096
# Share of the sniffed 16-bit units that must carry a NUL on one side to call the bytes UTF-16.
_UTF16_NUL_SHARE = 0.3
_KANA = re.compile(r"[\u3040-\u30ff]")
# How much of the text decides its line-break style.
_NEWLINE_SAMPLE = 65_536


# The three image formats Discord shows inline, by their first bytes: a screenshot is recognised by
# what it is, whatever its name (the bot and the CLI read it with OCR, outside the engine).
_IMAGE_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"))


def image_format(data: bytes) -> str | None:
    """ "PNG", "JPEG" or "WEBP" from the first bytes of `data`; None for anything else."""
    for signature, name in _IMAGE_SIGNATURES:
        if data.startswith(signature):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


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


# Line feeds checked one by one for a "\r" before them; past this many, one search for the pair.
_LF_WALK = 4096


def _has_crlf(data: bytes) -> bool:
    """Does `data` hold a "\\r\\n"? A log of redraws has a "\\r" every hundred bytes, which makes the
    pair search slow; its few "\\n" are quicker to check one by one."""
    at = data.find(b"\n", 1)
    for _ in range(_LF_WALK):
        if at < 0:
            return False
        if data[at - 1] == 0x0D:
            return True
        at = data.find(b"\n", at + 1)
    return at >= 0 and data.find(b"\r\n", at - 1) >= 0


def _clean(text: str) -> tuple[str | None, bool, bytes]:
    """`text` without a BOM or NULs and with `\\n` line breaks, as UTF-8; and as a str when that is
    cheap to get without decoding (None: decode the bytes that survive the cap), with whether its
    lone `\\r` are still to be made `\\n` (done once the str is cut to the cap: less to copy).

    The checks run on the encoded bytes, where they are fastest; a text that only has lone `\\r`
    (terminal redraws) is fixed in both forms, so a multi-megabyte log needs no decoding at all.
    """
    same: str | None = text
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (from a str built by surrogateescape, or a broken clipboard) cannot be
        # encoded or parsed; make them visible replacement characters.
        data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")
        same = None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
        same = None
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
        same = None
    lone_cr = False
    if b"\r" in data:
        if same is not None and not _has_crlf(data):
            lone_cr = True  # same length either way: the str is fixed after the cut
        else:
            # Two plain replacements do what one `\r\n?` substitution does, several times faster.
            data = data.replace(b"\r\n", b"\n")
            same = None
        data = data.replace(b"\r", b"\n")
    return same, lone_cr, data


def _keep_end(data: bytes, cap: int) -> int | None:
    """Where the part of UTF-8 `data` to keep starts (None: all of it): the last `cap` bytes, from a
    line start if any."""
    if len(data) <= cap:
        return None
    start = len(data) - max(cap, 0)
    newline = data.find(b"\n", start)
    if 0 <= newline < len(data) - 1:
        start = newline + 1
    # Without a newline the cut may split a character; drop the partial bytes.
    while start < len(data) and 0x80 <= data[start] < 0xC0:
        start += 1
    return start


class Decoded(NamedTuple):
    text: str  # normalised: "\n" line breaks, no NULs, at most the cap
    truncated: bool
    newline: str  # the input's own line break, "\r\n" or "\n": a fix written back should use it
    utf8: bytes  # text.encode("utf-8"), made on the way (the scrubber reuses it)


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
    same, lone_cr, data = _clean(text)
    keep = _keep_end(data, cap)
    if same is None:
        data = data[keep or 0 :]
        text = data.decode("utf-8")
    else:
        if keep is not None:
            # The kept part of the str begins after as many characters as the cut bytes encode.
            same = same[len(data[:keep].decode("utf-8")) :]
            data = data[keep:]
        text = same.replace("\r", "\n") if lone_cr else same  # else: clean already, the str as it is
    return Decoded(text, truncated or keep is not None, newline, data)


def decode_input(data: str | bytes, cap: int) -> tuple[str, bool]:
    """Decode and normalise one input; return (text, truncated)."""
    decoded = decode(data, cap)
    return decoded.text, decoded.truncated
