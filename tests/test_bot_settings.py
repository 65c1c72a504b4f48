from __future__ import annotations

import io
from pathlib import Path

import discord
import pytest
from pydantic import ValidationError

from bot.heartbeat import heartbeat_age, write_heartbeat
from bot.settings import BotSettings
from oomcheck.botcmd import check_lines, health_line, invalid_lines, run_bot

ENV_NAMES = (
    "DISCORD_TOKEN",
    "OOMCHECK_DISCORD_TOKEN",
    "OOMCHECK_GUILD_IDS",
    "OOMCHECK_HELP_CHANNEL_IDS",
    "OOMCHECK_DEFAULT_LANGUAGE",
    "OOMCHECK_HISTORY_DEPTH",
    "OOMCHECK_DATABASE_PATH",
    "OOMCHECK_HEARTBEAT_PATH",
    "OOMCHECK_LANG",
    "LANG",
    "LC_ALL",
    "LC_MESSAGES",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env from the working directory


def say(key: str, lang: str, **params: object) -> str:
    return f"{lang}:{key}:" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def test_environment_is_read_with_prefix_and_token_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "secret-token")
    monkeypatch.setenv("OOMCHECK_GUILD_IDS", "111, 222 333")
    monkeypatch.setenv("OOMCHECK_HELP_CHANNEL_IDS", "[444]")
    monkeypatch.setenv("OOMCHECK_HISTORY_DEPTH", "10")
    settings = BotSettings()
    assert settings.token is not None and settings.token.get_secret_value() == "secret-token"
    assert "secret-token" not in repr(settings)
    assert settings.guild_ids == [111, 222, 333]
    assert settings.help_channel_ids == [444]
    assert settings.history_depth == 10
    assert (settings.edit_window_minutes, settings.retention_days) == (15.0, 14.0)


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=from-file\nOOMCHECK_DEFAULT_LANGUAGE=en\n", encoding="utf-8"
    )
    settings = BotSettings()
    assert settings.token is not None and settings.token.get_secret_value() == "from-file"
    assert settings.default_language == "en"


def test_defaults_without_anything() -> None:
    settings = BotSettings()
    assert settings.token is None
    assert settings.history_depth == 25
    assert settings.auto_mode is True


@pytest.mark.parametrize("blank", ["", "   "])
def test_blank_token_counts_as_missing(monkeypatch: pytest.MonkeyPatch, blank: str) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", blank)
    assert BotSettings().token is None


def test_invalid_values_are_named_by_their_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OOMCHECK_GUILD_IDS", "12, abc")
    monkeypatch.setenv("OOMCHECK_HISTORY_DEPTH", "0")
    with pytest.raises(ValidationError) as info:
        BotSettings()
    lines = invalid_lines(info.value, "en", say)
    assert lines[0] == "en:check_config.invalid_header:"
    text = "\n".join(lines)
    assert "name=OOMCHECK_GUILD_IDS" in text
    assert "name=OOMCHECK_HISTORY_DEPTH" in text
    assert "abc" not in text.split("problem=")[0]  # the value itself is not echoed as a name


