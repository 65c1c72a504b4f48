"""`make bench`: speed and memory of oomcheck as ratios against baselines measured in the same run.

Each figure is printed on one line with its goal beside it, then a summary line. Ratios are medians
over interleaved repetitions (engine, baseline, engine, …) so that both sides see the same machine
noise. `python -m benchmarks.run --only log,rss` runs a subset; `--strict` exits 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import compileall
import functools
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from benchmarks.genlog import MiB, generate_log

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
SMALL_CONFIG = ROOT / "examples" / "flux_lora_24gb_gc_off.yaml"
_FENCE = re.compile(r"```[A-Za-z]*\n(.*?)```", re.DOTALL)
# What a log reader has to find at least: one alternation over the OOM markers, one pass.
_BASELINE_PATTERN = re.compile(
    r"CUDA out of memory|CUDA error: out of memory|OutOfMemoryError|DefaultCPUAllocator|Killed process"
)


@dataclass
class Figure:
    label: str
    value: str
    goal: str
    met: bool | None  # None: skipped, with the reason in `value`


def paired_samples(
    first: Callable[[], object], second: Callable[[], object], reps: int
) -> tuple[list[float], list[float]]:
    """Seconds of each callable on every repetition, run alternately after one warm-up call each."""
    first()
    second()
    a: list[float] = []
    b: list[float] = []
    for _ in range(reps):
        t0 = time.perf_counter()
        first()
        t1 = time.perf_counter()
        second()
        t2 = time.perf_counter()
        a.append(t1 - t0)
        b.append(t2 - t1)
    return a, b


def paired_medians(
    first: Callable[[], object], second: Callable[[], object], reps: int
) -> tuple[float, float]:
    """Median seconds of each callable, run alternately after one warm-up call each."""
    a, b = paired_samples(first, second, reps)
    return statistics.median(a), statistics.median(b)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


# ------------------------------------------------------------------------------------------------
# Engine on the corpus vs yaml.load of the same config


def _config_text(text: str, engine_piece: str | None) -> str | None:
    """The config the engine found; failing that, a fenced or whole-input YAML/JSON mapping."""
    if engine_piece is not None:
        return engine_piece
    for candidate in [*_FENCE.findall(text), text]:
        try:
            data = yaml.load(candidate, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and ("config" in data or "train" in data or "process" in data):
            return str(candidate)
    return None


def _loads(config: str) -> bool:
    """Only configs that a plain loader reads make a baseline (a broken one fails in microseconds)."""
    try:
        yaml.load(config, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return False
    return True


def bench_corpus(reps: int) -> list[Figure]:
    from diagnosis import diagnose

    rows: list[tuple[str, float, float]] = []
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        text = path.read_text(encoding="utf-8")
        report = diagnose([text])
        config = _config_text(text, report.config.piece.text if report.config is not None else None)
        if config is None or not _loads(config):
            continue
        engine_s, yaml_s = paired_medians(
            lambda text=text: diagnose([text]),  # type: ignore[misc]
            lambda config=config: yaml.load(config, Loader=yaml.CSafeLoader),  # type: ignore[misc]
            reps,
        )
        rows.append((path.parent.name, engine_s, yaml_s))
    if not rows:
        return [Figure("engine / yaml.load per corpus case", "no corpus case holds a config", "≤ 3×", None)]
    for name, engine_s, yaml_s in rows:
        print(
            f"    {name[:60]:60s} engine {_ms(engine_s):>10s}  yaml {_ms(yaml_s):>10s}"
            f"  {engine_s / yaml_s:6.1f}×"
        )
    ratios = sorted((engine_s / yaml_s, name) for name, engine_s, yaml_s in rows)
    worst, worst_name = ratios[-1]
    median = statistics.median(r for r, _ in ratios)
    met = sum(1 for r, _ in ratios if r <= 3)
    return [
        Figure(
            f"engine / yaml.load(CSafeLoader) on {len(rows)} corpus configs",
            f"median {median:.1f}×, worst {worst:.1f}× ({worst_name[:40]}), {met}/{len(rows)} within goal",
            "≤ 3× on every case",
            worst <= 3,
        )
    ]


# ------------------------------------------------------------------------------------------------
# A 10 MiB AI Toolkit log vs one regex pass


def bench_log(reps: int) -> list[Figure]:
    from diagnosis import diagnose

    text = generate_log(10 * MiB)
    engine_s, regex_s = paired_medians(lambda: diagnose([text]), lambda: _BASELINE_PATTERN.search(text), reps)
    ratio = engine_s / regex_s
    return [
        Figure(
            "10 MiB AI Toolkit log: engine / one re.search pass",
            f"{ratio:.1f}× (engine {_ms(engine_s)}, re.search {_ms(regex_s)})",
            "≤ 5×",
            ratio <= 5,
        ),
        Figure("10 MiB AI Toolkit log: engine absolute", _ms(engine_s), "< 1 s", engine_s < 1),
    ]


# ------------------------------------------------------------------------------------------------
# Peak RSS of the CLI on a 10 MiB attachment, and CLI start-up


def _oomcheck_command() -> list[str]:
    script = Path(sys.executable).with_name("oomcheck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "oomcheck"]


def _peak_rss_kib(command: list[str]) -> int:
    """ru_maxrss of `command` alone: a wrapper process runs it, so no other child is counted."""
    wrapper = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper, *command], capture_output=True, text=True, check=True, timeout=300
    )
    return int(out.stdout.strip())


@contextmanager
def _big_log_file() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train_log.txt"
        path.write_text(generate_log(10 * MiB, seed=1), encoding="utf-8")
        yield path


def bench_rss() -> list[Figure]:
    with _big_log_file() as log:
        engine_kib = _peak_rss_kib([*_oomcheck_command(), "check", str(log), "--format", "json"])
    idle_kib = _peak_rss_kib([sys.executable, "-c", "import oomcheck.cli"])
    return [
        Figure(
            "peak RSS of `oomcheck check` on a 10 MiB log",
            f"{engine_kib / 1024:.0f} MiB (importing the CLI alone: {idle_kib / 1024:.0f} MiB)",
            "< 200 MiB",
            engine_kib < 200 * 1024,
        )
    ]


def _run_quiet(command: list[str], env: dict[str, str] | None = None) -> None:
    """Run a command to its end, noticing the end at once.

    `subprocess.run(..., timeout=...)` waits by polling with sleeps that double up to 50 ms, so a
    process was seen to end only at the next poll: every start-up time came out as 31.5, 63.5,
    113.5, 163.5, 213.5… ms plus a little, whatever it really was. A blocking wait returns when the
    process exits; a timer still kills a command that hangs.
    """
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    try:
        process.wait()
    finally:
        watchdog.cancel()


_OWN_PACKAGES = ("diagnosis", "oomcheck", "bot", "locales")


def _import_group(module: str) -> str:
    """Our own modules one by one (each has an owner), third-party packages as a whole."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in _OWN_PACKAGES else parts[0]


