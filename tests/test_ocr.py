"""Screenshots read back with Tesseract (bot/ocr.py): console text drawn with Pillow at the sizes and
scales screenshots come in, then read and diagnosed like the text itself."""

from __future__ import annotations

import io

import pytest

from bot import ocr
from bot.diagnosis_port import is_real_case
from bot.ocr import OcrLimits, ReadStatus, image_format, numbers_agree, read_screenshot, tidy_line
from diagnosis import diagnose
from diagnosis.render import render_cli
from tests.conftest import EXAMPLES
from tests.screenshots import cjk_font, console_png, needs_ocr, photo_like

pytest.importorskip("PIL", reason="Pillow (the `ocr` extra) is not installed")

OOM_LOG = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")


def headline(texts: list[str], sources: list[str]) -> str:
    return render_cli(diagnose(texts, sources=sources), fmt="text").splitlines()[0]


def summary(texts: list[str], sources: list[str]) -> str:
    return render_cli(diagnose(texts, sources=sources), fmt="text").splitlines()[1]


# ---------------------------------------------------------------- reading back what was drawn


@needs_ocr
@pytest.mark.parametrize(
    ("scale", "dark", "fmt"),
    [(1.0, True, "PNG"), (1.5, False, "JPEG")],
    ids=["console-100%", "light-panel-150%-jpeg"],
)
def test_the_examples_oom_log_as_a_screenshot_gets_the_headline_of_the_text(
    scale: float, dark: bool, fmt: str
) -> None:
    read = read_screenshot(console_png(OOM_LOG, scale=scale, dark=dark, fmt=fmt))
    assert read.status is ReadStatus.TEXT, read.reason
    # The console cut the message at 120 columns, inside words ("of whi" / "ch"): read back as one line.
    assert "GPU 0 has a total capacity of 23.55 GiB of which 201.31 MiB is free. Including non-" in read.text
    assert headline([read.text], ["shot.png"]) == headline([OOM_LOG], ["oom.log"])
    # The line under the headline too: the card's size comes from the message's figures.
    assert summary([read.text], ["shot.png"]) == summary([OOM_LOG], ["oom.log"])


@needs_ocr
def test_a_progress_bar_is_read_as_a_bar_the_log_reader_knows() -> None:
    text = (
        "Generating baseline samples before training\n"
        "my_lora:  45%|████▌     | 900/2000 [1:02:03<1:15:00,  4.09s/it, lr: 1.0e-04 loss: 4.104e-01]\n"
        "Saving at step 900\n"
    )
    read = read_screenshot(console_png(text, columns=100, scale=1.25))
    assert read.status is ReadStatus.TEXT, read.reason
    assert "45%|| 900/2000 [1:02:03<1:15:00" in read.text
    assert diagnose([read.text], sources=["shot.png"]).facts.step == 900


@needs_ocr
def test_a_japanese_windows_path_keeps_its_japanese_folder() -> None:
    if cjk_font() is None:
        pytest.skip("no Japanese font (fonts-ipafont-gothic) to draw the path with")
    text = (
        "Traceback (most recent call last):\n"
        '  File "C:\\Users\\たろう\\Desktop\\ai-toolkit\\run.py", line 90, in <module>\n'
        "    main()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 11.99 GiB of which 0 bytes is free. Of the allocated memory 10.81 GiB is allocated "
        "by PyTorch, and 220.53 MiB is reserved by PyTorch but unallocated.\n"
    )
    read = read_screenshot(console_png(text))
    assert read.status is ReadStatus.TEXT, read.reason
    assert "C:\\Users\\たろう" in read.text
    assert "\\Desktop\\ai-toolkit\\run.py" in read.text
    assert headline([read.text], ["shot.png"]) == headline([text], ["log.txt"])


@needs_ocr
def test_a_photo_has_no_text() -> None:
    assert read_screenshot(photo_like()).status is ReadStatus.NO_TEXT


@needs_ocr
def test_a_screenshot_of_chat_is_read_but_is_no_case() -> None:
    chat = "hey everyone, here is a picture of my dog at the beach\nwe went there last sunday, it was great\n"
    read = read_screenshot(console_png(chat, columns=80))
    assert read.status is ReadStatus.TEXT
    assert not is_real_case(diagnose([read.text], sources=["dog.png"]))


