"""read_case: fences, bare YAML/JSON, logs, prose, line offsets, language, limits, secrets."""

from __future__ import annotations

import codecs

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.config.parse import parse_config
from diagnosis.intake import read_case
from diagnosis.limits import Limits
from diagnosis.models import ConfigShape, Intake, Piece, PieceKind
from diagnosis.scrub import scrub
from tests.conftest import CORPUS
from tests.test_config_samples import ECHOED_PROCESS_JSON, FLUX_24GB, TRAIN_FRAGMENT, UI_JOB_JSON

TRACEBACK = """\
Traceback (most recent call last):
  File "/home/user/ai-toolkit/run.py", line 120, in main
    job.run()
  File "/home/user/ai-toolkit/jobs/ExtensionJob.py", line 22, in run
    process.run()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. \
GPU 0 has a total capacity of 23.55 GiB of which 1.06 GiB is free.
"""


def kinds(intake: Intake) -> list[PieceKind]:
    return [p.kind for p in intake.pieces]


def lines_of(text: str, piece: Piece) -> list[str]:
    """The input lines a piece claims to cover, by its line_offset."""
    count = piece.text.rstrip("\n").count("\n") + 1
    return text.split("\n")[piece.line_offset : piece.line_offset + count]


def assert_offsets_exact(text: str, intake: Intake) -> None:
    text = scrub(text, "test")[0]  # pieces hold the scrubbed text; scrubbing keeps every line break
    for piece in intake.pieces:
        claimed = lines_of(text, piece)
        own = piece.text.rstrip("\n").split("\n")
        assert len(claimed) == len(own)
        for mine, theirs in zip(own, claimed, strict=True):
            # Equal, or a part of a line that also holds a fence.
            assert mine == theirs or (mine in theirs and ("```" in theirs or "~~~" in theirs)), (mine, theirs)


def read_input(case: str) -> str:
    return (CORPUS / case / "input.txt").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------------
# The corpus


def _synthetic_with_config() -> list[str]:
    out = []
    for case in sorted((CORPUS / "synthetic").iterdir()):
        meta = yaml.safe_load((case / "meta.yaml").read_text(encoding="utf-8"))
        if meta.get("config_lines"):
            out.append(case.name)
    return out


@pytest.mark.parametrize("case", _synthetic_with_config(), ids=lambda name: name[:3])
def test_synthetic_config_is_found_at_its_lines(case: str) -> None:
    meta = yaml.safe_load((CORPUS / "synthetic" / case / "meta.yaml").read_text(encoding="utf-8"))
    first, last = (int(n) for n in str(meta["config_lines"]).split("-"))
    text = read_input(f"synthetic/{case}")
    intake = read_case([text])
    configs = [p for p in intake.pieces if p.kind != PieceKind.LOG]
    assert len(configs) == 1
    config = configs[0]
    assert config.line_offset == first - 1
    assert config.text.count("\n") == last - first + 1
    assert config.fenced == bool(meta.get("config_fenced"))
    shape = meta["config_shape"]
    assert config.kind == (PieceKind.CONFIG_JSON if "json" in shape else PieceKind.CONFIG_YAML)
    doc = parse_config(config)
    assert doc.ok == meta.get("config_parses", True)
    if doc.ok and shape.startswith("full_job"):
        assert doc.shape == ConfigShape.FULL_JOB and doc.process_path == ("config", "process", 0)
    assert_offsets_exact(text, intake)


def test_101_fenced_yaml_and_log_and_prose() -> None:
    text = read_input("synthetic/101-flux-dev-gc-off-batch4-multibucket-oom-step2")
    intake = read_case([text], sources=["message 7"])
    assert kinds(intake) == [PieceKind.CONFIG_YAML, PieceKind.LOG]
    config, log = intake.pieces
    assert (config.line_offset, config.lang_tag, config.source) == (3, "yaml", "message 7")
    doc = parse_config(config)
    gc = doc.source_map[("config", "process", 0, "train", "gradient_checkpointing")]
    assert config.line_offset + gc.value.start_line + 1 == 39  # input.txt line 39
    assert log.fenced and log.text.startswith("Bucket sizes for ")
    assert "CUDA out of memory" in log.text
    assert intake.prose.startswith("anyone know why this OOMs at step 2??")
    assert "end of the log:" in intake.prose
    assert intake.language_hint == "en"


