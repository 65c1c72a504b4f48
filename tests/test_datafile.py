"""The engine's own YAML data files, read by libyaml's loader at every start.

Nothing parsed ships with the package any more: the C loader reads the files on each run, so it must
be the loader in use, and it must give exactly what PyYAML's reference loader gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnosis import datafile
from diagnosis.datafile import load_data_file
from tests.test_jsonout_contract import assert_identical

ROOT = Path(datafile.PACKAGE_ROOT)
FILES = sorted(Path(datafile.DATA_DIR).glob("*.yaml")) + sorted((ROOT / "locales").glob("*/*.yaml"))


def test_every_data_file_is_covered() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert {"diagnosis/data/families.yaml", "locales/en/rules.yaml", "locales/ja/reply.yaml"} <= names


def test_the_fast_loader_is_the_one_in_use() -> None:
    assert yaml.__with_libyaml__  # the wheels of PyYAML on PyPI carry it
    assert datafile.LOADER is yaml.CSafeLoader


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_data_file_reads_as_the_reference_loader_reads_it(path: Path) -> None:
    reference = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    assert_identical(load_data_file(path), reference)


def test_every_call_gets_its_own_objects() -> None:
    first = datafile.data_file("families.yaml")
    first["families"].clear()
    first["defaults"]["label"] = "changed"
    again = datafile.data_file("families.yaml")
    assert again["families"]
    assert again["defaults"].get("label") != "changed"
