"""The wheel works on its own: built from the project's metadata, installed into a fresh virtualenv,
run from a directory outside the repository (so nothing is imported from the source tree).

The wheels are built and installed by deploy/Dockerfile's own two pip commands, read from the file,
with the image's paths mapped onto a temporary folder; so this also checks the image's recipe where no
Docker engine runs. The first, `pip wheel`, turns oomcheck and every dependency into wheels, resolving
them from the package indexes pip is configured with, as an operator's build would: the declared
dependencies are what is tested. The second installs oomcheck from those files alone (`--no-index`)
into a new, empty virtualenv (no --system-site-packages). The virtualenv gets no pip of its own: the
test runner's pip installs into it with `--python`, which saves the ensurepip step. One build and one
virtualenv serve every test here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.run import NOT_SOURCES
from tests.conftest import EXAMPLES, ROOT
from tests.test_deploy import DOCKERFILE, parse_dockerfile

# One worker runs the whole module under xdist: its build and virtualenv are made once per worker that
# runs any of its tests, and they are the slowest part of the suite.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]

CONFIG = EXAMPLES / "flux_lora_24gb_gc_off.yaml"
LOG = EXAMPLES / "flux_lora_24gb_oom.log"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin: Path
    workdir: Path  # outside the repository
    cache: Path  # XDG_CACHE_HOME of its runs: where the translated templates are kept

    def run(self, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return self._spawn("oomcheck", list(argv), env, timeout=120, check=False)

    def python(self, code: str, *argv: str, env: dict[str, str] | None = None) -> str:
        """The standard output of `code` run by the installed interpreter; a failure raises."""
        return self._spawn("python", ["-c", code, *argv], env, timeout=60, check=True).stdout

    def _spawn(
        self, program: str, args: list[str], env: dict[str, str] | None, *, timeout: int, check: bool
    ) -> subprocess.CompletedProcess[str]:
        """A program of the virtualenv, run outside the repository (with a clean environment by default)."""
        return subprocess.run(
            [str(self.bin / program), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
            cwd=self.workdir,
            env=env if env is not None else _clean_env(XDG_CACHE_HOME=str(self.cache)),
        )


def _clean_env(**extra: str) -> dict[str, str]:
    """The process environment without anything that could point Python, or the bot, at the repo."""
    keep = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"}
    env = {name: value for name, value in os.environ.items() if name in keep}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def _pip(*argv: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def dockerfile_pip_commands() -> tuple[list[str], list[str]]:
    """The pip arguments of the Dockerfile's two pip steps: building the wheels, installing oomcheck."""
    found: list[list[str]] = []
    for instruction in parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8")):
        words = [word for word in shlex.split(instruction.args) if not word.startswith("--mount=")]
        if instruction.keyword == "RUN" and words[:1] == ["pip"]:
            found.append(words[1:])
    build, runtime = found
    assert build[0] == "wheel" and runtime[0] == "install", found
    return build, runtime


def _on_this_machine(args: list[str], *, source: Path, wheels: Path) -> list[str]:
    mapped: list[str] = []
    for arg in args:
        arg = str(source) if arg == "." else arg.replace("/wheels", str(wheels))
        if "*" in arg:
            (match,) = Path(arg).parent.glob(Path(arg).name)
            arg = str(match)
        mapped.append(arg)
    return mapped


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("packaging")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    wheels = base / "wheels"
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    build, runtime = dockerfile_pip_commands()
    # The image's paths mapped onto this tree: WORKDIR /src is the source copy, /wheels a temporary folder.
    # Build isolation stays on: the backend comes from [build-system] requires, as on any other machine.
    _pip("--quiet", *_on_this_machine(build, source=source, wheels=wheels))
    _pip(
        "--python",
        str(venv / "bin" / "python"),
        "--quiet",
        *_on_this_machine(runtime, source=source, wheels=wheels),
    )
    (wheel,) = wheels.glob("oomcheck-*.whl")
    workdir = base / "elsewhere"
    workdir.mkdir()
    yield Installed(wheel=wheel, bin=venv / "bin", workdir=workdir, cache=base / "cache")


def _no_leftovers(text: str) -> None:
    """No traceback, no unformatted `{placeholder}`, no raw catalogue key such as `cli.unknown_rule`."""
    assert "Traceback" not in text
    assert not re.search(r"\{[a-z_]+\}", text), text
    # An unknown catalogue key comes out as the key itself: `<file stem>.<dotted path>`.
    namespaces = "|".join(sorted(path.stem for path in (ROOT / "locales" / "en").glob("*.yaml")))
    key = rf"(?<![\w/.-])(?:{namespaces})\.(?!(?:ya?ml|json|py|txt|log)\b)[a-z_]+(?:\.[a-z_0-9]+)*\b"
    assert not re.search(key, text), text


