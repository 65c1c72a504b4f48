"""Screenshots of a console or a log panel read back as text with Tesseract (an optional component).

Pillow decodes the image (PNG, JPEG or WebP only, bounded in bytes and pixels before any pixel is
decoded) and pytesseract runs the `tesseract` program on it. Nothing here touches the disk: the image
lives in memory for the read and is dropped after it. Where Pillow, pytesseract or the program (with
its English and Japanese data) is missing, `available()` is False and callers ask for the text.

A read is only as good as its confidence. Words Tesseract is unsure of, numbers that break the OOM
message's own arithmetic (free above total) or too little text make the read `unsure`: the reply then
asks for the text instead of guessing from it. The read is synchronous and slow (seconds): callers run
it off the event loop.
"""

from __future__ import annotations

import functools
import io
import os
import re
import warnings
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from diagnosis.decode import image_format

# Tesseract's OpenMP threads fight each other and the bot for two cores: one thread reads a
# screenshot in a third of the time here. The program inherits it; an operator's own setting wins.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp")
LANGUAGES = ("eng", "jpn")
# A word Tesseract gives less than this (0-100) is a guess.
_SURE = 60
# An English reading with a word below this may hold Japanese: the Japanese reading is asked too.
_RECHECK = 75
# The share of guessed words, and the mean confidence, past which the whole read is a guess.
_MAX_UNSURE_SHARE = 0.2
_MIN_MEAN_CONFIDENCE = 75.0
# Fewer readable characters than this is a photo, a meme, an icon: no text to diagnose.
_MIN_TEXT_CHARS = 24
# Digits Tesseract confuses with letters of the console fonts, read back inside a number.
_DIGIT_CONFUSIONS = str.maketrans(
    {"O": "0", "o": "0", "D": "0", "l": "1", "I": "1", "|": "1", "S": "5", "©": "0"}
)
# "0 bytes is free" read as "O bytes" or "© bytes": a figure of one letter only when it is round.
_LONE_ZEROS = ("O", "o", "©")
_CONFUSABLE = "0-9OoDlI|S©"
# A figure with its unit, as an OOM message writes it ("2O.OO GiB", "5l2.00 MiB").
# Bounded runs: a figure has at most a dozen digits, and an unbounded run would be read again from
# every position of a long line of digits.
_SIZE = re.compile(
    rf"(?<![A-Za-z0-9])([{_CONFUSABLE}]{{1,12}}(?:[.,][{_CONFUSABLE}]{{1,6}})?)(\s?(?:[KMGT]i?B|bytes)\b)"
)
# "GPU O", "cuda:l": the device index.
_DEVICE = re.compile(rf"(\b(?:GPU|cuda:|device)\s?)([{_CONFUSABLE}])\b")
# A tqdm bar ("  0%|          | 1/2000 [00:29<…"): its block characters come back as letters and its
# edges as `]`, `l` or nothing, and the log reader knows a bar by its `%|`.
_BAR = re.compile(r"(\d{1,3}%) ?[|\]\[lI!]?[^\d\n]{0,60}?[|\]\[lI!]? ?(\d{1,9}/\d{1,9} ?\[)")


class ReadStatus(StrEnum):
    TEXT = "text"  # read with confidence
    UNSURE = "unsure"  # text, but not trusted: ask for it
    NO_TEXT = "no_text"  # a photo or a drawing
    REFUSED = "refused"  # not an image we read (format, bytes, pixels, a broken file)


@dataclass(frozen=True)
class OcrLimits:
    max_bytes: int = 10 * 1024 * 1024
    max_pixels: int = 25_000_000  # a 4K screen is 8.3 million; a desktop of three, 25
    timeout_seconds: float = 60.0


@dataclass(frozen=True)
class OcrRead:
    status: ReadStatus
    text: str = ""
    confidence: float = 0.0  # mean word confidence, 0-100
    reason: str = ""  # why refused or unsure, for the log (never shown as is)


@dataclass(frozen=True)
class _Word:
    text: str
    confidence: float
    left: int
    right: int
    top: int
    bottom: int

    @property
    def japanese(self) -> bool:
        return any(ord(ch) >= 0x3000 for ch in self.text)


@dataclass(frozen=True)
class _Line:
    words: tuple[_Word, ...]

    @property
    def top(self) -> int:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> int:
        return max(w.bottom for w in self.words)

    @property
    def text(self) -> str:
        """The words with a space where the image has a gap: a path cut into words by Tesseract
        (`C:\\Users\\` `たろう` `\\Desktop`) is one word on the screen."""
        cell = self.cell
        out = self.words[0].text
        for before, word in zip(self.words, self.words[1:], strict=False):
            out += (" " if word.left - before.right > cell / 2 else "") + word.text
        return out

    @property
    def left(self) -> int:
        return min(w.left for w in self.words)

    @property
    def right(self) -> int:
        return max(w.right for w in self.words)

    @property
    def cell(self) -> float:
        """The width of one character cell, from the line's own words."""
        return sum(w.right - w.left for w in self.words) / max(sum(len(w.text) for w in self.words), 1)


