"""Golden snapshots of whole replies, in both languages.

Hand-built reports (tests/golden/cases.py) and the corpus inputs in CORPUS_CASES, through the real
engine, are checked; a missing snapshot fails. Regenerate after a
deliberate change with `UPDATE_GOLDEN=1 pytest tests/test_render_golden.py`, then read the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.render import DiscordReply, render_discord
from tests.golden.cases import CASES

GOLDEN = Path(__file__).parent / "golden"
CORPUS = Path(__file__).parent / "corpus"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
LANGS = ("en", "ja")
# Corpus cases whose replies through the engine are snapshotted.
CORPUS_CASES = (
    "101-flux-dev-gc-off-batch4-multibucket-oom-step2",
    "102-zimage-turbo-gc-off-1024-1536-batch4-ui-json",
    "103-qwen-image-2512-first-preview-1536-40steps-gc-on",
    "104-wan22-14b-low-vram-off-oom-loading-transformer",
    "105-chroma-gc-missing-1536-bucket-cuda-error-step37",
    "106-flux-dev-quantize-false-24gb-oom-loading-t5",
    "107-sdxl-3060-comfyui-holding-vram-log-only",
    "108-flux2-klein9b-layer-offload-sigkill-32gb-ram",
    "109-flux-dev-hf-401-gated-not-oom-gc-off",
    "110-kontext-1024-bucket-hf-token-in-config",
    "111-qwen-edit-2511-tab-indent-yaml-invalid",
    "112-flex1-batch8-gc-on-24gb-accumulation",
    # The second collection (issue #16): a slowdown (and a spill), a slowdown after an update, an error
    # that is not an OOM, a hang, a silent exit, the run on another card, a bigger batch being slower.
    "202-rtx3060-12gb-rank128-speed-degrades-gpu-power-drop",
    "203-krea2-5070ti-14x-slower-after-update",
    "204-krea2-16gb-layer-offload-qfloat8-assertion-not-oom",
    "209-zimage-stuck-at-step-0-no-error",
    "212-sdxl-5070ti-job-exits-code-0-after-restart",
    "213-multi-gpu-cuda-visible-devices-not-honored",
    "223-a40-batch4-slower-per-iteration-not-oom",
)
# Inputs of our own (tests/golden/inputs): the examples' log alone, a hang while quantizing, a silent exit.
INPUT_CASES = ("log-only-oom-training-step", "stall-quantizing", "silent-exit-code-0")


def snapshot(reply: DiscordReply) -> str:
    """The reply as a reader sees it: the message, each embed, and the attached files' names."""
    parts = ["<<content>>", reply.content]
    for embed in reply.embeds:
        parts += [f"<<embed: {embed.get('title', '')}>>", embed.get("description", "")]
    for f in reply.files:
        parts.append(f"<<file: {f.name}, {len(f.data)} bytes>>")
    if reply.whole_config is not None:
        whole = reply.whole_config
        parts.append(f"<<offered privately: {whole.name}, {len(whole.data)} bytes>>")
    return "\n".join(parts) + "\n"


def check(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"missing snapshot {path.name}: run with UPDATE_GOLDEN=1 and read the result")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed; UPDATE_GOLDEN=1 after review"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_hand_built_reply_matches_snapshot(case: str, lang: str) -> None:
    report = CASES[case]()
    check(GOLDEN / "hand" / f"{case}.{lang}.md", snapshot(render_discord(report, lang=lang)))


@pytest.mark.parametrize("lang", LANGS)
def test_next_step_reply_matches_snapshot(lang: str) -> None:
    report = CASES["flux_gc_off_step2"]()
    check(
        GOLDEN / "hand" / f"flux_gc_off_step2.step2.{lang}.md",
        snapshot(render_discord(report, lang=lang, step=2)),
    )


def _corpus_reply(case: str, lang: str) -> DiscordReply:
    folder = CORPUS / "synthetic" / case
    if not folder.exists():
        folder = CORPUS / "cases" / case
    text = (folder / "input.txt").read_text(encoding="utf-8")
    return render_discord(diagnose([text], sources=["message 1"]), lang=lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", CORPUS_CASES)
def test_corpus_reply_matches_snapshot(case: str, lang: str) -> None:
    check(GOLDEN / "corpus" / f"{case}.{lang}.md", snapshot(_corpus_reply(case, lang)))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", INPUT_CASES)
def test_input_reply_matches_snapshot(case: str, lang: str) -> None:
    text = (GOLDEN / "inputs" / f"{case}.txt").read_text(encoding="utf-8")
    reply = render_discord(diagnose([text], sources=["message 1"]), lang=lang)
    check(GOLDEN / "inputs" / f"{case}.{lang}.md", snapshot(reply))
