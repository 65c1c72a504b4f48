"""A config cut off in the middle of a value (a message at Discord's length limit, a forum cutting a
post) is reported as cut off, never as a syntax error at a line the user wrote correctly (issue #16,
item 6): what the complete lines hold is checked, and the rest is asked for as a file."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.config.parse import parse_config
from diagnosis.models import Piece, PieceKind
from diagnosis.render import render_cli
from tests.conftest import EXAMPLES

CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")


def _piece(text: str) -> Piece:
    return Piece(PieceKind.CONFIG_YAML, text, "message 1", 0, 0)


# From the end of the first key's line: before it, the text is comments only and holds no config.
FIRST_KEY_END = CONFIG.index("\n", CONFIG.index("job:")) + 1


@settings(max_examples=120, deadline=None)
@given(st.integers(FIRST_KEY_END, len(CONFIG) - 1))
def test_a_config_cut_anywhere_is_no_syntax_error(at: int) -> None:
    doc = parse_config(_piece(CONFIG[:at]))
    assert doc.error is None, (at, doc.error)
    assert doc.ok
    if doc.cut_off:
        # Only complete lines are kept, each as the user wrote it.
        assert doc.piece.text.endswith("\n") and CONFIG.startswith(doc.piece.text)


def test_a_whole_config_and_a_real_error_are_not_cut() -> None:
    assert not parse_config(_piece(CONFIG)).cut_off
    # A last line left open is what a cut looks like; a value opened earlier and never closed (a
    # forgotten quote) swallows complete lines after it: the user's error, said at its line.
    assert parse_config(_piece("train:\n  lr: [1e-4\n")).cut_off
    forgot = parse_config(_piece('model:\n  name_or_path: "black-forest-labs/FLUX.1-dev\n  quantize: true\n'))
    assert forgot.error is not None and not forgot.cut_off
    trailing_tab = parse_config(_piece("train:\n  batch_size: 4\t\n"))
    assert trailing_tab.error is not None and not trailing_tab.cut_off
    broken = CONFIG.replace("  batch_size: 4", "  batch_size: [4", 1)
    doc = parse_config(_piece(broken))
    assert doc.error is not None and not doc.cut_off


def test_the_reply_checks_what_parsed_and_asks_for_the_file_in_both_languages() -> None:
    cut = CONFIG[: CONFIG.index("prompts:") + 30]
    report = diagnose(["OOM at step 2 on my 4090, config:\n```yaml\n" + cut])
    ids = {f.rule_id for f in report.findings}
    assert "yaml_invalid" not in ids and "gc_off" in ids
    assert "cut off in the middle of a line" in render_cli(report, lang="en")
    assert "行の途中で切れていた" in render_cli(report, lang="ja")


def test_a_cut_config_keeps_no_source_entry_for_a_path_its_data_lacks() -> None:
    # A duplicate key leaves a source entry for the mapping it replaced; a cut config is built like a
    # whole one and loses it too (an edit planned at `a.b` would land in a value that is no mapping).
    doc = parse_config(_piece('a:\n  b: 1\na: 2\nc: x\nd: "cut'))
    assert doc.cut_off and doc.data == {"a": 2, "c": "x"}
    assert ("a", "b") not in doc.source_map