def import_costs(command: list[str], top: int = 10) -> list[tuple[str, float, str]]:
    """The costliest imports of `command` (python -X importtime): (module group, ms, imported by).

    Each group is charged the cumulative time of its outermost import, so a package's own imports are
    included once; groups nested in each other overlap (jsonout's figure includes pydantic's).
    """
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    err = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=120).stderr
    rows: list[tuple[int, str, float]] = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|", 2)
        name = name[1:]
        depth = (len(name) - len(name.lstrip(" "))) // 2
        rows.append((depth, name.strip(), int(cumulative) / 1000))
    # importtime prints children before their parent: walking backwards visits parents first.
    parent: dict[int, int | None] = {}
    stack: list[tuple[int, int]] = []
    for i in range(len(rows) - 1, -1, -1):
        while stack and stack[-1][0] >= rows[i][0]:
            stack.pop()
        parent[i] = stack[-1][1] if stack else None
        stack.append((rows[i][0], i))
    costs: dict[str, tuple[float, str]] = {}
    for i, (_, name, ms) in enumerate(rows):
        group = _import_group(name)
        ancestors = []
        j = parent[i]
        while j is not None:
            ancestors.append(rows[j][1])
            j = parent[j]
        if any(_import_group(a) == group for a in ancestors):
            continue
        importer = ancestors[0] if ancestors else "(interpreter)"
        if ms > costs.get(group, (0.0, ""))[0]:
            costs[group] = (ms, importer)
    ranked = sorted(costs.items(), key=lambda kv: -kv[1][0])[:top]
    return [(group, ms, importer) for group, (ms, importer) in ranked]


