"""The parsed snapshots of the YAML data files: current, exact, fresh on every call, never stale.

When a data file changes, `python -m diagnosis.precompile` rebuilds its snapshot; until then
`load_data` parses that file (slower, never stale) and the first test here fails.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from diagnosis import datafile
from diagnosis.datafile import load_data, load_data_file, text_key
from diagnosis.precompile import SNAPSHOTS_DIR, data_files, plain, snapshot_name, snapshot_text
from tests.test_jsonout_contract import assert_identical

FILES = data_files()
REBUILD = "out of date: run `python -m diagnosis.precompile`"


def parsed(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


def test_every_data_file_is_covered() -> None:
    names = {p.relative_to(Path(datafile.PACKAGE_ROOT)).as_posix() for p in FILES}
    assert {"diagnosis/data/families.yaml", "locales/en/rules.yaml", "locales/ja/reply.yaml"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: snapshot_name(p))
def test_each_snapshot_is_current(path: Path) -> None:
    module = SNAPSHOTS_DIR / f"{snapshot_name(path)}.py"
    assert module.is_file(), REBUILD
    assert module.read_text(encoding="utf-8") == snapshot_text(path), REBUILD
    assert datafile._index().get(text_key(path.read_text(encoding="utf-8"))) == snapshot_name(path), REBUILD


@pytest.mark.parametrize("path", FILES, ids=lambda p: snapshot_name(p))
def test_a_snapshot_is_exactly_what_yaml_gives(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert datafile._snapshot(text) is not None  # the fast path is the one being compared
    assert_identical(load_data(text), parsed(text))
    assert_identical(load_data_file(path), parsed(text))


def test_every_call_gets_its_own_objects() -> None:
    path = Path(datafile.DATA_DIR) / "families.yaml"
    first = load_data_file(path)
    first["families"].clear()
    first["defaults"]["label"] = "changed"
    assert_identical(load_data_file(path), parsed(path.read_text(encoding="utf-8")))


def test_an_edited_text_is_parsed_not_served_from_its_old_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    path = Path(datafile.DATA_DIR) / "families.yaml"
    edited = path.read_text(encoding="utf-8") + "\nextra_key: 1\n"
    assert load_data(edited)["extra_key"] == 1
    # even when the lookup key points at the old snapshot, the whole text must match
    monkeypatch.setattr(datafile, "_index", lambda: {text_key(edited): snapshot_name(path)})
    assert load_data(edited)["extra_key"] == 1


def test_unknown_texts_still_load() -> None:
    assert load_data("a: [1, 2.5, true, null]\n") == {"a": [1, 2.5, True, None]}
    assert load_data("") is None


def test_only_plain_data_is_snapshotted() -> None:
    assert plain({"a": [1, 2.5, "x", None, True], 3: {"b": False}})
    assert not plain({"when": datetime.date(2024, 1, 1)})
    assert not plain([float("nan")])
    assert not plain([float("inf")])
    assert not plain((1, 2))
