"""The rule `risky_family_gc_off` (diagnosis/rules/risky_family_gc_off.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from tests.rules.helpers import assert_fix_clears, assert_said_in_both_languages, check, facts, shipped


def test_risky_family_fires_on_the_articles_combination() -> None:
    f = facts(arch="zimage", name="Tongyi-MAI/Z-Image-Turbo", gradient_checkpointing=False, gc_explicit=True)
    f.batch_size = 4
    f.buckets, f.max_bucket = [1024, 1536], 1536
    found = check("risky_family_gc_off", f)
    assert found.params == {"family": "zimage", "family_label": "Z-Image Turbo"}


def test_risky_family_needs_the_combination() -> None:
    f = facts(arch="zimage", name="Tongyi-MAI/Z-Image-Turbo", gradient_checkpointing=False, gc_explicit=True)
    f.batch_size = 1  # 1024-1536 buckets but batch 1: not the article's danger
    assert check("risky_family_gc_off", f) is None
    assert check("gc_off", f) is not None


def test_risky_family_qwen_edit_with_several_control_images() -> None:
    f = facts(arch="qwen_image_edit_plus", name="Qwen/Qwen-Image-Edit-2509")
    f.gradient_checkpointing, f.gc_explicit, f.control_images = False, True, 2
    assert check("risky_family_gc_off", f) is not None
    f.control_images = 1
    assert check("risky_family_gc_off", f) is None


ZIMAGE = ("zimage", "Tongyi-MAI/Z-Image-Turbo")


def test_risky_family_is_said_in_both_languages() -> None:
    f = facts(*ZIMAGE, gradient_checkpointing=False, gc_explicit=True, batch_size=4, buckets=[1024, 1536])
    assert_said_in_both_languages("risky_family_gc_off", f)


def test_risky_family_fix_turns_checkpointing_back_on() -> None:
    text = shipped(
        "train_lora_flux_24gb",
        ("name_or_path: black-forest-labs/FLUX.1-dev", f"name_or_path: {ZIMAGE[1]}"),
        ("is_flux: true", f"arch: {ZIMAGE[0]}"),
        ("gradient_checkpointing: true", "gradient_checkpointing: false"),
        ("batch_size: 1", "batch_size: 4"),
        ("resolution: [512, 768, 1024]", "resolution: [1024, 1536]"),
    )
    assert_fix_clears("risky_family_gc_off", text)
