"""Hostile inputs through the CLI (in-process and as a real process) and through the engine.

Every case must give a normal, bounded answer: exit 0 or 1, strict JSON on stdout, no traceback,
Discord replies within Discord's limits, no pasted secret echoed, nothing executed.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.limits import DEFAULT_LIMITS
from diagnosis.report import Report
from oomcheck.cli import main
from tests.hostile.checks import finding_ids, load_strict_json, report_problems
from tests.hostile.conftest import GC_RULES, CaseBook
from tests.hostile.gen import (
    ALL_SECRETS,
    FIXTURES,
    HOME_USER,
    SENTINEL_NAME,
    SMALL_BUILDERS,
    _json_python_tags,
    _python_tags,
    big_cases,
    build_small,
    small_cases,
)

ROOT = Path(__file__).resolve().parent.parent.parent
SMALL = [c.name for c in small_cases()]
BIG_NAMES = [
    "long_line_6mb",
    "random_10mb",
    "random_10mb_yaml",
    "regex_stress",
    "regex_digit_run",
    "ooms_5000",
    "traceback_50000",
    "nesting_indented_2000",
    "giant_list_60000",
    "oversized_config_2mb",
    "fences_5000",
    "blank_lines_10mb",
    "blank_lines_crlf_8mb",
]
# Cases built to make a backtracking regex or a slow parser hang: only ever run in a child process with a
# timeout, so a hang fails its test instead of blocking the whole suite.
HANG_PRONE = ["regex_stress", "nesting_flow_10000", "nesting_flow_map_10000", "nesting_in_config"]
# A paste of line breaks once took minutes (intake copied its list of lines per trailing blank line).
HANG_PRONE += ["blank_lines_10mb", "blank_lines_crlf_8mb"]
# A million-digit size: an unanchored `\d+ Killed` once spent hours on it (regression, H2's detect.py).
HANG_PRONE.append("regex_digit_run")
ALL_NAMES = [n for n in SMALL + BIG_NAMES if n not in HANG_PRONE]
SUBPROCESS_CASES = [
    "alias_bomb_in_config",
    "alias_recursive",
    "nesting_json_10000",
    "utf16le_log",
    "secrets_log",
    "random_10mb",
    "long_line_6mb",
]


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def assert_sound_cli(code: int, out: str, err: str, secrets: tuple[str, ...]) -> None:
    assert code in (0, 1), (code, err[-2000:])
    assert "Traceback" not in err, err[-4000:]
    data = load_strict_json(out)
    assert isinstance(data, dict)
    assert code == (1 if data["findings"] else 0)
    for secret in secrets:
        assert secret not in out, f"stdout echoes {secret[:6]}…"
        assert secret not in err, f"stderr echoes {secret[:6]}…"


def test_fixtures_match_their_builders() -> None:
    """The committed fixtures are exactly what gen.py builds (rerun `python -m tests.hostile.gen`)."""
    for name, (filename, _, _) in SMALL_BUILDERS.items():
        data = (FIXTURES / filename).read_bytes()
        assert data == build_small(name), filename
        assert len(data) < 100 * 1024


def test_big_case_names_are_all_listed() -> None:
    assert sorted(c.name for c in big_cases()) == sorted(BIG_NAMES)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_cli_json_is_sound(
    name: str, book: CaseBook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = book.paths(name)
    monkeypatch.chdir(tmp_path)  # a payload that ran would drop its sentinel here
    code, out, err = run_cli(["check", *map(str, paths), "--format", "json"])
    assert_sound_cli(code, out, err, book.case(name).secrets)
    assert not (tmp_path / SENTINEL_NAME).exists()


@pytest.mark.parametrize("name", ALL_NAMES)
def test_engine_report_is_sound(
    name: str, book: CaseBook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    case = book.case(name)
    report = book.report(name)
    problems = report_problems(
        report, secrets=case.secrets, mentions="mentions" in case.tags, bidi="bidi" in case.tags
    )
    assert not problems, "\n".join(problems)
    assert not (tmp_path / SENTINEL_NAME).exists()


@pytest.mark.parametrize("fmt", ["text", "markdown"])
@pytest.mark.parametrize("name", ["secrets_log", "secrets_config", "mentions", "alias_bomb_in_config"])
def test_cli_human_formats_are_sound(name: str, fmt: str, book: CaseBook) -> None:
    code, out, err = run_cli(["check", *map(str, book.paths(name)), "--format", fmt, "--diff"])
    assert code in (0, 1)
    assert "Traceback" not in err
    for secret in ALL_SECRETS:
        assert secret not in out and secret not in err


@pytest.mark.parametrize(
    "name", ["secrets_config", "secret_json_config", "duplicate_keys", "bom_crlf_config"]
)
def test_fix_written_to_disk_keeps_no_secret(name: str, book: CaseBook, tmp_path: Path) -> None:
    source = book.paths(name)[0]
    target = tmp_path / source.name
    target.write_bytes(source.read_bytes())
    code, _, err = run_cli(["check", str(target), "--fix", "--format", "json"])
    assert code in (0, 1)
    assert "Traceback" not in err
    # The user's own home paths go back into the file on their own disk (a redacted output folder
    # would break their run); every token stays out of it.
    tokens = [secret for secret in ALL_SECRETS if secret != HOME_USER]
    written_files = [written for written in tmp_path.iterdir() if written != target]
    assert len(written_files) == 1, "--fix wrote no corrected file: nothing was checked"
    for written in written_files:
        text = written.read_text(encoding="utf-8", errors="replace")
        for secret in tokens:
            assert secret not in text, f"{written.name} echoes {secret[:6]}…"
    if HOME_USER in source.read_text(encoding="utf-8", errors="replace"):
        assert all(HOME_USER in w.read_text(encoding="utf-8") for w in written_files)


def test_python_tags_with_an_absolute_sentinel_never_run(tmp_path: Path) -> None:
    sentinel = tmp_path / "absolute_sentinel"
    config = tmp_path / "pwn.yaml"
    config.write_text(_python_tags(str(sentinel)), encoding="utf-8")
    json_config = tmp_path / "pwn.json"
    json_config.write_text(_json_python_tags(str(sentinel)), encoding="utf-8")
    code, out, err = run_cli(["check", str(config), str(json_config), "--format", "json"])
    assert_sound_cli(code, out, err, ())
    report = diagnose([config.read_bytes(), json_config.read_bytes()], steps=None)
    assert not report_problems(report)
    assert not sentinel.exists()


# ------------------------------------------------------------------------------------------------
# The same through a real process, with a timeout so that a hang fails instead of blocking CI.


def _subprocess(
    args: list[str], cwd: Path, stdin: bytes | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "oomcheck", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize("name", SUBPROCESS_CASES + HANG_PRONE)
def test_subprocess_cli_is_sound(name: str, book: CaseBook, tmp_path: Path) -> None:
    proc = _subprocess(["check", *map(str, book.paths(name)), "--format", "json"], tmp_path)
    assert_sound_cli(
        proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8", "replace"), ALL_SECRETS
    )


@pytest.mark.parametrize("name", HANG_PRONE)
def test_subprocess_engine_report_is_sound(name: str, book: CaseBook, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "tests.hostile.child", *map(str, book.paths(name))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-4000:]
    problems = json.loads(proc.stdout)["problems"]
    assert not problems, "\n".join(problems)


def test_subprocess_python_tags_never_run(tmp_path: Path) -> None:
    sentinel = tmp_path / "subprocess_sentinel"
    config = tmp_path / "pwn.yaml"
    config.write_text(_python_tags(str(sentinel)), encoding="utf-8")
    proc = _subprocess(["check", str(config), "--format", "json", "--fix"], tmp_path)
    assert_sound_cli(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8", "replace"), ())
    assert not sentinel.exists()
    assert not (tmp_path / SENTINEL_NAME).exists()


def test_subprocess_random_bytes_on_stdin(book: CaseBook, tmp_path: Path) -> None:
    data = book.case("random_10mb").files[0][1]
    proc = _subprocess(["check", "-", "--format", "json"], tmp_path, stdin=data)
    assert_sound_cli(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8", "replace"), ())


# ------------------------------------------------------------------------------------------------
# What the engine must conclude, once its rules are live (skipped while they are a placeholder).

TAGGED = {
    tag: [c.name for c in small_cases() if tag in c.tags]
    for tag in (
        "gc_not_read",
        "gc_still_off",
        "same_as_log",
        "same_as_config",
        "crlf",
        "yaml_invalid",
        "incomplete",
        "secrets",
    )
}


def _ids(report: Report) -> set[str]:
    return finding_ids(report)


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["gc_not_read"])
def test_lookalike_key_is_not_gradient_checkpointing(name: str, book: CaseBook) -> None:
    ids = _ids(book.report(name))
    assert not ids & GC_RULES, f"a look-alike key was read as gradient_checkpointing: {sorted(ids)}"


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["gc_still_off"])
def test_lookalike_key_does_not_hide_the_real_one(name: str, book: CaseBook) -> None:
    assert _ids(book.report(name)) & GC_RULES


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["same_as_log"])
def test_utf16_log_reads_like_utf8(name: str, book: CaseBook, baseline: dict[str, Report]) -> None:
    report = book.report(name)
    assert report.log is not None and report.log.fatal is not None
    assert _ids(report) == _ids(baseline["log"])


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["same_as_config"])
def test_bom_crlf_config_reads_like_plain(name: str, book: CaseBook, baseline: dict[str, Report]) -> None:
    assert _ids(book.report(name)) == _ids(baseline["config"])


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["crlf"])
def test_corrected_crlf_config_keeps_crlf(name: str, book: CaseBook) -> None:
    corrected = book.report(name).corrected_config
    assert corrected is not None
    assert "\n" not in corrected.replace("\r\n", ""), "the fix mixed LF into a CRLF file"


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["yaml_invalid"])
def test_tab_indented_config_is_yaml_invalid(name: str, book: CaseBook) -> None:
    assert "yaml_invalid" in _ids(book.report(name))


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["incomplete"])
def test_empty_input_asks_for_more(name: str, book: CaseBook) -> None:
    report = book.report(name)
    assert _ids(report) == {"input_incomplete"}


@pytest.mark.usefixtures("engine_live")
@pytest.mark.parametrize("name", TAGGED["secrets"])
def test_pasted_secrets_are_reported(name: str, book: CaseBook) -> None:
    report = book.report(name)
    assert report.secrets_found > 0
    assert "secret_in_input" in _ids(report)


@pytest.mark.usefixtures("engine_live")
def test_five_thousand_ooms_keep_a_bounded_event_list(book: CaseBook) -> None:
    report = book.report("ooms_5000")
    assert report.log is not None
    assert 0 < len(report.log.events) <= DEFAULT_LIMITS.max_events
    assert report.log.fatal is not None


VRAM_VALUES = ["nan", "inf", "-inf", "-1", "0", "1e308", "0.0001"]


@pytest.mark.parametrize("vram", VRAM_VALUES)
def test_absurd_stated_vram_on_the_cli(vram: str, book: CaseBook) -> None:
    paths = [*map(str, book.paths("secrets_config")), *map(str, book.paths("absurd_oom_numbers"))]
    code, out, err = run_cli(["check", *paths, f"--gpu-vram={vram}", "--format", "json"])
    if code == 2:  # refusing the value as a usage error is a fine answer too
        assert err.strip() and not out
        return
    assert_sound_cli(code, out, err, ALL_SECRETS)


@pytest.mark.parametrize("vram", VRAM_VALUES)
def test_absurd_stated_vram_in_the_engine(vram: str, book: CaseBook) -> None:
    data = [d for _, d in book.case("secrets_config").files + book.case("absurd_oom_numbers").files]
    problems = report_problems(diagnose(data, gpu_vram_gib=float(vram), steps=None), secrets=ALL_SECRETS)
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------------
# Every module-level regex of the product against 250,000-character runs (tests/hostile/regex_probe.py).


def _probe(*args: str, timeout: float) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.hostile.regex_probe", *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def test_no_module_regex_backtracks_on_long_runs() -> None:
    try:
        out = _probe(timeout=240)
    except subprocess.TimeoutExpired as exc:
        last = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"a regex never finished: {last.strip().splitlines()[-1:]}")
    assert out.strip().splitlines()[-1].startswith("done ")


def test_the_probe_covers_patterns_compiled_on_first_use() -> None:
    from tests.hostile.regex_probe import patterns

    labels = {label for label, _, _ in patterns()}
    assert {"diagnosis.logreader.gpus._NAME_RE", "diagnosis.intake._CJK"} <= labels
