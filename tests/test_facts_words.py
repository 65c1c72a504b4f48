"""Facts written in the user's own words (issue #16): the model and its variant, the card and its VRAM,
system RAM and swap, the OS, and what happened (slow, stuck, exited, no error), in English and
Japanese, each with its source saying it came from the user's words."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.facts_prose import read_prose
from diagnosis.jsondoc import report_to_dict


def facts_of(text: str) -> dict[str, object]:
    return dict(report_to_dict(diagnose([text]))["facts"])


@pytest.mark.parametrize(
    ("text", "family", "label"),
    [
        ("Training a FLUX.1-dev LoRA and it runs out of memory", "flux", "FLUX.1-dev"),
        ("Qwen Image Edit 2509 で OOM になります", "qwen_image_edit", "Qwen-Image-Edit-2509"),
        ("Z-Image Turbo lora, out of memory at step 0", "zimage", "Z-Image Turbo"),
        ("Wan 2.2 14B t2v keeps getting OOM", "wan22_14b", "Wan 2.2 14B"),
        ("SDXLでメモリ不足です", "sdxl", "SDXL"),
        # The first sentence that names a model is the one trained; a model named after it is a comparison.
        (
            "When training a FLUX LoRA it hangs at the baseline samples. The same settings with SDXL work.",
            "flux",
            "FLUX.1",
        ),
        ("Z-Image でOOMになります。SDXLなら動きます。", "zimage", "Z-Image"),
        ("FLUX.1 Kontext dev LoRA, out of memory at step 0", "flux_kontext", "FLUX.1 Kontext"),
    ],
)
def test_the_model_named_in_words(text: str, family: str, label: str) -> None:
    report = diagnose([text])
    assert (report.facts.family, report.facts.family_label) == (family, label)
    assert report.facts.family_source == "user_words"
    assert report.facts.evidence["family"].source == "user"


def test_a_config_names_the_model_before_the_words() -> None:
    config = (
        "config:\n  process:\n    - type: sd_trainer\n      model:\n"
        "        name_or_path: black-forest-labs/FLUX.1-dev\n"
    )
    report = diagnose([config, "I think my SDXL run is out of memory"])
    assert report.facts.family == "flux" and report.facts.family_source == "config"


@pytest.mark.parametrize(
    ("text", "vram", "name"),
    [
        ("OOM on a 5090.", 32.0, "RTX 5090"),
        ("4090です。OOMになります", 24.0, "RTX 4090"),
        ("16GB nvidia card, out of memory", 16.0, None),
        ("RTX 3060 12GB, out of memory", 12.0, "RTX 3060"),
        ("VRAM 24GB でメモリ不足", 24.0, None),
    ],
)
def test_the_card_named_in_words_is_not_asked_for_again(text: str, vram: float, name: str | None) -> None:
    report = diagnose([text])
    assert report.facts.vram_gib == vram and report.facts.vram_source == "user_words"
    if name is not None:
        assert report.facts.gpu_name == name
    asked = [f.params.get("missing") for f in report.findings if f.rule_id == "input_incomplete"]
    assert all("gpu" not in (m or []) for m in asked)


def test_an_explicit_card_wins_over_the_words() -> None:
    report = diagnose(["OOM on a 5090."], gpu_vram_gib=16)
    assert (report.facts.vram_gib, report.facts.vram_source) == (16.0, "user")


@pytest.mark.parametrize(
    ("text", "ram", "swap", "os"),
    [
        ("Windows 11, 64GB RAM, 25GB of swap. OOM while loading", 64.0, 25.0, "windows"),
        ("Win11 , Geforce 5070ti , 64GB DDR5 RAM", 64.0, None, "windows"),
        ("メモリ32GB、ページファイル 16GB の Windows です。落ちます", 32.0, 16.0, "windows"),
        ("Ubuntu 22.04 with 128 GB of system memory", 128.0, None, "linux"),
        ("training under WSL2 on Windows, it gets killed", None, None, "wsl"),
    ],
)
def test_host_memory_and_os_in_words(text: str, ram: float | None, swap: float | None, os: str) -> None:
    facts = facts_of(text)
    assert (facts["system_ram_gib"], facts["swap_gib"], facts["os"]) == (ram, swap, os)
    assert facts["os_source"] == "user_words"


def test_the_json_facts_say_where_each_value_came_from() -> None:
    facts = facts_of("FLUX.1-dev on a 4090, Windows 11, 64GB RAM: out of memory at step 2")
    assert (facts["family"], facts["family_source"]) == ("flux", "user_words")
    assert (facts["vram_gib"], facts["vram_source"]) == (24.0, "user_words")
    assert (facts["os"], facts["os_source"], facts["system_ram_gib"]) == ("windows", "user_words", 64.0)
    json.dumps(facts)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Training speed degrades significantly after 200 steps", {"words.slow"}),
        ("New version is 14x slower", {"words.slow"}),
        ("学習がすごく遅くなりました", {"words.slow"}),
        ("stuck at Step 0 of 3000. There are no other error messages.", {"words.stuck", "words.no_error"}),
        ("Quantizing transformer で止まったまま進みません", {"words.stuck"}),
        ("It just says exit job with error 0", {"words.exits"}),
        ("直接退出终端，无报错信息", {"words.exits", "words.no_error"}),
        ("学習が途中で落ちます。エラーは出ません", {"words.exits", "words.no_error"}),
    ],
)
def test_what_happened_in_words(text: str, said: set[str]) -> None:
    heard = {key for key in read_prose(text).said if key.startswith("words.")}
    assert heard == said


@pytest.mark.parametrize(
    "text", ["my batch size is 4 and buckets are 1024", "config attached", "ありがとうございます"]
)
def test_plain_words_state_nothing(text: str) -> None:
    hints = read_prose(text)
    assert not any(key.startswith("words.") for key in hints.said)
    assert (hints.os, hints.system_ram_gib, hints.swap_gib, hints.gpu_number, hints.family_words) == (
        None,
        None,
        None,
        None,
        None,
    )


@given(st.text(max_size=400))
def test_reading_words_never_fails_and_quotes_the_users_lines(text: str) -> None:
    hints = read_prose(text)
    lines = [line.strip() for line in text.splitlines()]
    for quote in (
        hints.os_quote,
        hints.system_ram_quote,
        hints.swap_quote,
        hints.gpu_quote,
        hints.family_quote,
    ):
        assert (
            quote is None
            or quote.removesuffix("…") in " ".join(lines)
            or any(line.startswith(quote.removesuffix("…")) for line in lines)
        )


@pytest.mark.parametrize(
    ("text", "vram", "phase"),
    [
        ("Qwen Image Edit 2509 を 16GB で学習するとメモリ不足になります", 16.0, None),
        ("train qwen on 16GB, OOM every time", 16.0, None),
        ("16GBのGPUです。メモリ不足になります", 16.0, None),
        ("I have 64GB RAM and a 4090", None, None),
        ("I encounter CUDA out of memory, with 24G VRAM.", 24.0, None),
        ("Wan 2.2 14B gets stuck at Loading checkpoint shards forever", None, "model_load"),
        ("Quantizing transformer で止まったまま進みません", None, "quantize"),
        # The same phases said in Japanese as in English (a review found Japanese posts got none).
        ("トレーニングは正常に開始し、数ステップ後に停止します。メモリ不足です", None, "training_step"),
        ("it crashes with out of memory after a few steps", None, "training_step"),
        ("それでも Transformer の読み込み中に OOM になります", None, "model_load"),
        ("学習の途中でメモリ不足になります", None, "training_step"),
    ],
)
def test_a_size_and_a_phase_in_words(text: str, vram: float | None, phase: str | None) -> None:
    hints = read_prose(text)
    assert hints.vram_gib == vram
    assert (hints.phase.value if hints.phase else None) == phase


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("OOMになります。4090です", None),
        ("latentのキャッシュで止まったままです", "not_oom"),
        ("3秒/it→40秒/itになりました。Windows 11、3060 12GB", "vram_spill_to_shared_memory"),
        ("CUDA_VISIBLE_DEVICESを設定しても別のGPUを使ってしまいます", "wrong_gpu"),
    ],
)
def test_japanese_reports_are_read(text: str, rule: str | None) -> None:
    report = diagnose([text])
    if rule is None:
        assert report.facts.has_oom and report.facts.vram_gib == 24.0
    else:
        assert rule in {f.rule_id for f in report.findings}