def test_102_ui_json_in_japanese() -> None:
    intake = read_case([read_input("synthetic/102-zimage-turbo-gc-off-1024-1536-batch4-ui-json")])
    assert kinds(intake) == [PieceKind.CONFIG_JSON, PieceKind.LOG]
    assert intake.pieces[0].line_offset == 5
    assert intake.language_hint == "ja"


def test_111_tab_error_line_maps_to_the_input() -> None:
    text = read_input("synthetic/111-qwen-edit-2511-tab-indent-yaml-invalid")
    intake = read_case([text])
    config = intake.pieces[0]
    doc = parse_config(config)
    assert doc.error is not None and doc.error.tab_indent
    assert config.line_offset + doc.error.line == 55  # input.txt line 55, config line 52


def test_032_bare_yaml_after_prose() -> None:
    text = read_input("cases/032-krea2-raw-3060-12gb-intermittently-slow")
    intake = read_case([text])
    assert kinds(intake) == [PieceKind.CONFIG_YAML]
    config = intake.pieces[0]
    assert not config.fenced and config.text.startswith("---\njob:")
    assert text.split("\n")[config.line_offset - 1] == "Config File:"
    assert "Config File:" in intake.prose
    assert parse_config(config).shape == ConfigShape.FULL_JOB


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("cases/001-runpod-a6000-other-processes", [PieceKind.LOG]),
        ("cases/013-flux2-dev-oom-quantizing-mistral-te", []),
        ("cases/022-flux2-dev-5090-buckets-1536-ram-140gb-shared-vram", [PieceKind.LOG]),
        ("synthetic/107-sdxl-3060-comfyui-holding-vram-log-only", [PieceKind.LOG]),
        (
            "synthetic/108-flux2-klein9b-layer-offload-sigkill-32gb-ram",
            [PieceKind.LOG, PieceKind.LOG, PieceKind.CONFIG_YAML],
        ),
    ],
)
def test_corpus_piece_kinds(case: str, expected: list[PieceKind]) -> None:
    text = read_input(case)
    intake = read_case([text])
    assert kinds(intake) == expected
    assert_offsets_exact(text, intake)


def test_every_corpus_input_reads_without_surprises() -> None:
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        text = path.read_text(encoding="utf-8")
        assert_offsets_exact(text, read_case([text]))


@pytest.mark.parametrize("case", sorted(p.name for p in (CORPUS / "synthetic").iterdir()))
def test_scenario_language_and_config_match_their_labels(case: str) -> None:
    meta = yaml.safe_load((CORPUS / "synthetic" / case / "meta.yaml").read_text(encoding="utf-8"))
    intake = read_case([(CORPUS / "synthetic" / case / "input.txt").read_text(encoding="utf-8")])
    assert intake.language_hint == meta["language"]
    configs = [p for p in intake.pieces if p.kind != PieceKind.LOG]
    if meta["config_shape"] == "none":
        assert configs == []
        return
    assert len(configs) == 1
    doc = parse_config(configs[0])
    assert doc.ok is meta.get("config_parses", True)
    first, _last = (int(n) for n in str(meta["config_lines"]).split("-"))
    assert configs[0].line_offset + 1 == first


def test_a_sentence_quoting_the_error_is_prose_too() -> None:
    intake = read_case([read_input("synthetic/105-chroma-gc-missing-1536-bucket-cuda-error-step37")])
    assert intake.prose.startswith("chroma lora on a 3090 crashed at step 37")
    assert intake.language_hint == "en"
    assert "CUDA error: out of memory" in intake.pieces[0].text  # the log reader still sees it


# --------------------------------------------------------------------------------------------------
# Bare and mixed messages


def test_bare_yaml_then_traceback() -> None:
    text = "here is my config:\n" + TRAIN_FRAGMENT + "and the error:\n" + TRACEBACK
    intake = read_case([text])
    assert kinds(intake) == [PieceKind.CONFIG_YAML, PieceKind.LOG]
    config, log = intake.pieces
    assert config.line_offset == 1 and config.text == TRAIN_FRAGMENT
    assert log.text.startswith("Traceback (most recent call last):")
    assert log.line_offset == 1 + TRAIN_FRAGMENT.count("\n") + 1
    assert intake.prose == "here is my config:\nand the error:"
    assert_offsets_exact(text, intake)