def _byte_compile_own_packages() -> None:
    """Give our modules the bytecode an installed oomcheck has (pip compiles a wheel on install).

    Without it, a checkout run with PYTHONDONTWRITEBYTECODE=1 (CI and some shells set it) compiles
    every module changed since its last .pyc on every single run, while `python -c pass` loads the
    standard library's bytecode: a cost no user pays, charged to one side of the ratio only.
    """
    for package in _OWN_PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=1)


# What a wheel is not built from (tests/test_packaging.py builds its wheel from the same copy).
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", ".hypothesis", "tests", "benchmarks", "deploy", "docs", ".env", "*.sqlite3*",
)  # fmt: skip


@contextmanager
def _regular_install(root: Path = ROOT) -> Iterator[Path]:
    """oomcheck installed from its wheel into a fresh virtualenv, as `pip install oomcheck` leaves it.

    The development virtualenv holds oomcheck as an editable install, whose `.pth` hook imports
    pathlib, urllib.parse and re at every interpreter start: `python -c pass` there takes about twice
    as long as in a plain virtualenv, which flatters the start-up ratio. The dependencies are taken
    from the development virtualenv through a path entry (no hook, nothing imported at start-up), so
    the figure needs no download beyond the build backend. Yields the new virtualenv's bin folder.
    `root` is the source tree to build (benchmarks/startup_ab.py builds other versions than this one).
    """
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
        # Built from a copy of the sources: setuptools keeps a build/ folder in the tree it builds, and a
        # module deleted since the last build would still ship from it.
        source = base / "src"
        shutil.copytree(root, source, ignore=NOT_SOURCES)
        build = [*pip, "wheel", "--no-deps", "-w", str(base / "wheels"), str(source)]
        subprocess.run(build, check=True, timeout=600)
        (wheel,) = (base / "wheels").glob("oomcheck-*.whl")
        venv = base / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        python = venv / "bin" / "python"
        # --ignore-installed: a source tree on PYTHONPATH holds oomcheck's metadata, which pip would
        # take for an installed copy and skip the install.
        install = [*pip, "--python", str(python), "install", "--no-deps", "--ignore-installed", str(wheel)]
        subprocess.run(install, check=True, timeout=600)
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
        dev_site = next(p for p in sys.path if p.endswith("site-packages"))
        (Path(purelib) / "oomcheck-bench-deps.pth").write_text(dev_site + "\n", encoding="utf-8")
        yield venv / "bin"


def _startup_figures(label: str, script: Path | list[str], python: str, reps: int) -> list[Figure]:
    figures = []
    extras: tuple[tuple[str, list[str]], ...] = (("text", []), ("json", ["--format", "json"]))
    command = [str(script)] if isinstance(script, Path) else script
    for fmt, extra in extras:
        check = [*command, "check", str(SMALL_CONFIG), *extra]
        cli, bare = paired_samples(
            functools.partial(_run_quiet, check), lambda: _run_quiet([python, "-c", "pass"]), reps
        )
        ratio = statistics.median(cli) / statistics.median(bare)
        fastest = min(cli) / min(bare)
        figures.append(
            Figure(
                f"CLI start-up, {label}: `oomcheck check` small config ({fmt}) / `python -c pass`",
                f"{ratio:.1f}× ({_ms(statistics.median(cli))} vs {_ms(statistics.median(bare))}; "
                f"fastest of {reps}: {fastest:.1f}×, {_ms(min(cli))} vs {_ms(min(bare))})",
                "≤ 4×",
                ratio <= 4,
            )
        )
    return figures


