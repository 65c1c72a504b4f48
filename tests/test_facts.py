"""build_facts: trainer defaults, aliases, tolerant types, evidence lines, the card, the user's words."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.config.parse import parse_config
from diagnosis.facts import build_facts, choose_config
from diagnosis.facts_model import Facts
from diagnosis.facts_prose import read_prose
from diagnosis.families import vram_class
from diagnosis.models import Intake, LogFacts, LogLine, OomEvent, OomKind, Phase, Piece, PieceKind
from diagnosis.rules import run_rules, spec_of

GIB = 1024**3


def config_piece(text: str, offset: int = 0, source: str = "config.yaml") -> Piece:
    return Piece(PieceKind.CONFIG_YAML, text, source, 0, offset)


def build(text: str, prose: str = "", logs: list[LogFacts] | None = None, vram: float | None = None) -> Facts:
    doc = parse_config(config_piece(text))
    intake = Intake(pieces=[doc.piece], prose=prose, language_hint=None)
    return build_facts(intake, [doc], logs or [], vram)


JOB = """\
job: extension
config:
  name: test
  process:
    - type: sd_trainer
      network:
        type: lora
        linear: 16
        rank: 64
      datasets:
        - folder_path: /data
          resolution: [512, 1024]
          caption_dropout_rate: 0.05
      train:
        batch_size: 2
      model:
        name_or_path: ostris/Flex.1-alpha
        arch: flex1
        quantize: true
        auto_memory: true
      sample:
        width: 1024
        height: 768
        prompts: [a, b, c]