def test_bare_yaml_with_blank_lines_inside_stays_one_piece() -> None:
    text = "my settings\n\n" + FLUX_24GB.replace("      train:\n", "\n      train:\n") + "\nthanks!\n"
    intake = read_case([text])
    assert kinds(intake) == [PieceKind.CONFIG_YAML]
    assert parse_config(intake.pieces[0]).ok
    assert intake.prose == "my settings\nthanks!"


def test_prose_with_key_like_words_is_not_a_config() -> None:
    text = "Note: it crashed again.\nModel: flux dev\nBatch Size: 1\nRank: 32\nSteps: 3000\n"
    intake = read_case([text])
    assert intake.pieces == []
    assert intake.prose == text.rstrip("\n")


def test_bare_json_config_and_log_echo() -> None:
    text = "my .job_config.json\n" + UI_JOB_JSON + "\nthe log:\n"
    log = "Running 1 job\n" + ECHOED_PROCESS_JSON + "Using SQLite database at ./aitk_db.db\n" + TRACEBACK
    intake = read_case([text + log])
    assert kinds(intake) == [PieceKind.CONFIG_JSON, PieceKind.LOG]
    assert intake.pieces[0].text == UI_JOB_JSON
    assert intake.pieces[0].line_offset == 1
    assert '"type": "ui_trainer"' in intake.pieces[1].text  # the echo stays inside the log


def test_indented_fragment_pasted_from_the_middle_of_a_file() -> None:
    text = "is this right?\n      train:\n        batch_size: 4\n        gradient_checkpointing: false\n"
    intake = read_case([text])
    assert kinds(intake) == [PieceKind.CONFIG_YAML]
    doc = parse_config(intake.pieces[0])
    assert doc.ok and doc.data == {"train": {"batch_size": 4, "gradient_checkpointing": False}}


FRAGMENT_DATA = {
    "train": {
        "batch_size": 4,
        "steps": 3000,
        "gradient_checkpointing": False,
        "optimizer": "adamw8bit",
        "lr": 1e-4,
    }
}


def test_fence_variants() -> None:
    yaml_text = TRAIN_FRAGMENT.rstrip("\n")
    for message in (
        f"```yaml\n{yaml_text}\n```",
        f"```\n{yaml_text}\n```",
        f"~~~yml\n{yaml_text}\n~~~",
        f"my config ```yaml\n{yaml_text}```",
        f"```yaml\n{yaml_text}",  # never closed
        f"   ```YAML\n{yaml_text}\n   ```\nthanks",
    ):
        intake = read_case([message])
        assert kinds(intake) == [PieceKind.CONFIG_YAML], message
        assert intake.pieces[0].fenced
        assert parse_config(intake.pieces[0]).data == FRAGMENT_DATA
        assert_offsets_exact(message, intake)


def test_a_fence_tagged_yaml_that_holds_a_log_is_a_log() -> None:
    intake = read_case(["```yaml\n" + TRACEBACK + "```\n"])
    assert kinds(intake) == [PieceKind.LOG]
    assert intake.pieces[0].lang_tag == "yaml"


def test_one_line_fence_and_backticks_inside_values() -> None:
    intake = read_case(["it says ```Error running job: CUDA error: out of memory``` every time"])
    assert kinds(intake) == [PieceKind.LOG]
    assert intake.pieces[0].text == "Error running job: CUDA error: out of memory"
    assert intake.prose == "it says \n every time"
    quoted = '```yaml\ntrain:\n  batch_size: 1\n  gradient_checkpointing: true\nsample:\n  neg: "```"\n```\n'
    inside = read_case([quoted])
    assert kinds(inside) == [PieceKind.CONFIG_YAML]
    assert parse_config(inside.pieces[0]).data["sample"]["neg"] == "```"


def test_several_messages_keep_their_sources_and_indexes() -> None:
    intake = read_case(
        [f"```yaml\n{FLUX_24GB}```", TRACEBACK.encode("utf-16")], sources=["config.yaml", "log.txt"]
    )
    assert [(p.kind, p.source, p.input_index) for p in intake.pieces] == [
        (PieceKind.CONFIG_YAML, "config.yaml", 0),
        (PieceKind.LOG, "log.txt", 1),
    ]
    default = read_case(["hello there friend", TRACEBACK])
    assert default.pieces[0].source == "message 2"


