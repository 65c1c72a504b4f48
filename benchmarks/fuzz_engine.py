"""Coverage-guided fuzzing of `diagnose` and every renderer with atheris (`make fuzz`; not part of CI).

    python benchmarks/fuzz_engine.py -max_total_time=120 tests/hostile/fixtures

Corpus directories given on the command line are treated as read-only seeds: they are copied into a
working corpus (default $TMPDIR/oomcheck-fuzz/corpus, or FUZZ_WORKDIR) so libFuzzer never writes into
the repository. Crashes and hangs land in the work directory's `artifacts/`; replay one with
`python benchmarks/fuzz_engine.py <artifact>`. Each crash found belongs in tests/hostile/ as a
regression test.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import atheris  # type: ignore[import-untyped]  # noqa: E402 (after the path set-up above)

with atheris.instrument_imports(include=["diagnosis"]):
    from diagnosis import diagnose
    from tests.hostile.checks import report_problems

LOCALES = (None, "en", "ja")
VRAM = (None, 8.0, 12.0, 16.0, 24.0, 48.0, 80.0)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    locale = LOCALES[fdp.ConsumeIntInRange(0, len(LOCALES) - 1)]
    vram = VRAM[fdp.ConsumeIntInRange(0, len(VRAM) - 1)]
    pieces = fdp.ConsumeIntInRange(1, 3)
    inputs: list[str | bytes] = []
    for i in range(pieces):
        size = fdp.ConsumeIntInRange(0, 1 << 16) if i < pieces - 1 else 1 << 20
        chunk = fdp.ConsumeBytes(size)
        inputs.append(chunk if i % 2 == 0 else chunk.decode("utf-8", "replace"))
    report = diagnose(inputs, locale=locale, gpu_vram_gib=vram)
    problems = report_problems(report)
    if problems:
        raise AssertionError("\n".join(problems))


def _arguments(argv: list[str]) -> list[str]:
    """libFuzzer's argv with seed directories swapped for a private working corpus."""
    work = Path(os.environ.get("FUZZ_WORKDIR") or Path(tempfile.gettempdir()) / "oomcheck-fuzz")
    corpus = work / "corpus"
    artifacts = work / "artifacts"
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    flags = [a for a in argv[1:] if a.startswith("-")]
    paths = [Path(a) for a in argv[1:] if not a.startswith("-")]
    seeds = [p for p in paths if p.is_dir()]
    replay = [str(p) for p in paths if not p.is_dir()]
    if replay:  # replaying crash files: no corpus needed
        return [argv[0], *flags, *replay]
    for seed in seeds:
        for f in seed.iterdir():
            if f.is_file():
                shutil.copyfile(f, corpus / f"seed-{seed.name}-{f.name}")
    defaults = {
        "-artifact_prefix=": f"{artifacts}/",
        "-timeout=": "20",  # an input that takes this long is a hang worth a regression test
        "-max_len=": "262144",
        "-rss_limit_mb=": "2048",
    }
    for flag, value in defaults.items():
        if not any(a.startswith(flag) for a in flags):
            flags.append(flag + value)
    sys.stderr.write(f"fuzz: working corpus {corpus}, artifacts {artifacts}\n")
    return [argv[0], *flags, str(corpus)]


def main() -> None:
    atheris.Setup(_arguments(sys.argv), test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
