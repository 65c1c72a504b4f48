"""`oomcheck check` on what people post instead of text: a screenshot of the console, a link to a paste."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import links, ocr
from diagnosis.render import message
from oomcheck.cli import EXIT_FINDINGS, EXIT_USAGE, main
from tests.conftest import EXAMPLES
from tests.pasteserver import PasteServer, serve
from tests.screenshots import console_png, needs_ocr, photo_like

OOM_LOG = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
CONFIG = EXAMPLES / "flux_lora_24gb_gc_off.yaml"
EMPTY = Path("/dev/null")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
async def server() -> AsyncIterator[PasteServer]:
    async for running in serve(PasteServer()):
        yield running


# ---------------------------------------------------------------- screenshots


@needs_ocr
def test_a_screenshot_of_the_log_is_diagnosed_like_the_log(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    shot = tmp_path / "console.png"
    shot.write_bytes(console_png(OOM_LOG))
    code, out, err = run("check", str(shot), str(CONFIG))
    assert code == EXIT_FINDINGS
    _, text_out, _ = run("check", str(EXAMPLES / "flux_lora_24gb_oom.log"), str(CONFIG))
    assert out.splitlines()[0] == text_out.splitlines()[0]
    assert "OOM (read from your screenshot console.png): tried to allocate 512.00 MiB" in out
    assert "Read console.png from the screenshot" in err


@needs_ocr
def test_a_photo_is_no_input(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    photo = tmp_path / "cat.jpg"
    photo.write_bytes(photo_like())
    code, out, err = run("check", str(photo), "--lang", "ja")
    assert err == "cat.jpg にはコンソールの文字が見つかりませんでした。\n"
    # Nothing was read: the reply asks for a config or a log, as for an empty paste.
    assert (code, out) == run("check", str(EMPTY), "--lang", "ja")[:2]


def test_without_tesseract_a_screenshot_is_asked_for_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("PIL")
    monkeypatch.setattr(ocr, "available", lambda: False)
    shot = tmp_path / "console.png"
    shot.write_bytes(console_png("CUDA out of memory."))
    code, out, err = run("check", str(shot), str(CONFIG))
    assert "reading screenshots needs Tesseract" in err and "Paste the console's text" in err
    # The config is still checked, without the screenshot's text.
    assert (code, out) == run("check", str(CONFIG))[:2]


# ---------------------------------------------------------------- links


def test_a_link_is_read_only_with_fetch() -> None:
    code, out, err = run("check", "https://pastebin.com/Ab12Cd34")
    assert (code, out) == (EXIT_USAGE, "")
    assert "add --fetch to read it" in err


def test_a_link_off_the_list_is_refused_even_with_fetch() -> None:
    code, _, err = run("check", "--fetch", "https://example.com/log.txt")
    assert code == EXIT_USAGE
    # Said for a terminal: what --fetch follows, and to pass the text as a file (not "attach it").
    assert err.strip() == message("cli.link.host", "en", url="https://example.com/log.txt")


async def test_a_pastebin_link_is_fetched_and_diagnosed(
    server: PasteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.pages["/raw/Ab12Cd34"] = OOM_LOG.encode()
    monkeypatch.setattr(links, "LinkFetcher", lambda limits: server.fetcher(limits))
    code, out, _ = await asyncio.to_thread(
        run, "check", "--fetch", "https://pastebin.com/Ab12Cd34", "--format", "json"
    )
    assert code == EXIT_FINDINGS
    report = json.loads(out)
    assert report["facts"]["phase"] == "training_step"
    assert {e["source"] for f in report["findings"] for e in f["evidence"]} <= {
        "https://pastebin.com/Ab12Cd34"
    }


async def test_estimate_reads_a_link_with_fetch_as_check_does(
    server: PasteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without --fetch the message tells the user to add it: estimate must then accept it.
    assert "add --fetch" in run("estimate", "https://pastebin.com/Ab12Cd34")[2]
    server.pages["/raw/Ab12Cd34"] = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_bytes()
    monkeypatch.setattr(links, "LinkFetcher", lambda limits: server.fetcher(limits))
    code, out, err = await asyncio.to_thread(
        run, "estimate", "--fetch", "https://pastebin.com/Ab12Cd34", "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)["family"] == "flux"


async def test_a_refused_fetch_says_why(server: PasteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.redirects["/raw/Ab12Cd34"] = f"https://127.0.0.1:{server.port}/admin"
    monkeypatch.setattr(links, "LinkFetcher", lambda limits: server.fetcher(limits))
    code, _, err = await asyncio.to_thread(run, "check", "--fetch", "https://pastebin.com/Ab12Cd34")
    assert code == EXIT_USAGE
    assert err.strip() == message("cli.link.host", "en", url="https://pastebin.com/Ab12Cd34")
    assert server.requests == ["/raw/Ab12Cd34"]