BAD_VALUES = {
    "OOMCHECK_GUILD_IDS": "12, abc",
    "OOMCHECK_HISTORY_DEPTH": "0",
    "OOMCHECK_ENGINE_WORKERS": "99",
    "OOMCHECK_DEFAULT_LANGUAGE": "fr",
    "OOMCHECK_AUTO_MODE": "maybe",
    "OOMCHECK_USER_COOLDOWN_SECONDS": "soon",
    "OOMCHECK_RETENTION_DAYS": "0",
}


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_invalid_values_are_explained_in_the_chosen_language(
    monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    for name, value in BAD_VALUES.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as info:
        BotSettings()
    lines = invalid_lines(info.value, lang)
    assert len(lines) == 1 + len(BAD_VALUES)
    text = "\n".join(lines)
    assert "Input should" not in text  # pydantic's own English
    assert "check_config.problem" not in text  # every key found
    by_name = {line.split(": ", 1)[0].strip(): line.split(": ", 1)[1] for line in lines[1:]}
    assert by_name.keys() == {name for name in BAD_VALUES}
    if lang == "ja":
        assert by_name["OOMCHECK_HISTORY_DEPTH"] == "1 以上にしてください。"
        assert by_name["OOMCHECK_ENGINE_WORKERS"] == "32 以下にしてください。"
        assert by_name["OOMCHECK_DEFAULT_LANGUAGE"] == "en、ja のいずれかを指定してください。"
    else:
        assert by_name["OOMCHECK_HISTORY_DEPTH"] == "must be 1 or more."
        assert by_name["OOMCHECK_GUILD_IDS"] == "must be a whole number."
        assert by_name["OOMCHECK_DEFAULT_LANGUAGE"] == "must be one of en, ja."


def test_an_unmapped_error_type_falls_back_to_a_generic_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OOMCHECK_HISTORY_DEPTH", "0")
    with pytest.raises(ValidationError) as info:
        BotSettings()
    errors = info.value.errors(include_url=False, include_input=False)
    renamed = ValidationError.from_exception_data(
        "BotSettings",
        [{"type": "string_too_long", "loc": errors[0]["loc"], "input": "x", "ctx": {"max_length": 3}}],
    )
    lines = invalid_lines(renamed, "ja")
    assert lines[1] == "  OOMCHECK_HISTORY_DEPTH: 正しい値ではありません（string_too_long）。"


# The shape of a bot token (three base64url parts); not a real one.
WELL_FORMED_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDe.abcdefghijklmnopqrstuvwxyz0123456789AB"


def test_check_lines_missing_token(tmp_path: Path) -> None:
    settings = BotSettings(database_path=tmp_path / "db.sqlite3")
    lines, ok = check_lines(settings, say)
    assert not ok
    assert lines[0] == "ja:check_config.missing_token:"
    assert not any("check_config.ok" in line for line in lines)


def test_check_lines_ok_reports_what_is_configured(tmp_path: Path) -> None:
    settings = BotSettings(
        DISCORD_TOKEN=WELL_FORMED_TOKEN,
        guild_ids=[1, 2],
        help_channel_ids=[3],
        default_language="en",
        database_path=tmp_path / "new" / "db.sqlite3",
    )
    lines, ok = check_lines(settings, say)
    assert ok
    assert "en:check_config.guilds:count=2" in lines
    assert "en:check_config.channels:forums=0,help=1" in lines
    assert lines[-1] == "en:check_config.ok:"


def test_check_lines_warns_when_auto_mode_has_no_channel(tmp_path: Path) -> None:
    settings = BotSettings(DISCORD_TOKEN=WELL_FORMED_TOKEN, database_path=tmp_path / "db.sqlite3")
    lines, ok = check_lines(settings, say)
    assert ok
    assert "ja:check_config.guilds_global:" in lines
    assert "ja:check_config.no_channels:" in lines


def test_health_line(tmp_path: Path) -> None:
    beat = tmp_path / "beat"
    settings = BotSettings(heartbeat_path=beat, heartbeat_interval_seconds=10, default_language="en")
    line, healthy = health_line(settings, say, now=1000.0)
    assert not healthy and line.startswith("en:health.missing:")
    write_heartbeat(beat, now=990.0)
    assert heartbeat_age(beat, now=1000.0) == pytest.approx(10.0)
    assert health_line(settings, say, now=1000.0) == ("en:health.ok:age=10", True)
    assert health_line(settings, say, now=1031.0)[1] is False


def test_corrupt_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    beat = tmp_path / "beat"
    beat.write_text("not a number", encoding="ascii")
    assert heartbeat_age(beat) is None


def test_run_bot_check_config_without_token_exits_2_with_a_sentence() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_bot(check_config=True, out=out, err=err) == 2
    assert "DISCORD_TOKEN" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_run_bot_without_token_does_not_try_to_connect() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_bot(check_config=False, out=out, err=err) == 2
    assert "DISCORD_TOKEN" in err.getvalue()


def test_run_bot_check_config_ok_never_prints_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", WELL_FORMED_TOKEN)
    monkeypatch.setenv("OOMCHECK_DEFAULT_LANGUAGE", "en")
    out, err = io.StringIO(), io.StringIO()
    assert run_bot(check_config=True, out=out, err=err) == 0
    assert WELL_FORMED_TOKEN not in out.getvalue() + err.getvalue()
    assert out.getvalue().strip()


def test_run_bot_invalid_setting_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OOMCHECK_HISTORY_DEPTH", "many")
    out, err = io.StringIO(), io.StringIO()
    assert run_bot(check_config=True, out=out, err=err) == 2
    assert "OOMCHECK_HISTORY_DEPTH" in err.getvalue()


def test_run_bot_health_exit_codes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    beat = tmp_path / "beat"
    monkeypatch.setenv("OOMCHECK_HEARTBEAT_PATH", str(beat))
    out, err = io.StringIO(), io.StringIO()
    assert run_bot(check_config=False, out=out, err=err, health=True) == 1
    write_heartbeat(beat)
    assert run_bot(check_config=False, out=out, err=err, health=True) == 0


class RefusedBot:
    def __init__(self, error: Exception) -> None:
        self.error = error
        self.closed = False

    async def start(self, token: str) -> None:
        raise self.error

    def is_closed(self) -> bool:
        return self.closed

    async def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    ("error", "needle"),
    [
        (discord.LoginFailure("bad"), "DISCORD_TOKEN"),
        (discord.PrivilegedIntentsRequired(None), "Message Content Intent"),
    ],
)
def test_refusals_by_discord_are_sentences_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, error: Exception, needle: str
) -> None:
    import asyncio

    from oomcheck import botcmd

    bot = RefusedBot(error)
    monkeypatch.setattr("bot.app.create_bot", lambda settings: bot)
    err = io.StringIO()
    settings = BotSettings(DISCORD_TOKEN=WELL_FORMED_TOKEN, default_language="en")
    assert asyncio.run(botcmd._serve(settings, "t", err)) == 2
    assert needle in err.getvalue()
    assert bot.closed


