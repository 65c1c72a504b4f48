"""Issue #19: when a reply tells the user to install the requirements or to set an environment
variable, it gives the exact command, in every language: `pip install -r requirements.txt` in the AI
Toolkit folder with its venv active, and the line for PowerShell, Command Prompt and Linux."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

LOCALES = Path(__file__).resolve().parent.parent / "locales"
LANGS = ("en", "ja")
_REQUIREMENTS = re.compile(r"requirements|依存パッケージ", re.I)
# An instruction to set a variable: a shell line for it, or "start the trainer with `NAME=value`". A
# sentence that only says who sets it ("The UI sets `NAME=value` itself") is none.
_SETS_VARIABLE = re.compile(
    r"(?:\$env:|\bset |\bexport |start the trainer with `|環境変数 `|`(?=[A-Z][A-Z0-9_]{3,}=[^`]*` を付けて))"
    r"([A-Z][A-Z0-9_]{3,})=",
    re.I,
)


def _strings(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        yield where, node
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _strings(item, f"{where}[{i}]")
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{where}.{key}" if where else str(key))


def _catalogue(lang: str) -> list[tuple[str, str]]:
    return list(_strings(yaml.safe_load((LOCALES / lang / "rules.yaml").read_text(encoding="utf-8"))))


@pytest.mark.parametrize("lang", LANGS)
def test_installing_the_requirements_gives_the_command(lang: str) -> None:
    said = [(where, text) for where, text in _catalogue(lang) if _REQUIREMENTS.search(text)]
    assert said, "no sentence about the requirements: the test reads nothing"
    for where, text in said:
        assert "pip install -r requirements.txt" in text and "venv" in text, (where, text)


@pytest.mark.parametrize("lang", LANGS)
def test_setting_an_environment_variable_gives_the_line_for_each_shell(lang: str) -> None:
    said = [
        (where, text, m.group(1))
        for where, text in _catalogue(lang)
        if ".fix" in where
        for m in [_SETS_VARIABLE.search(text)]
        if m is not None
    ]
    assert said, "no fix sets a variable: the test reads nothing"
    for where, text, name in said:
        assert f"$env:{name}=" in text, (where, "PowerShell", text)
        assert f"set {name}=" in text, (where, "Command Prompt", text)
        assert f"export {name}=" in text, (where, "Linux", text)
