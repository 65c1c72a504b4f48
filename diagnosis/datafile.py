"""Loading the project's own YAML data files (families, thresholds, catalogues), fast.

`yaml.safe_load` uses PyYAML's pure-Python parser, and every CLI run loads the catalogues and tables;
libyaml's safe loader (`CSafeLoader`) reads the same files several times
faster and gives the same data. PyYAML built without libyaml falls back to the pure-Python loader.
User input never comes here: it goes through `diagnosis.config.parse`.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

# Plain paths (os.path, not pathlib): importing pathlib would add to every CLI run's start-up.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # `diagnosis` and `locales`
DATA_DIR = os.path.join(PACKAGE_ROOT, "diagnosis", "data")
LOADER: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_data_file(path: str | os.PathLike[str]) -> Any:
    """The parsed YAML file; a fresh object on every call (callers may change what they get)."""
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=LOADER)


def data_file(name: str) -> Any:
    """One of the engine's own data files (`diagnosis/data/<name>`), parsed."""
    return load_data_file(os.path.join(DATA_DIR, name))