@needs_ocr
def test_a_blurred_screenshot_is_a_guess_not_a_read() -> None:
    from PIL import Image

    sharp = Image.open(io.BytesIO(console_png(OOM_LOG)))
    small = sharp.resize((sharp.width * 2 // 5, sharp.height * 2 // 5))
    out = io.BytesIO()
    small.save(out, "JPEG", quality=30)
    assert read_screenshot(out.getvalue()).status is ReadStatus.UNSURE


# ---------------------------------------------------------------- what is never decoded


def test_images_past_the_byte_bound_are_refused_unread() -> None:
    data = console_png("CUDA out of memory.")
    read = read_screenshot(data, OcrLimits(max_bytes=len(data) - 1))
    assert (read.status, read.reason) == (ReadStatus.REFUSED, "bytes")


def test_images_past_the_pixel_bound_are_refused_from_the_header() -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (6000, 5000)).save(out, "PNG")  # a few KB on disk, 30 million pixels
    assert read_screenshot(out.getvalue()).status is ReadStatus.REFUSED


def test_a_decompression_bomb_is_refused_even_under_a_loose_pixel_bound() -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (12000, 12000)).save(out, "PNG")  # past Pillow's own limit of 89 million pixels
    assert read_screenshot(out.getvalue(), OcrLimits(max_pixels=10**9)).status is ReadStatus.REFUSED


def test_other_formats_and_broken_files_are_refused() -> None:
    from PIL import Image

    gif = io.BytesIO()
    Image.new("RGB", (10, 10)).save(gif, "GIF")
    png = console_png("CUDA out of memory.")
    for data in (gif.getvalue(), b"not an image", png[: len(png) // 2]):
        assert read_screenshot(data).status is ReadStatus.REFUSED


def test_formats_are_known_by_their_first_bytes() -> None:
    assert image_format(console_png("x")) == "PNG"
    assert image_format(console_png("x", fmt="JPEG")) == "JPEG"
    assert image_format(console_png("x", fmt="WEBP")) == "WEBP"
    assert image_format(b"GIF89a...") is None


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("seen", "meant"),
    [
        (
            "Tried to allocate 5l2.OO MiB. GPU O has a total",
            "Tried to allocate 512.00 MiB. GPU 0 has a total",
        ),
        ("capacity of 23.S5 GiB of which © bytes is free", "capacity of 23.55 GiB of which 0 bytes is free"),
        ("this process has 2I.33 GiB memory in use", "this process has 21.33 GiB memory in use"),
    ],
)
def test_letters_read_for_digits_inside_figures_become_digits(seen: str, meant: str) -> None:
    assert tidy_line(seen) == meant


def test_words_around_figures_keep_their_letters() -> None:
    line = "Of the allocated memory SO MiB Is OK; Loss is low"
    assert tidy_line(line) == "Of the allocated memory SO MiB Is OK; Loss is low"


def test_figures_that_break_the_messages_arithmetic_are_caught() -> None:
    good = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total "
        "capacity of 23.55 GiB of which 201.31 MiB is free. Including non-PyTorch memory, this process "
        "has 23.33 GiB memory in use."
    )
    assert numbers_agree(good)
    # 291.31 GiB free on a 23.55 GiB card: a misread unit or digit
    assert not numbers_agree(good.replace("201.31 MiB is free", "291.31 GiB is free"))
    # the message wrapped by the console onto the next line is read as one
    wrapped = good.replace("23.55 GiB of which", "23.55 GiB of\nwhich").replace("23.33 GiB", "93.33 GiB")
    assert not numbers_agree(wrapped)


def test_available_is_false_without_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    pytesseract = pytest.importorskip("pytesseract")
    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    ocr.available.cache_clear()
    try:
        assert not ocr.available()
    finally:
        ocr.available.cache_clear()


@needs_ocr
def test_a_clear_screenshot_whose_figures_disagree_is_not_trusted() -> None:
    # Drawn as is: 291.31 GiB free on a 23.55 GiB card is what a misread would look like.
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total\n"
        "capacity of 23.55 GiB of which 291.31 GiB is free. Including non-PyTorch memory, this process\n"
        "has 23.33 GiB memory in use.\n"
    )
    read = read_screenshot(console_png(text, columns=100))
    assert (read.status, read.reason) == (ReadStatus.UNSURE, "figures disagree")
