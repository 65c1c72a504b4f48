"""`oomcheck bot`: run the Discord bot, validate its settings, or report its health."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, get_args

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from bot.settings import BotSettings

EXIT_OK = 0
EXIT_UNHEALTHY = 1
EXIT_USAGE = 2
# The gateway's close code for a token that is no longer valid.
TOKEN_REJECTED = 4004

Say = Callable[..., str]


def _say(key: str, lang: str, **params: object) -> str:
    from diagnosis.render import message

    return str(message(f"bot.{key}", lang, **params))


def console_language(chosen: str | None, fallback: str = "ja") -> str:
    """The language of what this command prints (not of the bot's replies), chosen as for every other
    oomcheck command, with the reply language the operator set (`chosen`) before the locale, and the
    bot's default reply language last."""
    from oomcheck.cli import env_language

    return env_language(chosen, fallback)


def _settings_language(settings: BotSettings) -> str:
    # A default_language the operator set (in the environment or .env) counts as their choice; the
    # built-in default does not.
    chosen = settings.default_language if "default_language" in settings.model_fields_set else None
    return console_language(chosen, settings.default_language)


def _env_name(field: str) -> str:
    return "DISCORD_TOKEN" if field == "token" else f"OOMCHECK_{field.upper()}"


# Pydantic's own messages are English only; each error type the settings can raise has a text in
# both languages, filled from the error's `ctx` (e.g. `ge` for greater_than_equal).
PROBLEM_KEYS = {
    kind: f"check_config.problem.{kind}"
    for kind in (
        "int_parsing",
        "float_parsing",
        "bool_parsing",
        "greater_than",
        "greater_than_equal",
        "less_than_equal",
        "literal_error",
        "missing",
        "value_error",
        "path_type",
        "list_type",
    )
}
PROBLEM_FALLBACK = "check_config.problem.other"


def _choices(field: str, lang: str, say: Say) -> str | None:
    """The values a Literal setting accepts, listed in the user's language (pydantic's `expected` is
    English: "'ja' or 'en'")."""
    info = BotSettings.model_fields.get(field)
    values = get_args(info.annotation) if info is not None else ()
    return say("check_config.choices_separator", lang).join(map(str, values)) if values else None


def _problem_text(problem: ErrorDetails, lang: str, say: Say) -> str:
    kind = problem["type"]
    params = {name: str(value) for name, value in problem.get("ctx", {}).items()}
    if kind == "literal_error" and problem["loc"]:
        params["expected"] = _choices(str(problem["loc"][0]), lang, say) or params.get("expected", "")
    key = PROBLEM_KEYS.get(kind)
    if key is None:
        return say(PROBLEM_FALLBACK, lang, type=kind)
    return say(key, lang, **params)


def invalid_lines(error: ValidationError, lang: str, say: Say = _say) -> list[str]:
    lines = [say("check_config.invalid_header", lang)]
    for problem in error.errors(include_url=False, include_input=False):
        field = str(problem["loc"][0]) if problem["loc"] else "?"
        text = _problem_text(problem, lang, say)
        lines.append("  " + say("check_config.invalid", lang, name=_env_name(field), problem=text))
    return lines


def _unwritable_folder(path: Path) -> Path | None:
    """The nearest existing folder on the way to the database when the bot may not write in it."""
    probe = path.resolve().parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return None if os.access(probe, os.W_OK) else probe


# A bot token as the Developer Portal shows it: three base64url parts joined by dots (the bot's id,
# a timestamp, an HMAC). Only the shape is checked here; Discord alone can say whether it is valid.
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{17,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}")


TOKEN_PROBLEM_KEYS = {
    "missing": "check_config.missing_token",
    "prefix": "check_config.token_with_prefix",
    "malformed": "check_config.malformed_token",
}


def token_problem(token: str | None) -> str | None:
    """The check_config key that says what is wrong with the token, or None when it looks right."""
    if token is None:
        return TOKEN_PROBLEM_KEYS["missing"]
    if token.lower().startswith("bot "):
        return TOKEN_PROBLEM_KEYS["prefix"]
    if not _TOKEN_SHAPE.fullmatch(token):
        return TOKEN_PROBLEM_KEYS["malformed"]
    return None


def problem_lines(settings: BotSettings, say: Say = _say) -> list[str]:
    """What stops the bot from starting with these settings (empty when nothing does)."""
    lang = _settings_language(settings)
    lines: list[str] = []
    problem = token_problem(settings.token.get_secret_value() if settings.token else None)
    if problem is not None:
        lines.append(say(problem, lang))
    blocked = _unwritable_folder(settings.database_path)
    if blocked is not None:
        lines.append(
            say(
                "check_config.database_unwritable",
                lang,
                path=str(settings.database_path.parent),
                blocked=str(blocked),
            )
        )
    return lines


def check_lines(settings: BotSettings, say: Say = _say) -> tuple[list[str], bool]:
    """What `--check-config` prints, and whether the bot can start with these settings."""
    lang = _settings_language(settings)
    lines = problem_lines(settings, say)
    ok = not lines
    if settings.guild_ids:
        lines.append(say("check_config.guilds", lang, count=len(settings.guild_ids)))
    else:
        lines.append(say("check_config.guilds_global", lang))
    lines.append(
        say(
            "check_config.channels",
            lang,
            help=len(settings.help_channel_ids),
            forums=len(settings.forum_channel_ids),
        )
    )
    if settings.auto_mode and not (settings.help_channel_ids or settings.forum_channel_ids):
        lines.append(say("check_config.no_channels", lang))
    lines.append(say("check_config.database", lang, path=str(settings.database_path)))
    if ok:
        lines.append(say("check_config.ok", lang))
    return lines, ok


def health_line(settings: BotSettings, say: Say = _say, now: float | None = None) -> tuple[str, bool]:
    from bot.heartbeat import heartbeat_age

    lang = _settings_language(settings)
    age = heartbeat_age(settings.heartbeat_path, now)
    if age is None:
        return say("health.missing", lang, path=str(settings.heartbeat_path)), False
    healthy = age <= settings.heartbeat_max_age()
    return say("health.ok" if healthy else "health.stale", lang, age=f"{age:.0f}"), healthy


async def _serve(settings: BotSettings, token: str, err: TextIO) -> int:
    import aiohttp
    import discord

    from bot.app import create_bot

    bot = create_bot(settings)
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def stop() -> None:
        # Held until done: the loop keeps only a weak reference to a task.
        task = asyncio.ensure_future(bot.shutdown())
        stopping.add(task)
        task.add_done_callback(stopping.discard)

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    try:
        await bot.start(token)
    except (OSError, aiohttp.ClientError, discord.GatewayNotFound):
        # No network or no DNS: a sentence, not aiohttp's traceback.
        err.write(_say("run.unreachable", _settings_language(settings)) + "\n")
        return EXIT_USAGE
    except discord.LoginFailure:
        err.write(_say("run.login_failed", _settings_language(settings)) + "\n")
        return EXIT_USAGE
    except discord.ConnectionClosed as exc:
        if exc.code != TOKEN_REJECTED:
            raise
        # The token was reset while the bot ran: no retry can help, the operator must act.
        err.write(_say("run.token_rejected", _settings_language(settings)) + "\n")
        return EXIT_USAGE
    except discord.PrivilegedIntentsRequired:
        err.write(_say("run.intents_required", _settings_language(settings)) + "\n")
        return EXIT_USAGE
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        if not bot.is_closed():
            await bot.close()
    return EXIT_OK


def run_bot(*, check_config: bool, out: TextIO, err: TextIO, health: bool = False) -> int:
    try:
        settings = BotSettings()
    except ValidationError as exc:
        # The settings did not load: the operator's reply language is read from the environment.
        chosen = os.environ.get("OOMCHECK_DEFAULT_LANGUAGE") or None
        err.write("\n".join(invalid_lines(exc, console_language(chosen))) + "\n")
        return EXIT_USAGE
    if health:
        line, healthy = health_line(settings)
        (out if healthy else err).write(line + "\n")
        return EXIT_OK if healthy else EXIT_UNHEALTHY
    if check_config:
        lines, ok = check_lines(settings)
        (out if ok else err).write("\n".join(lines) + "\n")
        if not ok:
            err.write(_say("run.see_docs", _settings_language(settings)) + "\n")
        return EXIT_OK if ok else EXIT_USAGE
    # Only what stops the bot: the summary lines would read as if it were starting.
    problems = problem_lines(settings)
    if problems or settings.token is None:
        err.write("\n".join(problems) + "\n")
        err.write(_say("run.see_docs", _settings_language(settings)) + "\n")
        return EXIT_USAGE
    from bot.logs import setup

    token = settings.token.get_secret_value()
    setup(settings.log_level, token)
    return asyncio.run(_serve(settings, token, err))
