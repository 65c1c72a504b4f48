"""`--fix` cannot be turned against the user: no writing through links, over pipes or devices, no
truncated original after a failed write, the original's permissions kept; and a file name never
brings escapes or bidi marks to the terminal."""

from __future__ import annotations

import errno
import io
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from oomcheck.cli import EXIT_FINDINGS, EXIT_USAGE, main
from tests.conftest import EXAMPLES

CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
FIXED_LINE = "gradient_checkpointing: true # off"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _config(folder: Path, name: str = "job.yaml", mode: int = 0o644) -> Path:
    path = folder / name
    path.write_text(CONFIG, encoding="utf-8")
    path.chmod(mode)
    return path


@pytest.mark.parametrize(("lang", "said"), [("en", "symbolic link"), ("ja", "シンボリックリンク")])
def test_in_place_never_writes_through_a_link(tmp_path: Path, lang: str, said: str) -> None:
    real = _config(tmp_path / "elsewhere" if (tmp_path / "elsewhere").mkdir() is None else tmp_path)
    link = tmp_path / "job.yaml"
    link.symlink_to(real)
    code, out, err = run("check", str(link), "--fix", "--in-place", "--lang", lang)
    assert code == EXIT_USAGE
    assert said in err and out  # refused, and the diagnosis itself was still printed
    assert real.read_text(encoding="utf-8") == CONFIG and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "job.yaml"]


@pytest.mark.parametrize("dangling", [True, False])
def test_fix_never_writes_through_a_link_at_the_fixed_name(tmp_path: Path, dangling: bool) -> None:
    config = _config(tmp_path)
    victim = tmp_path / "victim.txt"
    if not dangling:
        victim.write_text("keep me\n", encoding="utf-8")
    (tmp_path / "job.fixed.yaml").symlink_to(victim)
    code, _, err = run("check", str(config), "--fix", "--lang", "en")
    assert code == EXIT_USAGE
    assert "symbolic link" in err and "job.fixed.yaml" in err
    assert victim.exists() is not dangling
    if not dangling:
        assert victim.read_text(encoding="utf-8") == "keep me\n"


def _disk_full_on_write(monkeypatch: pytest.MonkeyPatch) -> None:
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.parametrize(("lang", "cannot"), [("en", "Cannot write"), ("ja", "書き込めません")])
@pytest.mark.parametrize("in_place", [True, False])
def test_a_write_that_fails_leaves_the_original_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_place: bool, lang: str, cannot: str
) -> None:
    from diagnosis.render import cli_message

    config = _config(tmp_path)
    _disk_full_on_write(monkeypatch)
    code, _, err = run("check", str(config), "--fix", *(["--in-place"] if in_place else []), "--lang", lang)
    assert code == EXIT_USAGE
    # The reason in the user's language, as for a file that cannot be read (the system's is English).
    assert cannot in err and cli_message("cli.os_error.ENOSPC", lang) in err
    assert config.read_text(encoding="utf-8") == CONFIG
    assert [p.name for p in tmp_path.iterdir()] == ["job.yaml"]


