"""Loading the project's own YAML data files (families, thresholds, catalogues), fast.

`yaml.safe_load` uses PyYAML's pure-Python parser, which made loading the catalogues and tables the
largest part of a CLI run; libyaml's safe loader reads the same files several times faster.
User input never comes here: it goes through `diagnosis.config.parse`.
"""

from __future__ import annotations

from typing import IO, Any

import yaml

_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_data(stream: str | IO[str]) -> Any:
    return yaml.load(stream, Loader=_SafeLoader)
