"""What `oomcheck check` imports: each output format loads only what it needs (issue #8, start-up).

A fresh interpreter runs the command and prints the modules it ended up with; a library pulled in
by an import at the top of a module, on a path that does not use it, shows up here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT

CONFIG = EXAMPLES / "flux_lora_24gb_gc_off.yaml"
LOG = EXAMPLES / "flux_lora_24gb_oom.log"

_PROBE = """
import contextlib, io, json, sys
from oomcheck.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:], out=io.StringIO(), err=io.StringIO())
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def last_line(probe: str, *argv: str, flags: tuple[str, ...] = (), env: dict[str, str] | None = None) -> str:
    """The last line a fresh interpreter prints running `probe` with `argv`; a failure raises."""
    done = subprocess.run(
        [sys.executable, *flags, "-c", probe, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    return done.stdout.strip().splitlines()[-1]


def modules_after(*argv: str, env: dict[str, str] | None = None) -> set[str]:
    result = json.loads(last_line(_PROBE, *argv, env=env))
    assert result["code"] in (0, 1)
    return set(result["modules"])


def packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.fixture(scope="module", autouse=True)
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every probe here runs as a user's runs after the first: on a cache holding the translations of
    the templates (the first run makes them, with Jinja2). An empty folder of its own, so the tests
    neither depend on the user's cache nor write to it."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        for argv in ([str(CONFIG), str(LOG)], [str(CONFIG)], [str(LOG)]):
            modules_after("check", *argv)
        yield folder


@pytest.mark.parametrize("path", [CONFIG, LOG], ids=["config", "log"])
def test_json_output_needs_neither_pydantic_nor_the_templates_nor_the_catalogues(path: object) -> None:
    loaded = modules_after("check", str(path), "--format", "json")
    assert "diagnosis.engine" in loaded  # the probe did run the engine
    assert {"pydantic", "pydantic_core", "jinja2", "markupsafe", "bot", "discord"}.isdisjoint(
        packages(loaded)
    )
    assert not any(name.startswith("diagnosis.render") for name in loaded)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
@pytest.mark.parametrize("path", [CONFIG, LOG], ids=["config", "log"])
def test_terminal_output_uses_the_cached_translations_not_jinja2(
    fmt: str, path: object, tmp_path: Path
) -> None:
    # The first run on an empty cache translates the templates it renders (with Jinja2's parser);
    # every later run reads them from the cache.
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    first = modules_after("check", str(path), "--format", fmt, env=env)
    assert "jinja2" in packages(first)
    assert {p.name.split("-")[0] for p in (tmp_path / "oomcheck" / "templates").glob("*.py")} >= {
        "headline",
        "diagnosis",
    }
    loaded = modules_after("check", str(path), "--format", fmt, env=env)
    assert "diagnosis.render.templating" in loaded  # the probe did render a reply
    unneeded = {"jinja2", "markupsafe", "pydantic", "pydantic_core", "bot", "discord", "aiosqlite"}
    assert unneeded.isdisjoint(packages(loaded))


_FREEZE_PROBE = """
import contextlib, gc, io, sys
from oomcheck.cli import main
as_program = sys.argv[1] == "program"
argv = sys.argv[2:]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    if as_program:
        sys.argv = ["oomcheck", *argv]
        main()
    else:
        main(argv, out=io.StringIO(), err=io.StringIO())
print(gc.get_freeze_count())
"""


def frozen_after(mode: str, *argv: str) -> int:
    return int(last_line(_FREEZE_PROBE, mode, *argv))


def test_only_the_program_skips_the_exit_collections() -> None:
    # The program's last act spares the interpreter's exit a sweep of every object; a caller of
    # main() with arguments (tests, other code) keeps its garbage collector as it was.
    assert frozen_after("program", "check", str(CONFIG)) > 1000
    assert frozen_after("program", "explain", "gc_off") > 1000
    assert frozen_after("call", "check", str(CONFIG)) == 0


def test_a_config_alone_does_not_load_the_log_reader() -> None:
    loaded = modules_after("check", str(CONFIG))
    assert "diagnosis.engine" in loaded
    assert not {"diagnosis.logreader.reader", "diagnosis.logreader.oom"} & loaded
    assert "diagnosis.logreader.reader" in modules_after("check", str(LOG))


def test_checking_a_config_builds_no_help_machinery() -> None:
    # argparse imports shutil (and bz2, lzma) to size a help text; a run that prints no help must not.
    loaded = modules_after("check", str(CONFIG))
    assert "diagnosis.engine" in loaded
    assert "shutil" not in loaded


_LOAD_PROBE = """
import gc, json, sys
from oomcheck.program import load_cli
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
main = load_cli()
print(json.dumps({"during_imports": len(collections), "enabled": gc.isenabled(),
                  "frozen": gc.get_freeze_count(), "engine": "diagnosis.engine" in sys.modules}))
"""


def test_the_program_imports_without_collections_and_collects_afterwards() -> None:
    state = json.loads(last_line(_LOAD_PROBE))
    assert state["engine"]  # the probe did import the engine
    assert state["during_imports"] == 0
    assert state["enabled"]
    assert state["frozen"] > 1000  # what the imports built is out of the collector's way


def test_the_console_script_and_python_m_run_the_program() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["oomcheck"] == "oomcheck.program:run"
    assert "from oomcheck.program import run" in (ROOT / "oomcheck" / "__main__.py").read_text(
        encoding="utf-8"
    )


_NO_SITE_PROBE = """
import contextlib, io, json, sys, sysconfig
sys.path[:0] = [sys.argv[1], sysconfig.get_paths()["purelib"]]
from oomcheck.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[2:], out=io.StringIO(), err=io.StringIO())
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_checking_a_config_does_not_import_pathlib(fmt: str) -> None:
    # pathlib brings urllib.parse and ipaddress: about 5 ms of a run from a regular install. The
    # development virtualenv's editable-install hook imports it at every start, so the probe runs
    # without `site` and finds the packages by path.
    argv = (str(ROOT), "check", str(CONFIG), "--format", fmt)
    result = json.loads(last_line(_NO_SITE_PROBE, *argv, flags=("-S",)))
    assert result["code"] == 1
    assert "diagnosis.engine" in result["modules"]
    assert "pathlib" not in result["modules"]


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("path", [CONFIG, LOG], ids=["config", "log"])
def test_checking_imports_neither_dataclasses_nor_inspect(path: object, fmt: str) -> None:
    # Importing dataclasses (it brings inspect, ast, dis and tokenize) and generating each class's
    # methods took about 13 ms of every run: the engine's records come from diagnosis/record.py, and
    # the rules are found without pkgutil.iter_modules, which imports inspect too.
    argv = (str(ROOT), "check", str(path), "--format", fmt)
    result = json.loads(last_line(_NO_SITE_PROBE, *argv, flags=("-S",)))
    assert result["code"] == 1
    assert "diagnosis.engine" in result["modules"]
    assert {"dataclasses", "inspect"}.isdisjoint(result["modules"])
