"""The catalogues: both languages say the same things with the same placeholders, and every key the
templates and the rules need exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from diagnosis.models import Applicability, Phase
from diagnosis.render.catalogue import catalogue, placeholders
from diagnosis.rules import RULE_IDS, spec
from locales import LOCALES_DIR as LOCALES_FOLDER

MINE = ("rules", "reply", "cli")
RULE_FIELDS = ("title", "cause", "action", "explanation", "fix", "ui_path", "next", "applicability")
LOCALES_DIR = Path(LOCALES_FOLDER)
TEMPLATES = LOCALES_DIR / "_shared" / "templates"

NOTE_PARAMS = {
    "input_truncated": {"limit_mib"},
    "vram_assumed": {"gib"},
    "config_from_log": set(),
    "limit_hit": {"limit"},
    "rule_failed": {"rule_id"},
    "gc_default_on": set(),  # a reply note of the renderer's own (A9), not a report Note
}


def _mine(lang: str) -> dict[str, str | list[str]]:
    return {k: v for k, v in catalogue(lang).items() if k.split(".")[0] in MINE}


def _texts(entry: str | list[str]) -> list[str]:
    return entry if isinstance(entry, list) else [entry]


def test_both_languages_have_the_same_keys() -> None:
    en, ja = _mine("en"), _mine("ja")
    assert sorted(set(en) - set(ja)) == []
    assert sorted(set(ja) - set(en)) == []


def test_both_languages_use_the_same_placeholders() -> None:
    en, ja = _mine("en"), _mine("ja")
    for key, entry in en.items():
        got = set().union(*(placeholders(t) for t in _texts(ja[key])))
        want = set().union(*(placeholders(t) for t in _texts(entry)))
        assert got == want, key


def test_no_entry_is_empty_and_every_placeholder_is_a_plain_name() -> None:
    for lang in ("en", "ja"):
        for key, entry in _mine(lang).items():
            for text in _texts(entry):
                assert text.strip() or key == "reply.sep", (lang, key)
                for name in placeholders(text):
                    assert re.fullmatch(r"[a-z_]+", name), (lang, key, name)


def test_the_catalogue_files_hold_only_my_namespaces_and_bot() -> None:
    for lang in ("en", "ja"):
        stems = {p.stem for p in (LOCALES_DIR / lang).glob("*.yaml")}
        assert set(MINE) <= stems
        assert stems <= set(MINE) | {"bot"}


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_every_rule_has_every_text_in_both_languages(rule_id: str) -> None:
    for lang in ("en", "ja"):
        cat = catalogue(lang)
        for field in RULE_FIELDS:
            assert f"rules.{rule_id}.{field}" in cat, (lang, rule_id, field)
        title = cat[f"rules.{rule_id}.title"]
        assert isinstance(title, str) and not placeholders(title), "titles are used without params"
        for field in ("explanation", "fix", "ui_path", "next", "applicability"):
            for text in _texts(cat[f"rules.{rule_id}.{field}"]):
                assert not placeholders(text), (
                    f"{field} is shown by `explain` without params ({lang} {rule_id})"
                )


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_placeholders_are_params_the_rule_provides(rule_id: str) -> None:
    # The rule's spec lists its params (a placeholder outside them is a typo, and would leave the
    # sentence unsaid): a new rule needs no list here.
    for key, entry in _mine("en").items():
        if key.startswith(f"rules.{rule_id}."):
            for text in _texts(entry):
                assert placeholders(text) <= spec(rule_id).params, key


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_situations_and_variants_are_chosen_by_params_the_rule_provides(rule_id: str) -> None:
    # `when_<flag>` / `when_<param>_<value>` and `variant.<param>.<value>` are picked by a param's
    # name: one the rule never sets leaves the text unreachable.
    params = spec(rule_id).params
    for key in _mine("en"):
        parts = key.split(".")
        if parts[:2] != ["rules", rule_id] or len(parts) < 4:
            continue
        if parts[2] == "variant":
            assert parts[3] in params, key
        elif parts[2].startswith("when_"):
            situation = parts[2].removeprefix("when_")
            assert any(situation == p or situation.startswith(f"{p}_") for p in params), key


def test_every_rule_in_the_catalogue_exists() -> None:
    ids = {key.split(".")[1] for key in catalogue("en") if key.startswith("rules.")}
    assert ids == set(RULE_IDS)


def test_notes_phases_and_labels_exist_with_their_params() -> None:
    cat = catalogue("en")
    for note, params in NOTE_PARAMS.items():
        text = cat[f"reply.note.{note}"]
        assert isinstance(text, str) and placeholders(text) == params, note
    for phase in Phase:
        if phase is not Phase.UNKNOWN:
            assert f"reply.where.{phase.value}" in cat, phase
    for step_phase in ("training_step", "sampling"):
        assert placeholders(str(cat[f"reply.where.{step_phase}_n"])) == {"step"}
    for value in Applicability:
        assert f"reply.applicability.{value.value}" in cat
    for item in ("config", "log", "error_lines", "gpu"):
        assert f"reply.ask.{item}" in cat
    for kind in (
        "hf_token",
        "discord_token",
        "wandb_key",
        "civitai_key",
        "openai_key",
        "assignment",
        "home_path",
        "github_token",
        "runpod_key",
        "replicate_token",
        "bearer_token",
        "url_credentials",
    ):
        assert f"reply.secret_kind.{kind}" in cat


def test_cli_messages_have_the_params_the_cli_passes() -> None:
    want = {
        "unreadable": {"path", "reason"},
        "nothing_to_fix": set(),
        "fix_exists": {"path"},
        "fix_written": {"path"},
        "unknown_rule": {"rule_id"},
    }
    for lang in ("en", "ja"):
        for key, params in want.items():
            assert placeholders(str(catalogue(lang)[f"cli.{key}"])) == params, (lang, key)


def test_every_literal_key_in_the_templates_exists() -> None:
    cat = catalogue("en")
    for path in TEMPLATES.glob("*.j2"):
        for key in re.findall(r"""\bt\("([a-z_.]+)"[,)]""", path.read_text(encoding="utf-8")):
            if not key.endswith("."):
                assert key in cat, (path.name, key)
        for prefix in re.findall(r"""\bt\("([a-z_.]+\.)" ~""", path.read_text(encoding="utf-8")):
            assert any(k.startswith(prefix) for k in cat), (path.name, prefix)


def test_japanese_texts_are_polite_and_keep_ui_labels_in_english() -> None:
    ja = _mine("ja")
    for rule_id in RULE_IDS:
        explanation = ja[f"rules.{rule_id}.explanation"]
        assert isinstance(explanation, str)
        assert re.search(r"(です|ます|ません|ください)[。：]?$", explanation.strip()), rule_id
    for key in ("rules.gc_off.ui_path", "rules.preview_heavy.ui_path", "rules.batch_too_large.ui_path"):
        en_labels = set(re.findall(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*", str(_mine("en")[key])))
        for label in en_labels - {"Where", "Outside"}:
            assert label in str(ja[key]), (key, label)


def test_catalogue_files_parse_as_plain_mappings() -> None:
    for lang in ("en", "ja"):
        for stem in MINE:
            data = yaml.safe_load((LOCALES_DIR / lang / f"{stem}.yaml").read_text(encoding="utf-8"))
            assert isinstance(data, dict)
