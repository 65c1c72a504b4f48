"""Message catalogues and reply templates, one folder per language (data shipped in the wheel)."""

import os

# A plain path: pathlib's import (with urllib.parse and ipaddress) was a tenth of a CLI run's start-up.
LOCALES_DIR = os.path.dirname(os.path.realpath(__file__))
LANGUAGES = ("en", "ja")