# --------------------------------------------------------------------------------------------------
# Language, limits, encodings, secrets


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("学習が始まった瞬間にOOMで止まります", "ja"),
        ("バッチサイズを下げました", "ja"),
        ("it crashes at step 2, any idea?", "en"),
        ("the 円 sign shows up in my path", "en"),  # one kanji alone does not make it Japanese
        ("H20 96G显存 qwen-image-edit lora微调为什么还是报错", "en"),  # Chinese: kanji without kana
        ("显存不足怎么办", None),  # Chinese alone: the server's default decides
        ("ｵｰﾊﾞｰしました", "ja"),  # half-width katakana
        ("4090 24GB", None),
        ("", None),
    ],
)
def test_language_hint(text: str, hint: str | None) -> None:
    assert read_case([text + "\n" + TRACEBACK]).language_hint == hint


def test_max_pieces() -> None:
    text = "\n\n".join(f"```\n{TRACEBACK}```\nand then" for _ in range(6))
    intake = read_case([text], limits=Limits(max_pieces=3))
    assert len(intake.pieces) == 3 and intake.limits_hit == ["max_pieces"]


def test_truncated_input_is_flagged_and_keeps_the_end() -> None:
    text = "padding line\n" * 1000 + TRACEBACK
    intake = read_case([text.encode()], limits=Limits(max_input_bytes=len(TRACEBACK) + 50))
    assert intake.truncated
    assert kinds(intake) == [PieceKind.LOG]
    assert "torch.OutOfMemoryError" in intake.pieces[0].text


def test_powershell_utf16_and_crlf() -> None:
    text = ("here:\r\n```yaml\r\n" + TRAIN_FRAGMENT + "```\r\n").replace("\n", "\r\n").replace("\r\r", "\r")
    intake = read_case([codecs.BOM_UTF16_LE + text.encode("utf-16-le")])
    assert kinds(intake) == [PieceKind.CONFIG_YAML]
    assert intake.pieces[0].text == TRAIN_FRAGMENT and intake.pieces[0].line_offset == 2
    assert intake.pieces[0].newline == "\r\n"
    assert read_case([TRAIN_FRAGMENT]).pieces[0].newline == "\n"


def test_secrets_are_scrubbed_before_anything_reads_them() -> None:
    token = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"
    text = f'```yaml\n{TRAIN_FRAGMENT}save:\n  hf_token: "{token}"\n```\n'
    intake = read_case([text], sources=["message 3"])
    assert token not in intake.pieces[0].text
    assert intake.secrets and intake.secrets[0].source == "message 3"
    assert parse_config(intake.pieces[0]).ok


# --------------------------------------------------------------------------------------------------
# Never raises


_MESSAGE_PARTS = st.lists(
    st.sampled_from(
        [
            "```",
            "```yaml",
            "~~~",
            "\n",
            "\r\n",
            "\r",
            "train:",
            "  batch_size: 4",
            "{",
            "}",
            '"job": 1,',
            "---",
            TRACEBACK,
            "hello there",
            "バッチ",
            "\x00",
            "\t",
            "  - 512",
            "`",
            "Running 1 job",
        ]
    ),
    max_size=40,
)


@given(
    st.lists(
        st.one_of(st.text(max_size=300), st.binary(max_size=300), _MESSAGE_PARTS.map("".join)), max_size=3
    )
)
def test_read_case_never_raises(inputs: list[str | bytes]) -> None:
    intake = read_case(inputs, limits=Limits(max_pieces=5))
    assert len(intake.pieces) <= 5
    for piece in intake.pieces:
        assert piece.text.strip()
        assert 0 <= piece.input_index < len(inputs)
        if piece.kind != PieceKind.LOG:
            parse_config(piece)


_BLOCKS = st.sampled_from(
    [
        "here is my config:",
        "```yaml\n" + TRAIN_FRAGMENT + "```",
        TRAIN_FRAGMENT.rstrip("\n"),
        "```json\n" + ECHOED_PROCESS_JSON + "```",
        UI_JOB_JSON.rstrip("\n"),
        TRACEBACK.rstrip("\n"),
        "```\n" + TRACEBACK + "```",
        "and the error:",
        "バッチサイズを下げても落ちます",
        "",
        "```",
    ]
)


@given(st.lists(_BLOCKS, max_size=8), st.sampled_from(["\n", "\n\n"]))
def test_composed_messages_have_exact_offsets(blocks: list[str], joiner: str) -> None:
    text = joiner.join(blocks)
    intake = read_case([text])
    assert_offsets_exact(text, intake)
    for piece in intake.pieces:
        if piece.kind != PieceKind.LOG:
            assert parse_config(piece).error is None