# What `oomcheck check` imports before any code of its own: the console script pip writes imports
# `re`; then PyYAML (the config's parser), argparse and typing.
_FLOOR_IMPORTS = "import re, yaml, argparse, typing"


def _startup_floor(python: str, reps: int) -> str:
    """The start-up no trimming of our own code can go below, as a ratio to `python -c pass`."""
    floor, bare = paired_samples(
        lambda: _run_quiet([python, "-c", _FLOOR_IMPORTS]), lambda: _run_quiet([python, "-c", "pass"]), reps
    )
    ratio = statistics.median(floor) / statistics.median(bare)
    return (
        f"    start-up floor, regular install: `python -c '{_FLOOR_IMPORTS}'` (what `oomcheck check` "
        f"imports before any code of its own) is {ratio:.1f}× `python -c pass` "
        f"({_ms(statistics.median(floor))} vs {_ms(statistics.median(bare))})"
    )


def bench_startup(reps: int) -> list[Figure]:
    """Start-up: medians of interleaved runs, as every figure here; the fastest runs are printed too,
    since on a shared machine the wait for a core weighs more on the 20 ms baseline than on the CLI.

    Measured twice: in the development virtualenv (the editable install; the figure of earlier
    runs) and from a regular install, which is what a user runs."""
    _byte_compile_own_packages()
    figures = _startup_figures("development virtualenv", _oomcheck_command(), sys.executable, reps)
    try:
        with _regular_install() as bin_dir:
            figures += _startup_figures(
                "regular install", bin_dir / "oomcheck", str(bin_dir / "python"), reps
            )
            print(_startup_floor(str(bin_dir / "python"), reps))
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        figures.append(Figure("CLI start-up, regular install", f"could not install: {exc}", "≤ 4×", None))
    costs = import_costs([sys.executable, "-m", "oomcheck", "check", str(SMALL_CONFIG)])
    print("    costliest imports of `oomcheck check` (python -X importtime, cumulative, groups overlap):")
    for name, ms, importer in costs:
        print(f"      {ms:8.1f} ms  {name:32s} imported by {importer}")
    return figures


# ------------------------------------------------------------------------------------------------


# ------------------------------------------------------------------------------------------------
# A screenshot of the example's OOM log: OCR time beside the engine's time on the text it reads


def bench_ocr(reps: int) -> list[Figure]:
    from bot import ocr
    from diagnosis import diagnose
    from tests.screenshots import console_png

    if not ocr.available():
        return [Figure("OCR per screenshot", "Tesseract is not installed", "-", None)]
    log = (ROOT / "examples" / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
    figures = []
    for label, shot in (
        ("console at 100 %", console_png(log)),
        ("light log panel at 150 %, JPEG", console_png(log, scale=1.5, dark=False, fmt="JPEG")),
    ):
        # Tesseract runs as a child process: its CPU time is the figure that load does not inflate.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        read = ocr.read_screenshot(shot)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        ocr_s, engine_s = paired_medians(
            functools.partial(ocr.read_screenshot, shot), functools.partial(diagnose, [read.text]), reps
        )
        figures.append(
            Figure(
                f"OCR of a screenshot of the example's OOM log ({label}) / the engine on its text",
                f"{ocr_s / engine_s:.0f}× (OCR {_ms(ocr_s)}, {cpu_s:.1f} s of CPU; engine {_ms(engine_s)})",
                "OCR < 10 s",
                ocr_s < 10,
            )
        )
    return figures