def is_image_name(filename: str, content_type: str | None) -> bool:
    if filename.lower().endswith(IMAGE_EXTENSIONS):
        return True
    return str(content_type or "").lower() in ("image/png", "image/jpeg", "image/webp")


@functools.cache
def available() -> bool:
    """Pillow, pytesseract and a `tesseract` program with English and Japanese data are all here."""
    import shutil  # here: a bot that never reads an image does not pay for its import

    try:
        import PIL.Image  # noqa: F401
        import pytesseract
    except ImportError:
        return False
    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        return False
    try:
        installed = set(pytesseract.get_languages(config=""))
    except Exception:  # a broken install answers with anything from OSError to TesseractError
        return False
    return set(LANGUAGES) <= installed


def read_screenshot(data: bytes, limits: OcrLimits = OcrLimits()) -> OcrRead:
    """The text of a screenshot, with how far it can be trusted. Call only when `available()`."""
    if len(data) > limits.max_bytes:
        return OcrRead(ReadStatus.REFUSED, reason="bytes")
    fmt = image_format(data)
    if fmt is None:
        return OcrRead(ReadStatus.REFUSED, reason="format")
    image = _decode(data, fmt, limits.max_pixels)
    if image is None:
        return OcrRead(ReadStatus.REFUSED, reason="pixels or damaged")
    page = _prepare(image)
    lines = _lines(_tesseract(page, "eng", limits.timeout_seconds))
    doubtful = [line for line in lines if any(w.confidence < _RECHECK for w in line.words)]
    if doubtful:
        # Japanese words (a user folder, a message of the UI) come out of the English reading as a
        # few odd characters; the Japanese one reads Latin digits worse (0 as 9), so only its
        # Japanese words are taken, and only the doubtful lines are read again (a fraction of the
        # time of a second pass over the page).
        strip, bands = _strip(page, doubtful)
        japanese = _unstrip(_lines(_tesseract(strip, "jpn", limits.timeout_seconds)), bands)
        lines = _with_japanese(lines, japanese)
    return _judge(lines)


def tidy_line(line: str) -> str:
    """A line with the letters Tesseract confuses with digits read back as digits inside figures, and
    progress bars written as the log reader knows them."""

    def size(m: re.Match[str]) -> str:
        figure = m.group(1)
        if not any(ch.isdigit() for ch in figure) and figure not in _LONE_ZEROS:
            return m.group(0)
        return figure.translate(_DIGIT_CONFUSIONS) + m.group(2)

    line = _SIZE.sub(size, line)
    line = _BAR.sub(r"\1|| \2", line)
    return _DEVICE.sub(lambda m: m.group(1) + m.group(2).translate(_DIGIT_CONFUSIONS), line)


def numbers_agree(text: str) -> bool:
    """The figures of every OOM message in `text` fit together: what is free, held by this process or
    allocated never exceeds the card's total, and what PyTorch allocated fits in what the process holds."""
    from diagnosis.logreader.oom import could_be_oom, parse_oom

    for line in _joined(text):
        if not could_be_oom(line):
            continue
        oom = parse_oom(line)
        if oom is None:
            continue
        total = oom.total_bytes
        for part in (oom.free_bytes, oom.process_bytes, oom.allocated_bytes):
            if total is not None and part is not None and part > total:
                return False
        held, allocated = oom.process_bytes, oom.allocated_bytes
        if held is not None and allocated is not None and allocated > held:
            return False
    return True


# ---------------------------------------------------------------------- the steps of a read


def _decode(data: bytes, fmt: str, max_pixels: int) -> Any:
    from PIL import Image

    try:
        with warnings.catch_warnings():
            # Pillow warns past its decompression-bomb limit and raises past twice it; both refuse here.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=(fmt,))
            width, height = image.size  # from the header: nothing decoded yet
            if width * height > max_pixels:
                return None
            image.seek(0)  # an animated WebP: its first frame
            image.load()
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError, Warning):
        return None
    return image


def _prepare(image: Any) -> Any:
    """The image in grey. Light text on dark (a console) is read as well as dark on light: Tesseract 5
    inverts a dark page itself (measured on the example's log, mean confidence 87.9 either way)."""
    from PIL import ImageOps

    return ImageOps.grayscale(image.convert("RGB"))


def _tesseract(page: Any, lang: str, timeout: float) -> dict[str, list[Any]]:
    import pytesseract

    # psm 6: one uniform block of text, which is what a console is.
    data: dict[str, list[Any]] = pytesseract.image_to_data(
        page, lang=lang, config="--psm 6", output_type=pytesseract.Output.DICT, timeout=timeout
    )
    return data


def _lines(data: dict[str, list[Any]]) -> list[_Line]:
    grouped: dict[tuple[int, int, int], list[_Word]] = {}
    for i, text in enumerate(data["text"]):
        confidence = float(data["conf"][i])
        if not str(text).strip() or confidence < 0:
            continue
        left, top = int(data["left"][i]), int(data["top"][i])
        word = _Word(
            str(text), confidence, left, left + int(data["width"][i]), top, top + int(data["height"][i])
        )
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        grouped.setdefault(key, []).append(word)
    return sorted((_Line(tuple(words)) for words in grouped.values()), key=lambda line: line.top)


