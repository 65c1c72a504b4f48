"""Loading the project's own YAML data files (families, thresholds, catalogues), fast.

`yaml.safe_load` uses PyYAML's pure-Python parser, which made loading the catalogues and tables the
largest part of a CLI run; libyaml's safe loader reads the same files several times faster. Faster
still is not parsing them at all: `python -m diagnosis.precompile` stores each data file's parsed
content as a Python module of `diagnosis._snapshots` (with the file's whole text), shipped in the
wheel. `load_data` returns a snapshot's data only when the text it is given is exactly that file's
text, so an edited file is parsed as before until the command is run again (a test says so).
User input never comes here: it goes through `diagnosis.config.parse`.
"""

from __future__ import annotations

import importlib.util
import os
import zlib
from functools import cache
from typing import Any

# Plain paths (os.path, not pathlib): pathlib's import was a tenth of a CLI run's start-up.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # `diagnosis` and `locales`
DATA_DIR = os.path.join(PACKAGE_ROOT, "diagnosis", "data")
SNAPSHOTS = "diagnosis._snapshots"


def load_data(text: str) -> Any:
    """The parsed YAML; a fresh object on every call (callers may change what they get)."""
    snapshot = _snapshot(text)
    if snapshot is not None:
        return snapshot
    return parse_yaml(text)


def parse_yaml(text: str) -> Any:
    # PyYAML is imported here, not at the top: with current snapshots a run that reads no YAML
    # config (a log, a traceback) never needs it.
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_data_file(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as fh:
        return load_data(fh.read())


def data_file(name: str) -> Any:
    """One of the engine's own data files (`diagnosis/data/<name>`), parsed."""
    return load_data_file(os.path.join(DATA_DIR, name))


def text_key(text: str) -> str:
    """Where a text's snapshot is looked up: its length and CRC (the text itself is then compared)."""
    return f"{len(text)}:{zlib.crc32(text.encode('utf-8')):08x}"


@cache
def _index() -> dict[str, str]:
    try:
        from diagnosis._snapshots import INDEX
    except ImportError:
        return {}
    return dict(INDEX)


def _snapshot(text: str) -> Any | None:
    module = _index().get(text_key(text))
    if module is None:
        return None
    spec = importlib.util.find_spec(f"{SNAPSHOTS}.{module}")
    get_code = getattr(spec.loader, "get_code", None) if spec is not None else None
    code = get_code(spec.name) if spec is not None and get_code is not None else None
    if code is None:
        return None
    # Run in a namespace of its own rather than imported: every call builds new objects from the .pyc.
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    return namespace["DATA"] if namespace.get("TEXT") == text else None