def bench_bot(reps: int) -> list[Figure]:
    from benchmarks.botbench import bot_round_trip

    return bot_round_trip(reps)


def bench_store(days: int, per_day: int) -> list[Figure]:
    from benchmarks.storebench import database_sizes

    now, before, migrated = database_sizes(days, per_day)
    mib = 1024 * 1024
    per_reply = now.seconds / now.replies, before.seconds / before.replies
    return [
        Figure(
            f"database after {days} days x {per_day} mixed diagnoses "
            f"({now.input_bytes / mib:.0f} MiB of input)",
            f"{now.size / mib:.1f} MiB (before schema 5, same run: {before.size / mib:.1f} MiB, "
            f"{now.size / before.size:.3f}x); storing a reply {_ms(per_reply[0])} vs {_ms(per_reply[1])}",
            "<= 50 MiB",
            now.size <= 50 * mib,
        ),
        Figure(
            "that old database, migrated by the first start after the update",
            f"{migrated.size / mib:.1f} MiB, in {_ms(migrated.seconds)} before the bot connects",
            "<= 50 MiB",
            migrated.size <= 50 * mib,
        ),
    ]


def bench_load(reps: int) -> list[Figure]:
    from benchmarks.loadbench import load_figures

    return load_figures(reps)


def bench_screen(reps: int) -> list[Figure]:
    from benchmarks.loadbench import screening_figures

    return screening_figures(reps)


BENCHES: dict[str, Callable[[argparse.Namespace], list[Figure]]] = {
    "corpus": lambda a: bench_corpus(a.reps),
    "log": lambda a: bench_log(max(3, a.reps // 3)),
    "bot": lambda a: bench_bot(a.bot_messages),
    "rss": lambda a: bench_rss(),
    "startup": lambda a: bench_startup(max(9, a.reps)),
    "store": lambda a: bench_store(a.store_days, a.store_per_day),
    "ocr": lambda a: bench_ocr(max(3, a.reps // 5)),
    "load": lambda a: bench_load(a.reps),
    "screen": lambda a: bench_screen(a.reps),
}
# Figures that another bench already gives, to be run alone: not part of a whole run.
_PARTS = frozenset({"screen"})  # load's first figure, in seconds instead of minutes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument(
        "--only",
        default=",".join(name for name in BENCHES if name not in _PARTS),
        help="comma-separated: " + ", ".join(BENCHES),
    )
    parser.add_argument("--reps", type=int, default=15, help="repetitions per timing (medians)")
    parser.add_argument("--bot-messages", type=int, default=200, help="round trips per bot")
    parser.add_argument("--store-days", type=int, default=14, help="simulated days of the store bench")
    parser.add_argument("--store-per-day", type=int, default=500, help="diagnoses a day in the store bench")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)
    figures: list[Figure] = []
    for name in args.only.split(","):
        print(f"[{name}]", flush=True)
        try:
            new = BENCHES[name.strip()](args)
        except Exception as exc:  # a bench that cannot run is reported, not fatal to the others
            new = [Figure(name, f"could not run: {type(exc).__name__}: {exc}", "-", None)]
        for fig in new:
            mark = {True: "met", False: "MISSED", None: "skipped"}[fig.met]
            print(f"  {fig.label}: {fig.value}  [goal {fig.goal}: {mark}]", flush=True)
        figures += new
    counted = [f for f in figures if f.met is not None]
    met = sum(1 for f in counted if f.met)
    skipped = len(figures) - len(counted)
    print(f"bench: {met}/{len(counted)} goals met" + (f", {skipped} skipped" if skipped else ""))
    own_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(peak RSS of this bench process: {own_mib:.0f} MiB)")
    return 1 if args.strict and met < len(counted) else 0


if __name__ == "__main__":
    raise SystemExit(main())