def test_a_stray_line_in_a_fenced_config_is_left_for_the_parser() -> None:
    text = (
        "```yaml\ntrain:\n  batch_size: 4\n  gradient_checkpointing: false\n"
        "oops i typed here\nmodel:\n  quantize: true\n```"
    )
    intake = read_case([text])
    assert kinds(intake) == [PieceKind.CONFIG_YAML]
    doc = parse_config(intake.pieces[0])
    assert doc.error is not None and doc.error.line == 5


def test_two_configs_in_one_unclosed_fence_are_split() -> None:
    text = "```\n" + TRAIN_FRAGMENT + ECHOED_PROCESS_JSON
    intake = read_case([text])
    assert kinds(intake) == [PieceKind.CONFIG_YAML, PieceKind.CONFIG_JSON]
    assert all(parse_config(p).ok for p in intake.pieces)
    assert_offsets_exact(text, intake)


def test_a_config_split_over_two_messages_is_read_as_one() -> None:
    lines = FLUX_24GB.split("\n")
    first = "my config, part 1\n```yaml\n" + "\n".join(lines[:40])
    second = "\n".join(lines[40:]).rstrip("\n") + "\n```\nand the log:\n```\n" + TRACEBACK + "```"
    intake = read_case([first, second], sources=["message 1", "message 2"])
    assert kinds(intake) == [PieceKind.CONFIG_YAML, PieceKind.LOG]
    config, log = intake.pieces
    assert (config.source, config.input_index, config.line_offset) == ("message 1", 0, 2)
    assert config.text == FLUX_24GB and parse_config(config).ok
    assert (log.source, log.input_index) == ("message 2", 1)
    assert second.split("\n")[log.line_offset] == "Traceback (most recent call last):"
    assert intake.prose == "my config, part 1\nand the log:"


def test_messages_that_merely_follow_each_other_stay_apart() -> None:
    intake = read_case(["```yaml\n" + TRAIN_FRAGMENT + "```", "```\n" + TRACEBACK + "```"])
    assert [(p.kind, p.input_index, p.line_offset) for p in intake.pieces] == [
        (PieceKind.CONFIG_YAML, 0, 1),
        (PieceKind.LOG, 1, 1),
    ]


def test_a_config_file_is_one_piece_with_its_header_and_document_marker() -> None:
    from tests.conftest import EXAMPLES

    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    assert text.startswith("---\n# ")
    intake = read_case([text], ["job.yaml"])
    assert len(intake.pieces) == 1
    piece = intake.pieces[0]
    assert piece.line_offset == 0
    assert piece.text == text


def test_a_config_followed_by_a_sentence_is_not_kept_whole() -> None:
    from tests.conftest import EXAMPLES

    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    intake = read_case([text + "\nthis crashes at step 2, any idea why?\n"])
    assert [p.kind for p in intake.pieces] == [PieceKind.CONFIG_YAML]
    assert "any idea" not in intake.pieces[0].text
    assert "any idea" in intake.prose


def _bar_log(lines: int) -> str:
    bar = "my_lora:  {:2d}%|██        | {}/900 [00:01<00:09,  1.70s/it]"
    return "\n".join(bar.format(i % 100, i) for i in range(lines))


@pytest.mark.parametrize("chained", [False, True], ids=["one input", "a fence across two inputs"])
def test_a_config_after_an_inline_fence_in_a_long_log_is_found(chained: bool) -> None:
    # A long log has few line shapes, and intake reads them to skip the search for a config start. The
    # line '```x``` {...}' does not start like a config, but the bare block after its fence does: the
    # shapes speak for the unsplit text only (in one input), and for no chain of inputs (a fence
    # across two): tests/test_intake_long_log.py holds the first case against the plain path too.
    log = _bar_log(20_000)
    config_line = '```x``` {"train": {"batch_size": 4}}'
    if chained:
        inputs = [
            log + "\n```\nTraceback (most recent call last):",
            "torch.OutOfMemoryError: CUDA out of memory.\n```\n"
            + log[:3000]
            + f"\n{config_line}\n"
            + log[:3000],
        ]
    else:
        inputs = [log + f"\n{config_line}\n" + log[:3000]]
    configs = [p for p in read_case(inputs).pieces if p.kind == PieceKind.CONFIG_JSON]
    assert [(p.source, p.text.strip()) for p in configs] == [
        (f"message {len(inputs)}", '{"train": {"batch_size": 4}}')
    ]