@pytest.mark.parametrize(
    ("token", "key"),
    [
        ("abc", "check_config.malformed_token"),
        ("MTIz.abc", "check_config.malformed_token"),
        (f"Bot {WELL_FORMED_TOKEN}", "check_config.token_with_prefix"),
        (WELL_FORMED_TOKEN, None),
    ],
)
def test_check_config_reads_the_shape_of_the_token(tmp_path: Path, token: str, key: str | None) -> None:
    settings = BotSettings(DISCORD_TOKEN=token, database_path=tmp_path / "db.sqlite3")
    lines, ok = check_lines(settings, say)
    assert ok is (key is None)
    if key is not None:
        assert lines[0] == f"ja:{key}:" and "ja:check_config.ok:" not in lines


def test_run_bot_without_token_says_what_stops_it_and_where_to_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OOMCHECK_DEFAULT_LANGUAGE", "en")
    out, err = io.StringIO(), io.StringIO()
    assert run_bot(check_config=False, out=out, err=err) == 2
    text = err.getvalue()
    # no summary that reads as if the bot were starting
    assert "Automatic replies" not in text and "Database:" not in text and "server IDs" not in text
    assert "deploy/.env.example" in text and "docs/operators.md" in text
    assert len(text.strip().splitlines()) == 2


def test_the_bot_without_a_network_says_so_in_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    import aiohttp

    from oomcheck import botcmd

    monkeypatch.setenv("DISCORD_TOKEN", WELL_FORMED_TOKEN)
    monkeypatch.setenv("OOMCHECK_DEFAULT_LANGUAGE", "en")
    monkeypatch.setattr("bot.logs.setup", lambda *a, **k: None)

    async def no_dns(self: object, token: str, **kwargs: object) -> None:
        raise aiohttp.ClientConnectorDNSError(
            aiohttp.client_reqrep.ConnectionKey("discord.com", 443, True, True, None, None, None),
            OSError(-3, "Temporary failure in name resolution"),
        )

    monkeypatch.setattr("discord.Client.start", no_dns)
    out, err = io.StringIO(), io.StringIO()
    assert botcmd.run_bot(check_config=False, out=out, err=err) == 2
    assert err.getvalue().strip() == botcmd._say("run.unreachable", "en")
