"""Console text drawn as a screenshot, for the OCR tests: DejaVu Sans Mono on a terminal's colours,
wrapped at the console's width like a real terminal wraps, Japanese characters from a CJK font two
cells wide. Pillow draws it; nothing is read from disk but the fonts."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

MONO = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
# Debian's fonts-ipafont-gothic (IPAGothic, a monospaced Japanese font); Noto CJK as a second choice.
CJK_FONTS = (
    Path("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
)


# A test that reads an image back: skipped with the reason where Tesseract is absent (tests/conftest.py).
needs_ocr = pytest.mark.usefixtures("ocr_installed")


def cjk_font() -> Path | None:
    return next((p for p in CJK_FONTS if p.exists()), None)


def wrap(text: str, columns: int) -> list[str]:
    """The lines a terminal of `columns` shows: every line cut at the width, wherever it falls."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.replace("\t", "    ")
        while len(line) > columns:
            out.append(line[:columns])
            line = line[columns:]
        out.append(line)
    return out


def console_png(
    text: str,
    *,
    columns: int = 120,
    size: int = 14,
    scale: float = 1.0,
    dark: bool = True,
    fmt: str = "PNG",
) -> bytes:
    """`text` as a console screenshot: `size` px DejaVu Sans Mono at `scale` (a display's scaling)."""
    from PIL import Image, ImageDraw, ImageFont

    if not MONO.exists():
        pytest.skip("DejaVu Sans Mono (fonts-dejavu-core) is not installed")
    px = round(size * scale)
    mono = ImageFont.truetype(str(MONO), px)
    cjk_path = cjk_font()
    cjk = ImageFont.truetype(str(cjk_path), px) if cjk_path else None
    cell = mono.getlength("M")
    line_height = round(px * 1.3)
    lines = wrap(text, columns)
    margin = round(8 * scale)
    image = Image.new(
        "RGB",
        (round(cell * columns) + 2 * margin, line_height * len(lines) + 2 * margin),
        (12, 12, 12) if dark else (255, 255, 255),
    )
    draw = ImageDraw.Draw(image)
    ink = (204, 204, 204) if dark else (20, 20, 20)
    for row, line in enumerate(lines):
        x = float(margin)
        for ch in line:
            wide = ord(ch) >= 0x3000
            font = cjk if wide and cjk is not None else mono
            draw.text((x, margin + row * line_height), ch, font=font, fill=ink)
            x += cell * (2 if wide else 1)
    out = io.BytesIO()
    image.save(out, fmt, **({"quality": 92} if fmt == "JPEG" else {}))
    return out.getvalue()


def photo_like(width: int = 800, height: int = 600, seed: int = 7) -> bytes:
    """Something like a photo: soft gradients and blobs of colour, no text."""
    from PIL import Image, ImageDraw, ImageFilter

    rng = random.Random(seed)
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for _ in range(40):
        x, y = rng.randrange(width), rng.randrange(height)
        r = rng.randrange(20, 160)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(6))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()