"""


def test_trainer_defaults_for_missing_keys() -> None:
    f = build(JOB)
    assert f.gradient_checkpointing is True and f.gc_explicit is False
    assert f.dtype == "fp32" and f.dtype_explicit is False
    assert f.quantize is True and f.quantize_te is True  # quantize_te follows quantize
    assert f.optimizer == "adamw" and "optimizer" in f.defaulted
    assert f.batch_size == 2 and f.gradient_accumulation == 1


def test_aliases() -> None:
    f = build(JOB)
    assert f.arch == "flux" and f.family == "flux" and f.family_label == "Flex.1" and f.params_b == 8
    assert f.network_rank == 64  # `rank` wins over `linear`
    assert f.layer_offloading is True  # `auto_memory` is the deprecated alias
    assert f.sample_prompts == 3 and f.buckets == [512, 1024] and f.max_bucket == 1024
    assert f.caption_dropout_max == 0.05


def test_arch_tag_dropped_and_legacy_flags() -> None:
    wan = build("model:\n  arch: 'wan22_14b:t2v'\n  name_or_path: x\ntrain: {}\n")
    assert wan.arch == "wan22_14b" and wan.family == "wan22_14b" and wan.is_video
    flux = build("model:\n  is_flux: true\n  name_or_path: black-forest-labs/FLUX.1-schnell\n")
    assert flux.arch == "flux" and flux.family_label == "FLUX.1-schnell"
    sd = build("model:\n  name_or_path: some/unknown-model\n")
    assert sd.arch == "sd1" and sd.family == "sd15"


def test_wan21_variant_by_name() -> None:
    small = build("model:\n  arch: wan21\n  name_or_path: Wan-AI/Wan2.1-T2V-1.3B-Diffusers\n")
    big = build("model:\n  arch: wan21\n  name_or_path: Wan-AI/Wan2.1-T2V-14B-Diffusers\n")
    assert (small.params_b, big.params_b) == (1.3, 14.0)


def test_wrong_types_become_defaults_with_an_issue() -> None:
    f = build("train:\n  batch_size: lots\n  gradient_checkpointing: [1]\n  dtype: {a: 1}\n")
    assert f.batch_size == 1 and f.gradient_checkpointing is True
    assert any("batch_size" in i for i in f.issues) and any("gradient_checkpointing" in i for i in f.issues)


def test_a_bare_train_block_without_its_key() -> None:
    doc = parse_config(config_piece("batch_size: 4\ngradient_checkpointing: false  # fast\nlr: 1e-4\n"))
    intake = Intake(pieces=[doc.piece], prose="", language_hint=None)
    f = build_facts(intake, [doc], [], None)
    assert f.bare_section == "train" and f.batch_size == 4 and f.gradient_checkpointing is False
    assert f.paths["gradient_checkpointing"] == ("gradient_checkpointing",)
    assert f.evidence["gradient_checkpointing"].line == 2


def test_absurd_numbers_read_as_wrong_types() -> None:
    f = build("train:\n  batch_size: " + "1" * 80 + "\nsample:\n  width: 1e999\n  height: 1024\n")
    assert f.batch_size == 1 and f.sample_width == 512
    assert any("batch_size" in i for i in f.issues) and any("width" in i for i in f.issues)


def test_string_booleans_read_as_booleans() -> None:
    f = build("train:\n  gradient_checkpointing: 'false'\n")
    assert f.gradient_checkpointing is False and f.gc_explicit is True


def test_evidence_points_at_the_input_line() -> None:
    text = "train:\n  batch_size: 4  # big\n  gradient_checkpointing: false\n"
    doc = parse_config(config_piece(text, offset=10, source="message 1"))
    intake = Intake(pieces=[doc.piece], prose="", language_hint=None)
    f = build_facts(intake, [doc], [], None)
    ev = f.evidence["gradient_checkpointing"]
    assert (ev.source, ev.line, ev.text) == ("message 1", 13, "gradient_checkpointing: false")
    assert f.paths["batch_size"] == ("train", "batch_size")


def test_json_evidence_quotes_the_line_the_parser_numbers() -> None:
    # A raw U+2028 inside a JSON string breaks no line for the JSON scanner; a split that broke there
    # quoted the line before the key.
    text = (
        '{\n  "sample": {"prompts": ["a\u2028b"]},\n  "train": {\n    "batch_size": 1,\n'
        '    "gradient_checkpointing": false\n  }\n}\n'
    )
    doc = parse_config(Piece(PieceKind.CONFIG_JSON, text, "job.json", 0, 0))
    f = build_facts(Intake(pieces=[doc.piece], prose="", language_hint=None), [doc], [], None)
    ev = f.evidence["gradient_checkpointing"]
    assert (ev.line, ev.text) == (5, '"gradient_checkpointing": false')


def oom_log(total_gib: float, phase: Phase = Phase.TRAINING_STEP) -> LogFacts:
    piece = Piece(PieceKind.LOG, "x", "log.txt", 0, 0)
    event = OomEvent(OomKind.CUDA_ALLOC, LogLine(1, "CUDA out of memory"), total_bytes=int(total_gib * GIB))
    return LogFacts(piece=piece, events=[event], fatal=event, phase=phase)


def test_vram_from_the_oom_message_first() -> None:
    f = build(JOB, prose="on my 4090", logs=[oom_log(31.36)], vram=48)
    assert (f.vram_gib, f.vram_source) == (32, "oom_message")


def test_vram_from_the_users_gpu_name_then_option_then_assumed() -> None:
    assert (build(JOB, prose="my 3060 keeps crashing").vram_gib, build(JOB, prose="my 3060").vram_source) == (
        12.0,
        "user_words",
    )
    assert (build(JOB, vram=20).vram_gib, build(JOB, vram=20).vram_source) == (20.0, "user")
    assert (build(JOB).vram_gib, build(JOB).vram_source) == (24.0, "assumed")


def test_vram_classes() -> None:
    assert [vram_class(x) for x in (23.55, 31.36, 47.53, 11.76, 15.99, 79.2)] == [24, 32, 48, 12, 16, 80]


def _regressed(prose: str) -> bool:
    rule = spec_of("regression_after_update")
    assert rule is not None
    return rule.check(build(JOB, prose=prose)) is not None


def test_regression_words_en_and_ja() -> None:
    assert _regressed("Since updating ai-toolkit today it always OOMs")
    assert _regressed("アップデート後にOOMが出るようになりました")
    # "worked before" alone is about the user's own change, not an update.
    assert not _regressed("ran fine last week with batch 1, then I bumped batch to 4")
    assert not _regressed("前は動いてたんですが low_vram を false にしました")
    # ... but together with "same settings" it is one.
    assert _regressed("It worked fine before. Same settings, now it OOMs at step 1")
    assert _regressed("前は動いていました。設定は同じです。")


def test_phase_from_the_users_words_only_without_a_log_phase() -> None:
    f = build(JOB, prose="it runs out of memory at 'Generating baseline samples before training'")
    assert f.phase == Phase.FIRST_SAMPLE and f.evidence["phase"].source == "user"
    g = build(JOB, prose="baseline samples", logs=[oom_log(24, Phase.MODEL_LOAD)])
    assert g.phase == Phase.MODEL_LOAD


def test_choose_config_prefers_the_last_complete_training_config() -> None:
    full = parse_config(config_piece(JOB))
    fragment = parse_config(config_piece("train:\n  batch_size: 8\n"))
    assert choose_config([full, fragment]) is full
    broken = parse_config(config_piece("train:\n\tbatch_size: 8\n"))
    assert choose_config([full, broken]) is broken  # the latest paste decides: it does not parse


def test_situational_facts_left_out_for_the_recheck() -> None:
    doc = parse_config(config_piece(JOB))
    intake = Intake(pieces=[doc.piece], prose="OOM at baseline samples, comfy open", language_hint=None)
    f = build_facts(intake, [doc], [oom_log(24)], 24.0, situational=False)
    assert f.phase == Phase.UNKNOWN and not f.has_oom and not f.said and f.vram_gib == 24.0


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5000), st.floats(allow_nan=False), st.text(max_size=8)
)
_values: Any = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
_keys = st.sampled_from(
    ["batch_size", "gradient_checkpointing", "dtype", "resolution", "arch", "name_or_path", "quantize",
     "linear", "rank", "width", "samples", "prompts", "num_frames", "datasets", "low_vram", "optimizer",
     "device"]
)  # fmt: skip
_section = st.one_of(
    st.dictionaries(_keys, _values, max_size=6),
    st.lists(st.dictionaries(_keys, _values), max_size=2),
    _values,
)
_sections = st.dictionaries(
    st.sampled_from(["train", "model", "network", "sample", "datasets", "device"]), _section, max_size=6
)


@given(_sections)
def test_any_config_shape_gives_facts_and_rules_never_raise(data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data, allow_unicode=True)
    f = build(text, prose="OOM on my 4090")
    findings, failed = run_rules(f)
    assert failed == []
    assert all(x.rule_id for x in findings)


@pytest.mark.parametrize(
    "text",
    [
        'Program is using GPU 0 when told to use "GPU 2".',
        'it is told to use "GPU 1", but actually it is using GPU 2',
        "I get OOM errors because it is trying to run on the wrong card.",
        '"GPU 0" is actually GPU 1.',
        "設定で GPU 1 を指定したのに、実際には GPU 0 で学習が動いています",
        "違うGPUで学習が始まってOOMになります",
        "it trains on the wrong GPU for some reason",
        "it loads on the wrong GPU, for example GPU 0",
    ],
)
def test_the_user_saying_the_run_lands_on_another_card_is_read(text: str) -> None:
    assert read_prose(text).said.get("wrong_gpu.wrong_gpu") is not None


@pytest.mark.parametrize(
    "text",
    [
        "I have 2 GPUs, GPU 0 is a 3090 and GPU 1 is a 4090.",
        "I use GPU 0 for display and GPU 1 for training.",
        "I picked the wrong GPU to buy lol",
        "It OOMs on GPU 0, the 24 GB card, which is the one I chose.",
        "別のGPUを買いました",
        # "actually" with no card in use after it, or the same card twice.
        "I use GPU 0 for display, actually GPU 1 is my 3090.",
        "I set batch size 4 on GPU 0 and it actually OOMed on GPU 0.",
        # A card not suited to the model, not a run on another card.
        "Maybe I am using the wrong GPU for Flux, 8GB is not enough?",
        "am I using the wrong card to train Qwen?",
        "GPU 0 を指定したのに GPU 0 でも OOM になります",
    ],
)
def test_naming_several_cards_is_not_a_wrong_card(text: str) -> None:
    assert read_prose(text).said.get("wrong_gpu.wrong_gpu") is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Even after manually closing these applications, the issue persists.", True),
        ("closing them didn't help", True),
        ("I closed everything and it still OOMs", True),
        ("ComfyUI を閉じても同じエラーが出ます", True),
        ("I closed ComfyUI and now it works!", False),
        ("closing the apps fixed it", False),
        ("Should I close ComfyUI while training?", False),
        ("after closing the job the VRAM was freed", False),
        ("ComfyUI を閉じてもいいですか？同じエラーが出ます", False),
        ("Chrome を終了させても同じエラーです", True),
        ("タスクキルしても OOM になります", True),
        ("解像度を落としても同じエラーです", False),  # a setting lowered, not a program closed
    ],
)
def test_the_user_saying_closing_the_programs_did_not_help_is_read(text: str, said: bool) -> None:
    assert (read_prose(text).said.get("other_process_on_gpu.closed_others") is not None) == said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("do I need to turn on gradient checkpointing or something? I don't see it anywhere", True),
        ("I set gradient_checkpointing: false to go faster", True),
        ("turned GC off for speed", True),
        ("勾配チェックポイントをオンにした方がいいですか", True),
        ("GCをオフにしています", True),  # no word boundary between GC and を
        ("should I use gradient checkpoint?", True),
        ("NGCのコンテナでGPUを有効にした", False),
        ("batch is 1 already and it crashed at step 37", False),
        ("the GC collector freed nothing", False),
    ],
)
def test_the_user_naming_gradient_checkpointing_is_read(text: str, said: bool) -> None:
    assert (read_prose(text).gc_words is not None) == said


def test_case_105_asks_about_gradient_checkpointing_and_its_config_has_no_key() -> None:
    from diagnosis import diagnose
    from tests.conftest import CORPUS

    case = next(CORPUS.glob("*/105*"))
    report = diagnose([(case / "input.txt").read_text(encoding="utf-8")])
    assert report.facts.says_gc and not report.facts.gc_explicit
    assert report.facts.evidence["user_gc"].source == "user"
