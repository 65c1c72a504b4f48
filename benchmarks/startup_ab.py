"""`python -m benchmarks.startup_ab [SOURCE ...]`: CLI start-up of builds of oomcheck, side by side.

Each SOURCE is a git ref (`main`, `HEAD~3`) or a source folder; the default is `main` against the
working tree. Each is built into a wheel and installed into a fresh virtualenv of its own, as `make
bench` does for its regular-install figure. Then every command runs once for each build in turn,
round after round (the order rotating), so that all builds see the same noise of a shared machine;
the medians are printed with each build's difference from the first one: wall time, and CPU time
(user + system of the child), which waiting for a busy core does not inflate. Every build gets an empty
cache folder (XDG_CACHE_HOME) and one unmeasured run first, so a build that caches something on its
first run is measured as its users run it afterwards.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from benchmarks.run import ROOT, _regular_install, _run_quiet

EXAMPLES = ROOT / "examples"
CONFIG = str(EXAMPLES / "flux_lora_24gb_gc_off.yaml")
LOG = str(EXAMPLES / "flux_lora_24gb_oom.log")
COMMANDS: dict[str, list[str]] = {
    "config + log, text": ["check", CONFIG, LOG],
    "config, text": ["check", CONFIG],
    "config + log, json": ["check", CONFIG, LOG, "--format", "json"],
    "config, json": ["check", CONFIG, "--format", "json"],
}


@contextmanager
def _source_tree(source: str) -> Iterator[Path]:
    """The folder `source` names, or the tree of the git ref `source` exported to a temporary one."""
    if Path(source).is_dir():
        yield Path(source).resolve()
        return
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", source],
            capture_output=True,
            check=True,
            timeout=120,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True, timeout=120)
        yield Path(tmp)


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (only one child runs at a time, so the children's usage grows
    by this one's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    _run_quiet(command, env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup_ab", description=__doc__)
    parser.add_argument("sources", nargs="*", default=["main", str(ROOT)], help="git refs or folders")
    parser.add_argument("--reps", type=int, default=41, help="rounds (medians over them)")
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        builds: list[tuple[str, Path, dict[str, str]]] = []
        for source in args.sources:
            tree = stack.enter_context(_source_tree(source))
            bin_dir = stack.enter_context(_regular_install(tree))
            cache = stack.enter_context(tempfile.TemporaryDirectory())
            builds.append((source, bin_dir, dict(os.environ, XDG_CACHE_HOME=cache)))
        samples: dict[tuple[str, int], list[tuple[float, float]]] = {}
        for name, argv_tail in COMMANDS.items():
            for i, (_, bin_dir, env) in enumerate(builds):
                _run_quiet([str(bin_dir / "oomcheck"), *argv_tail], env)
                samples[name, i] = []
        bare = [str(builds[0][1] / "python"), "-c", "pass"]
        samples["python -c pass", 0] = []
        for round_ in range(args.reps):
            order = builds[round_ % len(builds) :] + builds[: round_ % len(builds)]
            for name, argv_tail in COMMANDS.items():
                for build in order:
                    i = builds.index(build)
                    samples[name, i].append(_timed([str(build[1] / "oomcheck"), *argv_tail], build[2]))
            samples["python -c pass", 0].append(_timed(bare, builds[0][2]))
    print(f"medians of {args.reps} interleaved rounds, ms (difference from {args.sources[0]}):")
    for kind, column in (("wall", 0), ("CPU", 1)):
        for name in [*COMMANDS, "python -c pass"]:
            first = statistics.median(s[column] for s in samples[name, 0])
            cells = [f"{first * 1000:7.1f}"]
            for i in range(1, len(builds)):
                if (name, i) in samples:
                    median = statistics.median(s[column] for s in samples[name, i])
                    cells.append(f"{median * 1000:7.1f} ({(median - first) * 1000:+6.1f})")
            print(f"  {kind:4s} {name:20s} " + "  ".join(cells))
    print("builds: " + ", ".join(source for source, _, _ in builds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
