"""`oomcheck bot --check-config` names a database folder the bot may not write in, in the chosen language."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.settings import BotSettings
from oomcheck import botcmd
from tests.test_bot_settings import WELL_FORMED_TOKEN


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "The database folder {path} cannot be written: {blocked} is not writable."),
        ("ja", "データベースのフォルダー {path} に書き込めません。{blocked} に書き込む権限がありません。"),
    ],
)
def test_an_unwritable_database_folder_is_named_in_the_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, expected: str
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", WELL_FORMED_TOKEN)
    locked = tmp_path / "locked"
    locked.mkdir()
    database = locked / "not" / "yet" / "db.sqlite3"
    # the suite may run as root, which os.access lets write anywhere
    monkeypatch.setattr(botcmd.os, "access", lambda p, mode: Path(p) != locked.resolve())
    settings = BotSettings(database_path=database, default_language=lang)
    lines, ok = botcmd.check_lines(settings)
    assert not ok
    assert expected.format(path=database.parent, blocked=locked.resolve()) in lines


def test_a_writable_database_folder_is_not_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", WELL_FORMED_TOKEN)
    assert os.access(tmp_path, os.W_OK)
    settings = BotSettings(database_path=tmp_path / "new" / "db.sqlite3", default_language="en")
    lines, ok = botcmd.check_lines(settings)
    assert ok
    assert not any("not writable" in line for line in lines)


_LANGUAGE_VARS = ("OOMCHECK_LANG", "OOMCHECK_DEFAULT_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "ja"),  # nothing said: the bot's default reply language
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LC_ALL": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, "ja"),
        ({"OOMCHECK_DEFAULT_LANGUAGE": "en", "LANG": "ja_JP.UTF-8"}, "en"),  # the operator's choice
        ({"OOMCHECK_DEFAULT_LANGUAGE": "ja", "OOMCHECK_LANG": "en"}, "en"),  # as for every oomcheck command
    ],
)
def test_what_the_bot_command_prints_follows_the_operators_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    for name in _LANGUAGE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env from the working directory
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = BotSettings(database_path=tmp_path / "db.sqlite3")
    lines, ok = botcmd.check_lines(settings)
    missing_token = {
        "en": "DISCORD_TOKEN is not set",
        "ja": "DISCORD_TOKEN が設定されていません",
    }[expected]
    assert not ok and any(missing_token in line for line in lines)
    health, _ = botcmd.health_line(settings)
    assert health == botcmd._say("health.missing", expected, path=str(settings.heartbeat_path))
