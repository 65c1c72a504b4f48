"""Inputs that once made intake reread the text, through diagnose() end to end.

A JSON config cut off inside a run of escaped quotes (intake's JSON tokenizer tried again from each
of them: quadratic, minutes at 200 KB) and a log holding one 8 MB sentence of unclosed \u201c (the
quote pattern read 2,000 characters after each: most of a minute). Each runs in a child process with
a timeout, as the suite's other hang-prone cases do, so a regression fails instead of blocking the
suite; the report must be sound, and the case must have reached the code it is aimed at.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from diagnosis import diagnose, intake
from diagnosis.limits import DEFAULT_LIMITS
from tests.hostile.gen import EXAMPLE_LOG

ROOT = Path(__file__).resolve().parent.parent.parent


def escaped_quotes_json(size: int) -> bytes:
    """The UI's job JSON, cut off inside a prompt that is a run of escaped quotes."""
    head = (
        '{"job": "extension", "config": {"name": "my_lora", "process": [{"type": "sd_trainer", '
        '"train": {"batch_size": 1, "gradient_checkpointing": false}, "sample": {"prompts": ["a photo of \\"'
    )
    return (head + '\\"' * ((size - len(head)) // 2)).encode()


def unclosed_quote_log(size: int) -> bytes:
    """A log whose second line is one long sentence of opening \u201c marks that never close (a
    sentence, so intake asks whether it quotes the error), `size` bytes in all."""
    first, rest = EXAMPLE_LOG.split("\n", 1)
    unit = "it was \u201c "
    room = size - len((first + rest).encode()) - 2
    return (first + "\n" + unit * (room // len(unit.encode())) + "\n" + rest).encode()


CASES = {
    "escaped_quotes_200kb.json": escaped_quotes_json(200 * 1024),
    # Within max_input_bytes, so that intake reads all of it.
    "unclosed_quote_8mb.log": unclosed_quote_log(DEFAULT_LIMITS.max_input_bytes - 1024),
}


def test_the_cases_reach_the_code_they_aim_at(monkeypatch: pytest.MonkeyPatch) -> None:
    reached: list[str] = []
    brackets, spans = intake._json_brackets, intake._quoted_spans

    def json_seen(text: str, pos: int, end: int, units: int = intake._JSON_STRING_UNITS) -> Iterator[int]:
        reached.append(f"json {end - pos}")
        return brackets(text, pos, end, units)

    def quotes_seen(line: str) -> list[tuple[int, int]]:
        reached.append(f"quotes {len(line)}")
        return spans(line)

    monkeypatch.setattr(intake, "_json_brackets", json_seen)
    monkeypatch.setattr(intake, "_quoted_spans", quotes_seen)
    diagnose([CASES["escaped_quotes_200kb.json"]], sources=["job.json"])
    diagnose([CASES["unclosed_quote_8mb.log"]], sources=["train.log"])
    assert any(r.startswith("json ") and int(r.split()[1]) > 100_000 for r in reached), reached
    assert any(r.startswith("quotes ") and int(r.split()[1]) > 1_000_000 for r in reached), reached


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_once_quadratic_input_gets_a_sound_report(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(CASES[name])
    proc = subprocess.run(
        [sys.executable, "-m", "tests.hostile.child", str(path)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8"),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-4000:]
    problems = json.loads(proc.stdout)["problems"]
    assert not problems, "\n".join(problems)
