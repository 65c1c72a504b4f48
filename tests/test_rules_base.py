"""The helpers the rules share (diagnosis/rules/base.py)."""

from __future__ import annotations

from diagnosis.rules.base import options_off
from tests.rules.helpers import facts


def test_the_options_still_off_name_quantize_te_only_where_the_ui_has_it() -> None:
    # SD 1.5 / SDXL: AI Toolkit's UI has no quantization section (config-reference §4.3); Lumina 2
    # shows Quantize Text Encoder (its example sets it).
    sdxl = facts(arch="sdxl", name="sdxl-base-1.0", quantize=False, quantize_te=False)
    assert options_off(sdxl) == ["Cache Text Embeddings"]
    lumina = facts(arch="lumina2", name="Alpha-VLLM/Lumina-Image-2.0", quantize=False, quantize_te=False)
    assert options_off(lumina) == ["Cache Text Embeddings", "Quantize Text Encoder"]