_SMALL_KANA = set("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮー・、。")
# A band of the page read again: its top in the strip, its height, its top on the page.
_Band = tuple[int, int, int]
_BAND_MARGIN = 4  # pixels above and below a line's words, for the ascenders Tesseract cut off


def _strip(page: Any, lines: list[_Line]) -> tuple[Any, list[_Band]]:
    """The page's bands holding `lines`, stacked into one image, and where each band came from."""
    from PIL import Image

    spans: list[list[int]] = []
    for line in lines:
        top, bottom = max(0, line.top - _BAND_MARGIN), min(page.height, line.bottom + _BAND_MARGIN)
        if spans and top <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], bottom)
        else:
            spans.append([top, bottom])
    strip = Image.new("L", (page.width, sum(b - t for t, b in spans)), 255)
    bands: list[_Band] = []
    y = 0
    for top, bottom in spans:
        strip.paste(page.crop((0, top, page.width, bottom)), (0, y))
        bands.append((y, bottom - top, top))
        y += bottom - top
    return strip, bands


def _unstrip(lines: list[_Line], bands: list[_Band]) -> list[_Line]:
    """Lines read from a strip, moved back to where their words are on the page."""
    out = []
    for line in lines:
        words = []
        for w in line.words:
            middle = (w.top + w.bottom) / 2
            band = next((b for b in bands if b[0] <= middle < b[0] + b[1]), None)
            if band is not None:
                shift = band[2] - band[0]
                words.append(_Word(w.text, w.confidence, w.left, w.right, w.top + shift, w.bottom + shift))
        if words:
            out.append(_Line(tuple(words)))
    return out


def _with_japanese(lines: list[_Line], japanese: list[_Line]) -> list[_Line]:
    """Each line with the Japanese words the Japanese reading is sure of put in place of what the
    English reading made of the same spot (`3 3` for `たろう`)."""
    words = [
        w
        for line in japanese
        for w in line.words
        # A lone small kana (っ, ょ) is what the Japanese reading makes of a speck beside Latin text.
        if w.japanese and w.confidence >= _SURE and not set(w.text) <= _SMALL_KANA
    ]
    out = []
    for line in lines:
        inside = [w for w in words if line.top <= (w.top + w.bottom) / 2 <= line.bottom]
        if not inside:
            out.append(line)
            continue
        kept = [w for w in line.words if not any(j.left <= (w.left + w.right) / 2 <= j.right for j in inside)]
        out.append(_Line(tuple(sorted([*kept, *inside], key=lambda w: w.left))))
    return out


def _joined(text: str) -> list[str]:
    """The text's lines, each line that `could_be_oom` joined with the lines a console wrapped it onto
    (the next lines up to an empty one), so the message's figures are read as one."""
    from diagnosis.logreader.oom import could_be_oom

    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if could_be_oom(line):
            tail = []
            for nxt in lines[i + 1 : i + 8]:
                if not nxt.strip():
                    break
                tail.append(nxt)
            out.append(" ".join([line, *tail]))
    return out


def _unwrapped(lines: list[_Line]) -> list[str]:
    """The console's lines as they were written: a terminal cuts a long line at its width, anywhere,
    even inside a word or a figure ("of whi" / "ch 201.31 MiB is free"). Lines whose words reach the
    right edge that several lines share are joined to the next one: with a space when the cut fell on
    one (a blank last cell, or a next line that starts indented), else without."""
    if not lines:
        return []
    edge = max(line.right for line in lines)
    margin = min(line.left for line in lines)
    at_edge = [line for line in lines if edge - line.right <= 1.5 * line.cell]
    wraps = len(at_edge) >= 2  # one long line is no sign of a terminal's width
    out: list[str] = []
    pending: str | None = None
    blank_cut = False
    for line in lines:
        text = line.text
        if pending is not None:
            spaced = blank_cut or line.left - margin >= 0.5 * line.cell
            text = pending + (" " if spaced else "") + text
        if wraps and line in at_edge and line is not lines[-1]:
            pending, blank_cut = text, edge - line.right > 0.5 * line.cell
            continue
        out.append(text)
        pending = None
    return out


def _judge(lines: list[_Line]) -> OcrRead:
    text = "\n".join(tidy_line(line) for line in _unwrapped(lines))
    confidences = [w.confidence for line in lines for w in line.words]
    if not confidences or sum(ch.isalnum() for ch in text) < _MIN_TEXT_CHARS:
        return OcrRead(ReadStatus.NO_TEXT, reason="too little text")
    mean = sum(confidences) / len(confidences)
    unsure_share = sum(c < _SURE for c in confidences) / len(confidences)
    if mean < _MIN_MEAN_CONFIDENCE or unsure_share > _MAX_UNSURE_SHARE:
        return OcrRead(ReadStatus.UNSURE, text, mean, reason=f"confidence {mean:.0f}")
    if not numbers_agree(text):
        return OcrRead(ReadStatus.UNSURE, text, mean, reason="figures disagree")
    return OcrRead(ReadStatus.TEXT, text, mean)