def _oomcheck(
    *argv: str, limit_file_bytes: int | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own: a regression that hangs fails here instead of hanging."""

    def limit() -> None:
        if limit_file_bytes is not None:
            # A file-size limit is a disk that fills up mid-write: writes past it fail with EFBIG.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_bytes, limit_file_bytes))

    return subprocess.run(
        [sys.executable, "-m", "oomcheck", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        preexec_fn=limit,
        check=False,
    )


def test_a_write_cut_short_by_a_full_disk_leaves_the_original_whole(tmp_path: Path) -> None:
    # The failure the issue saw: a config of 1,812 bytes cut to 1,024 when the write stopped there.
    config = _config(tmp_path)
    assert len(CONFIG.encode()) > 1024
    done = _oomcheck("check", str(config), "--fix", "--in-place", "--lang", "en", limit_file_bytes=1024)
    assert done.returncode == EXIT_USAGE
    assert "Cannot write" in done.stderr and "Traceback" not in done.stderr
    assert config.read_text(encoding="utf-8") == CONFIG
    assert [p.name for p in tmp_path.iterdir()] == ["job.yaml"]


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664])
def test_the_written_file_keeps_the_originals_permissions(tmp_path: Path, mode: int) -> None:
    config = _config(tmp_path, mode=mode)
    assert run("check", str(config), "--fix")[0] == EXIT_FINDINGS
    fixed = tmp_path / "job.fixed.yaml"
    assert FIXED_LINE in fixed.read_text(encoding="utf-8")
    assert stat.S_IMODE(fixed.stat().st_mode) == mode
    assert run("check", str(config), "--fix", "--in-place")[0] == EXIT_FINDINGS
    assert FIXED_LINE in config.read_text(encoding="utf-8")
    assert stat.S_IMODE(config.stat().st_mode) == mode


@pytest.mark.parametrize(("lang", "said"), [("en", "standard input"), ("ja", "標準入力")])
def test_in_place_refuses_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(CONFIG.encode()), encoding="utf-8"))
    code, _, err = run("check", "-", "--fix", "--in-place", "--lang", lang)
    assert code == EXIT_USAGE
    assert said in err
    assert list(tmp_path.iterdir()) == []


def test_in_place_refuses_a_pipe_of_more_than_a_pipe_buffer_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "job.yaml"
    os.mkfifo(fifo)
    big = CONFIG + "".join(
        f"# padding comment line {i:06d} to pass the 64 KiB of a pipe\n" for i in range(2000)
    )
    assert len(big.encode()) > 65536

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write(big)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = _oomcheck("check", str(fifo), "--fix", "--in-place", "--lang", "en")
    writer.join(timeout=5)
    assert done.returncode == EXIT_USAGE
    assert "not a regular file" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["job.yaml"] and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_in_place_refuses_a_pipe_named_by_a_path() -> None:
    # How a shell passes `<(cat job.yaml)`: a path to a pipe (here /dev/stdin, a link to one).
    done = _oomcheck("check", "/dev/stdin", "--fix", "--in-place", "--lang", "en", stdin=CONFIG)
    assert done.returncode == EXIT_USAGE
    assert "not a regular file" in done.stderr and "symbolic link" not in done.stderr


HIDDEN = "\x1b[2J\x1b]0;pwned\x07\u202e\u061c\u2066\U000e0041\u3164\u2800"
# What must never be printed as it is: the escape, the bell, bidi marks, a tag, the blank fillers.
NEVER = "\x1b\x07\u202e\u061c\u2066\U000e0041\u3164\u2800"


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_file_name_brings_no_escape_or_bidi_mark_to_the_terminal(tmp_path: Path, fmt: str) -> None:
    log = tmp_path / f"train{HIDDEN}.log"
    log.write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.64 GiB of which 1.02 GiB is free.\n",
        encoding="utf-8",
    )
    config = _config(tmp_path, name=f"job{HIDDEN}.yaml")
    code, out, err = run("check", str(config), str(log), "--fix", "--format", fmt, "--lang", "en")
    assert code == EXIT_FINDINGS
    for ch in NEVER:
        assert ch not in out and ch not in err
    assert "job\\x1b[2J" in err  # the written file is named with its escapes shown
    assert "pwned" in out  # and the reply names the files, their hidden characters shown


def test_an_unreadable_path_is_named_with_its_escapes_shown(tmp_path: Path) -> None:
    code, _, err = run("check", str(tmp_path / f"gone{HIDDEN}.yaml"), "--lang", "en")
    assert code == EXIT_USAGE
    for ch in NEVER:
        assert ch not in err
    assert "gone\\x1b[2J\\x1b]0;pwned\\x07\\u202e\\u061c\\u2066\\U000e0041\\u3164\\u2800.yaml" in err
