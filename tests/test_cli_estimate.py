"""`oomcheck estimate`: a table per component and phase, the card beside it, JSON for scripts."""

from __future__ import annotations

import io
import json
from pathlib import Path

from oomcheck.cli import EXIT_CLEAN, EXIT_USAGE, main
from tests.conftest import CORPUS, EXAMPLES

CONFIG = EXAMPLES / "flux_lora_24gb_gc_off.yaml"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_text_is_a_table_per_component_and_phase_with_the_card() -> None:
    code, out, _ = run("estimate", str(CONFIG), "--lang", "en", "--gpu-vram", "24")
    assert code == EXIT_CLEAN
    header = out.splitlines()[2]
    for phase in ("load", "quantize", "caching", "preview", "training step"):
        assert phase in header
    rows = {line.split("  ")[0] for line in out.splitlines()}
    assert {"weights", "text encoder", "activations", "total"} <= rows
    assert "GPU: 24 GB (≈ 23.5 GiB usable). The job does not fit." in out  # GC off, batch 4


def test_the_card_changes_the_verdict_not_the_table() -> None:
    _, small, _ = run("estimate", str(CONFIG), "--lang", "en", "--gpu-vram", "24")
    _, big, _ = run("estimate", str(CONFIG), "--lang", "en", "--gpu-vram", "192")
    assert small.split("Peak:")[0] == big.split("Peak:")[0]
    assert "fits with margin" in big


def test_json_holds_every_phase_and_component() -> None:
    code, out, _ = run("estimate", str(CONFIG), "--format", "json", "--gpu-vram", "24")
    assert code == EXIT_CLEAN
    doc = json.loads(out)
    assert doc["family"] == "flux" and doc["card"] == {"vram_gb": 24.0, "usable_gib": 23.52, "assumed": False}
    phases = {p["phase"]: p for p in doc["phases"]}
    assert list(phases) == ["model_load", "quantize", "latent_caching", "sampling", "training_step"]
    step = phases["training_step"]
    assert step["low_gib"] < step["high_gib"]
    assert {c["name"] for c in step["components"]} >= {
        "weights",
        "text_encoder",
        "adapter",
        "activations",
        "overhead",
    }
    assert doc["peak"]["phase"] == "training_step" and doc["peak"]["fit"] == "over"
    assert "FLUX.1-dev" in doc["sources"]


def test_with_a_log_the_oom_message_wins(tmp_path: Path) -> None:
    case = CORPUS / "synthetic" / "103-qwen-image-2512-first-preview-1536-40steps-gc-on" / "input.txt"
    code, out, _ = run("estimate", str(case), "--format", "json")
    assert code == EXIT_CLEAN
    doc = json.loads(out)
    sampling = next(p for p in doc["phases"] if p["phase"] == "sampling")
    assert doc["observed_gib"] is not None
    assert sampling["low_gib"] >= doc["observed_gib"] - 0.01


def test_japanese() -> None:
    code, out, _ = run("estimate", str(CONFIG), "--lang", "ja", "--gpu-vram", "24")
    assert code == EXIT_CLEAN
    assert "学習ステップ" in out and "収まりません" in out


def test_no_config_or_an_unknown_model_is_a_usage_error(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n", encoding="utf-8"
    )
    code, out, err = run("estimate", str(log), "--lang", "en")
    assert code == EXIT_USAGE and not out and "no config" in err
    pixart = tmp_path / "pixart.yaml"
    pixart.write_text(
        "job: extension\nconfig:\n  name: x\n  process:\n    - type: sd_trainer\n"
        "      model:\n        name_or_path: PixArt-alpha/PixArt-Sigma-XL-2-1024-MS\n        arch: pixart\n",
        encoding="utf-8",
    )
    code, _, err = run("estimate", str(pixart), "--lang", "ja")
    assert code == EXIT_USAGE and "見積もれません" in err


def test_a_system_ram_oom_is_said_as_such_not_as_an_unknown_model() -> None:
    host_log = CORPUS / "cases" / "008-wan22-t2v-linux-oom-killer-system-ram" / "input.txt"
    code, out, err = run("estimate", str(CONFIG), str(host_log), "--lang", "en")
    assert code == EXIT_USAGE and not out
    assert "RAM running out" in err and "not known" not in err


def test_absurd_gpu_vram_is_a_usage_error() -> None:
    assert run("estimate", str(CONFIG), "--gpu-vram", "-3")[0] == EXIT_USAGE