def test_the_package_is_imported_from_the_virtualenv_not_the_repo(installed: Installed) -> None:
    printed = installed.python("import diagnosis, oomcheck, bot, locales; print(oomcheck.__file__)")
    location = Path(printed.strip()).resolve()
    assert location.is_relative_to(installed.bin.parent.resolve())
    assert not location.is_relative_to(ROOT)


def test_wheel_ships_both_locales_and_type_markers(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    for lang in ("en", "ja"):
        assert any(name.startswith(f"locales/{lang}/") and name.endswith(".yaml") for name in names), lang
    for package in ("diagnosis", "bot", "oomcheck"):
        assert f"{package}/py.typed" in names
    assert not any(name.startswith(("tests/", "deploy/", "examples/")) for name in names)


def test_check_answers_in_english_and_japanese(installed: Installed) -> None:
    outputs = {}
    for lang in ("en", "ja"):
        result = installed.run("check", str(CONFIG), str(LOG), "--lang", lang)
        assert result.returncode == 1, result.stderr  # the example has findings
        assert result.stdout.strip()
        _no_leftovers(result.stdout + result.stderr)
        outputs[lang] = result.stdout
    assert outputs["en"] != outputs["ja"]
    assert re.search(r"[\u3040-\u30ff]", outputs["ja"]), "the Japanese reply holds no kana"


def test_rules_lists_every_rule(installed: Installed) -> None:
    result = installed.run("rules", "--lang", "en")
    assert result.returncode == 0, result.stderr
    _no_leftovers(result.stdout + result.stderr)
    listed = installed.python("from diagnosis.rules import RULE_IDS; print(*RULE_IDS)").split()
    assert listed
    for rule_id in listed:
        assert rule_id in result.stdout


def test_bot_check_config_without_a_token_fails_clearly(installed: Installed) -> None:
    result = installed.run("bot", "--check-config")
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr
    assert "DISCORD_TOKEN" in result.stderr


FAKE_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gexmpl.not-a-real-token-just-its-shape-0123"


def test_bot_check_config_accepts_the_example_environment(installed: Installed) -> None:
    example = (ROOT / "deploy" / ".env.example").read_text(encoding="utf-8")
    env_file = installed.workdir / ".env"
    # A made-up token with a bot token's shape (three base64url parts); --check-config never connects.
    env_file.write_text(example.replace("DISCORD_TOKEN=\n", f"DISCORD_TOKEN={FAKE_TOKEN}\n"))
    try:
        result = installed.run("bot", "--check-config")
    finally:
        env_file.unlink()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert FAKE_TOKEN not in result.stdout + result.stderr


def test_bot_health_follows_the_heartbeat(installed: Installed) -> None:
    heartbeat = installed.workdir / "heartbeat"
    env = _clean_env(OOMCHECK_HEARTBEAT_PATH=str(heartbeat))
    missing = installed.run("bot", "--health", env=env)
    assert missing.returncode != 0
    assert "Traceback" not in missing.stdout + missing.stderr
    assert str(heartbeat) in missing.stderr
    installed.python(
        "import pathlib, sys, bot.heartbeat as h; h.write_heartbeat(pathlib.Path(sys.argv[1]))",
        str(heartbeat),
        env=env,
    )
    fresh = installed.run("bot", "--health", env=env)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr


def test_the_installed_check_translates_its_templates_once(installed: Installed) -> None:
    # Nothing generated ships: the wheel holds the templates and the YAML files. The first reply
    # translates the templates it uses into the user's cache folder (with Jinja2); a later one reads
    # them from there without importing Jinja2, and reads the data with libyaml's loader.
    probe = (
        "import io, sys\n"
        "import yaml\n"
        "read = []\n"
        "real = yaml.load\n"
        "yaml.load = lambda stream, Loader: read.append(Loader.__name__) or real(stream, Loader)\n"
        "from oomcheck.cli import main\n"
        "code = main(['check', sys.argv[1], '--lang', 'ja'], out=io.StringIO(), err=io.StringIO())\n"
        "print(code, 'jinja2' in sys.modules, sorted(set(read)), len(read) > 5)\n"
    )
    shutil.rmtree(installed.cache, ignore_errors=True)
    first = installed.python(probe, str(CONFIG))
    assert first.split() == ["1", "True", "['CSafeLoader']", "True"], first
    made = {p.name.split("-")[0] for p in (installed.cache / "oomcheck" / "templates").glob("*.py")}
    assert {"headline", "diagnosis", "fix"} <= made
    later = installed.python(probe, str(CONFIG))
    assert later.split() == ["1", "False", "['CSafeLoader']", "True"], later
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert "locales/_shared/templates/headline.j2" in names
    assert "locales/ja/reply.yaml" in names
    generated = ("diagnosis/render/_compiled/", "diagnosis/_snapshots/")
    assert not [name for name in names if name.startswith(generated)]
