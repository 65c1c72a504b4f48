"""Diagnose files in a child process and print the broken invariants as JSON (for hang-prone cases).

`python -m tests.hostile.child FILE...` prints `{"problems": [...]}`; the test around it runs it with a
timeout, so a pattern or parser that never finishes fails the test instead of blocking the suite.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from diagnosis import diagnose
from tests.hostile.checks import report_problems
from tests.hostile.gen import ALL_SECRETS


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv]
    # Every ladder step written: the most work a hostile input can cause.
    report = diagnose([p.read_bytes() for p in paths], sources=[p.name for p in paths], steps=None)
    sys.stdout.write(json.dumps({"problems": report_problems(report, secrets=ALL_SECRETS)}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
