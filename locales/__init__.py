"""Message catalogues and reply templates, one folder per language (data shipped in the wheel)."""

from pathlib import Path

LOCALES_DIR = Path(__file__).resolve().parent
LANGUAGES = ("en", "ja")
