"""The registry finds every module's `SPECS` by itself: adding a rule touches its module and the
catalogues only."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import diagnosis.rules as rules
from diagnosis.rules import RULE_IDS, catalogue, discover

# The order the catalogue had when `_SPECS` was a hand-written list: discovery must keep it.
_ORDER_BEFORE = (
    "gc_off", "risky_family_gc_off", "batch_too_large", "bucket_too_large", "preview_heavy",
    "no_quantize_big_model", "no_low_vram", "text_encoder_not_unloaded_or_cached", "video_frames_heavy",
    "dtype_fp32", "latents_not_cached", "train_text_encoder_on", "optimizer_full_precision_states",
    "high_rank", "other_process_on_gpu", "fragmentation", "system_ram_oom", "windows_pagefile",
    "gpu_too_small_for_model", "shm_too_small", "regression_after_update", "not_oom", "input_incomplete",
    "yaml_invalid", "secret_in_input",
)  # fmt: skip

_MODULE = """
from diagnosis.models import Applicability, Severity
from diagnosis.rules.base import RuleSpec

SPECS = (
    RuleSpec(id="{rid}", order={order}, severity=Severity.INFO, applicability=Applicability.ADVICE,
             reads=(), rank=50, check=lambda f: None),
)
"""


def test_rule_ids_keep_their_order() -> None:
    assert RULE_IDS == _ORDER_BEFORE


def test_every_module_of_the_package_lists_its_specs() -> None:
    listed = set()
    for info in pkgutil.iter_modules(rules.__path__):
        module = importlib.import_module(f"diagnosis.rules.{info.name}")
        listed |= {spec.id for spec in getattr(module, "SPECS", ())}
    assert listed == {spec.id for spec in catalogue()}


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "h3b_extra_rules"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        yield root
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.split(".")[0] == "h3b_extra_rules"]:
            del sys.modules[name]


def test_a_new_module_is_picked_up_in_its_order(package: Path) -> None:
    (package / "late.py").write_text(_MODULE.format(rid="late_rule", order=900), encoding="utf-8")
    (package / "early.py").write_text(_MODULE.format(rid="early_rule", order=5), encoding="utf-8")
    (package / "helpers.py").write_text("X = 1\n", encoding="utf-8")
    found = discover(importlib.import_module("h3b_extra_rules"))
    assert [spec.id for spec in found] == ["early_rule", "late_rule"]


def test_a_reused_order_is_refused(package: Path) -> None:
    (package / "one.py").write_text(_MODULE.format(rid="one_rule", order=7), encoding="utf-8")
    (package / "two.py").write_text(_MODULE.format(rid="two_rule", order=7), encoding="utf-8")
    with pytest.raises(ValueError, match="order"):
        discover(importlib.import_module("h3b_extra_rules"))
