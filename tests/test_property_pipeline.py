"""Property tests over the whole pipeline: arbitrary and mutated inputs → a sound, bounded report.

Every ladder step is written (`steps=None`): each corrected config the bot can show must parse again.

Mutations start from the real corpus (and the bundled example) and do what pasting does to text:
lines lost or doubled, characters swapped for YAML-significant or look-alike ones, a paste cut short,
two pastes interleaved.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.config.edit import apply_text_edits, plan_edits
from diagnosis.config.parse import parse_config
from diagnosis.models import Piece
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS
from tests.conftest import CORPUS, EXAMPLES
from tests.hostile.checks import finding_ids, report_problems

SEEDS: list[str] = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*/*/input.txt"))]
SEEDS += [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.iterdir()) if p.suffix in (".yaml", ".log")]
# Characters that change the meaning of YAML, of a log line, or of a key for a careless reader.
SWAPS = [*":-#'\"[]{}&*!|>,%@`\t\n\r ", "0", "9", "\u0456", "\u200b", "\u202e", "\ufeff", "\x00", "é", "日"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(0, 6))):
        lines = text.splitlines(keepends=True) or [""]
        op = draw(st.sampled_from(["delete", "duplicate", "swap_char", "truncate", "interleave", "insert"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap_char" and lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + draw(st.sampled_from(SWAPS)) + lines[i][j + 1 :]
        elif op == "truncate":
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        elif op == "interleave":
            other = draw(st.sampled_from(SEEDS)).splitlines(keepends=True)
            merged: list[str] = []
            for k in range(max(len(lines), len(other))):
                merged += lines[k : k + 1] + other[k : k + 1]
            lines = merged
        elif op == "insert":
            lines.insert(i, draw(st.text(max_size=80)) + "\n")
        text = "".join(lines)
    return text


def _sound(report: Report) -> None:
    assert isinstance(report, Report)
    problems = report_problems(report)
    assert not problems, "\n".join(problems)


def _reinput(text: str, report: Report) -> str | None:
    """The user's text with the config replaced by its corrected version (None when not a plain swap)."""
    corrected, config = report.corrected_config, report.config
    if corrected is None or config is None or config.piece.input_index != 0:
        return None
    if text.count(config.piece.text) != 1:
        return None
    return text.replace(config.piece.text, corrected, 1)


def _fix_is_idempotent(text: str, report: Report) -> None:
    """Diagnosing the corrected text must not ask again for the step-1 fixes that were just applied."""
    again_text = _reinput(text, report)
    if again_text is None:
        return
    step1 = set(report.ladder[0].rule_ids)
    again = diagnose([again_text], steps=None)
    repeated = [f.rule_id for f in again.findings if f.rule_id in step1 and f.edits]
    if repeated:
        assert again.corrected_config in (None, report.corrected_config), (
            f"step 1 fixed {sorted(step1)} but the corrected config still gets edits for {repeated}"
        )
    if report.config is None:
        return
    corrected = report.corrected_config
    assert corrected is not None
    doc = parse_config(
        Piece(kind=report.config.piece.kind, text=corrected, source="corrected", input_index=0, line_offset=0)
    )
    assert doc.ok, doc.error  # `_sound` checked it already: the idempotence check is never skipped
    replanned = plan_edits(doc, report.ladder[0].edits)
    assert apply_text_edits(corrected, replanned) == corrected, "applying step 1 twice changed the text"


@given(st.text(max_size=3000))
def test_arbitrary_text_gives_a_sound_report(text: str) -> None:
    _sound(diagnose([text], steps=None))


@given(st.binary(max_size=3000))
@example(b"\xff\xfe" + "CUDA out of memory. Tried to allocate 2.00 GiB".encode("utf-16-le"))
def test_arbitrary_bytes_give_a_sound_report(data: bytes) -> None:
    _sound(diagnose([data], steps=None))


@given(mutated())
def test_mutated_corpus_inputs_give_a_sound_report(text: str) -> None:
    report = diagnose([text], steps=None)
    _sound(report)
    _fix_is_idempotent(text, report)


@given(st.lists(mutated(), min_size=2, max_size=4), st.sampled_from([None, "ja", "en"]))
def test_several_mutated_inputs_as_one_case(texts: list[str], locale: str | None) -> None:
    report = diagnose(
        texts, locale=locale, sources=[f"message {i + 1}" for i in range(len(texts))], steps=None
    )
    _sound(report)


# Non-finite values are covered (and their bug recorded) in tests/hostile/test_hostile.py.
@given(mutated(), st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)))
def test_any_stated_vram_gives_a_sound_report(text: str, vram: float | None) -> None:
    _sound(diagnose([text], gpu_vram_gib=vram, steps=None))


def test_every_corpus_input_is_sound_and_its_fix_idempotent() -> None:
    known = set(RULE_IDS)
    for text in SEEDS:
        report = diagnose([text], steps=None)
        _sound(report)
        assert finding_ids(report) <= known, finding_ids(report) - known
        _fix_is_idempotent(text, report)
