"""How the trainer's process ended, when the log says so: an exit code or a signal.

A run that dies without a Python traceback leaves only such a line: the shell's `Killed`, a launcher's
`exits with return code = -9`, the UI's `Job process terminated with exit code 1.`, a terminal's
`[process exited with code 3221225477 (0xc0000005)]`, `Segmentation fault (core dumped)`. A code is
kept as printed; a hexadecimal one (Windows NTSTATUS) is read as the unsigned number Windows prints.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from diagnosis.logreader.errors import exception_headline

# "exit code 1", "exited with code 0", "exit status 137", "exited with error code 5", "return code = -9",
# "returncode=-9", "exit_code: 1". Each part is a literal or a bounded class: linear.
_CODE = re.compile(
    r"(?:exit(?:ed)?(?: with)?(?: error)?[ _](?:code|status)|return ?code)"
    r" {0,3}(?:[=:]|is)? {0,3}(-?\d{1,10}|0x[0-9A-Fa-f]{1,8})",
    re.IGNORECASE,
)
# Windows Terminal in Chinese and Japanese: "[已退出进程，代码为 1 (0x00000001)]",
# "[プロセスはコード 1 (0x00000001) で終了しました]".
_CODE_CJK = re.compile(r"(?:代码为|コード) {0,2}(-?\d{1,10})")
_SIGNAL = re.compile(r"\bSIG(KILL|SEGV|ABRT|TERM|BUS|INT|HUP)\b")
# "  1234 Killed    python run.py" (a shell reporting a background job).
_SHELL_KILLED = re.compile(r"(?:^|\s)\d{1,10}\s+Killed\s")
# Exit codes of subprocesses inside an error message say nothing about the trainer's own end.
_NOT_OURS = ("returned non-zero exit status", "DataLoader worker")


class Exit(NamedTuple):
    code: int | None
    signal: str | None  # "SIGKILL", "SIGSEGV", …


def could_be_exit(line: str) -> bool:
    """A cheap screen before the patterns."""
    return (
        "xit" in line
        or "XIT" in line
        or "eturn" in line
        or "Killed" in line
        or "SIG" in line
        or "fault" in line
        or "Aborted" in line
        or "代码为" in line
        or "コード" in line
    )


def _number(text: str) -> int:
    return int(text, 16) if text[:2].lower() == "0x" else int(text)


def exit_of(line: str) -> Exit | None:
    """The exit a line reports, or None. Exception lines are not exits (their codes are a child's)."""
    if not could_be_exit(line):
        return None
    stripped = line.strip()
    if exception_headline(stripped) is not None or any(words in line for words in _NOT_OURS):
        return None
    signal: str | None = None
    named = _SIGNAL.search(line) if "SIG" in line else None
    if named is not None:
        signal = "SIG" + named.group(1)
    elif stripped == "Killed" or ("Killed" in line and _SHELL_KILLED.search(line) is not None):
        signal = "SIGKILL"
    elif stripped.startswith("Segmentation fault") or "Segmentation fault (core dumped)" in line:
        signal = "SIGSEGV"
    elif stripped.startswith("Aborted (core dumped)"):
        signal = "SIGABRT"
    code_match = _CODE.search(line)
    if code_match is None and ("退出" in line or "終了" in line):
        code_match = _CODE_CJK.search(line)
    code = _number(code_match.group(1)) if code_match is not None else None
    if code is None and signal is None:
        if "Job process exited unexpectedly" in line:
            return Exit(None, None)
        return None
    if signal is None and code in {-9, 137}:
        signal = "SIGKILL"
    return Exit(code, signal)
