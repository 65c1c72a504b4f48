"""The languages are the catalogue folders in locales/ with their line in `locales.SCRIPTS`: a third
language is its folder of catalogues plus that one line, and the engine and the CLI offer it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from locales import DEFAULT_LANGUAGE, LANGUAGES, LOCALES_DIR, SCRIPTS, known_language
from tests.conftest import EXAMPLES, ROOT


def _catalogue_folders() -> set[str]:
    return {
        name
        for name in os.listdir(LOCALES_DIR)
        if os.path.isfile(os.path.join(LOCALES_DIR, name, "reply.yaml"))
    }


def test_every_catalogue_folder_is_a_language_and_the_reverse() -> None:
    # A folder without its line would be silently left out; a line without its folder offers nothing.
    assert set(LANGUAGES) == _catalogue_folders() == set(SCRIPTS)
    assert LANGUAGES[0] == DEFAULT_LANGUAGE


def test_known_language_reads_tags_and_locales() -> None:
    assert [known_language(v) for v in ("ja", "ja-JP", "ja_JP.UTF-8", "EN_us", "C.UTF-8", "", None)] == [
        "ja",
        "ja",
        "ja",
        "en",
        None,
        None,
        None,
    ]


def test_a_third_language_is_its_catalogues_plus_one_line(tmp_path: Path) -> None:
    shutil.copytree(LOCALES_DIR, tmp_path / "locales", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(tmp_path / "locales" / "en", tmp_path / "locales" / "xx")
    reply = tmp_path / "locales" / "xx" / "reply.yaml"
    text = reply.read_text(encoding="utf-8")
    marked = text.replace('training_step_n: " at step', 'training_step_n: " at XX step')
    assert marked != text
    reply.write_text(marked, encoding="utf-8")
    init = tmp_path / "locales" / "__init__.py"
    source = init.read_text(encoding="utf-8")
    init.write_text(source.replace('    "en": "",\n', '    "en": "",\n    "xx": "",\n'), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "OOMCHECK_LANG": "en"}
    example = [str(EXAMPLES / "flux_lora_24gb_gc_off.yaml"), str(EXAMPLES / "flux_lora_24gb_oom.log")]
    run = subprocess.run(
        [sys.executable, "-m", "oomcheck", "check", "--lang", "xx", *example],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert "at XX step 2 of training" in run.stdout.splitlines()[0], run.stdout


def test_the_bots_language_choices_and_translator_follow_the_registry() -> None:
    import discord

    from bot.commands import OomCommands
    from bot.translator import CatalogueTranslator

    check = OomCommands.oom_check
    config = OomCommands.oom_config
    assert [c.value for c in check._params["lang"].choices] == ["auto", *LANGUAGES]
    assert [c.value for c in config._params["language"].choices] == ["default", *LANGUAGES]
    # Discord's locale tag names the catalogue language; English is the commands' own default text.
    translator = CatalogueTranslator(lambda key, lang: f"{lang}:{key}")
    string = discord.app_commands.locale_str("x", key="bot.k")
    import asyncio

    ja = asyncio.run(translator.translate(string, discord.Locale.japanese, None))  # type: ignore[arg-type]
    en = asyncio.run(translator.translate(string, discord.Locale.american_english, None))  # type: ignore[arg-type]
    assert (ja, en) == ("ja:bot.k", None)
