"""The rule `video_frames_heavy` (diagnosis/rules/video_frames_heavy.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from tests.rules.helpers import (
    LANGS,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    facts,
    shipped,
    texts,
)


def _wan(frames: int, buckets: list[int], vram_gib: float = 24.0) -> Facts:
    f = facts(arch="wan22_14b", name="wan2.2", num_frames=frames, buckets=buckets, vram_gib=vram_gib)
    f.datasets[0].num_frames = frames
    return f


def test_video_frames_heavy() -> None:
    found = check("video_frames_heavy", _wan(81, [512, 768, 1024]))
    assert found.params["new_frames"] < 81 and (found.params["new_frames"] - 1) % 4 == 0


def test_81_frames_are_halved_on_the_grid_not_cut_to_a_token_count() -> None:
    # 81 frames on a 24 GB card with buckets to 1024: half the clip (41), or 33 where even the 512
    # bucket holds no more (issue #19: it was cut to 9 frames, half a second of the clip).
    found = check("video_frames_heavy", _wan(81, [512, 768, 1024]))
    edits = {e.path: e.value for e in found.edits}
    assert found.params["new_frames"] == edits[("datasets", 0, "num_frames")]
    assert found.params["new_frames"] in (41, 33), found.params


def test_a_halved_clip_too_big_for_the_largest_bucket_drops_that_bucket() -> None:
    found = check("video_frames_heavy", _wan(81, [512, 768, 1024]))
    edits = {e.path: e.value for e in found.edits}
    kept = edits[("datasets", 0, "resolution")]
    assert 1024 not in kept and 512 in kept and found.params["new_max_bucket"] == max(kept)


def test_a_clip_that_fits_when_halved_keeps_its_buckets() -> None:
    found = check("video_frames_heavy", _wan(81, [512], vram_gib=32.0))
    assert found.params["new_frames"] == 41 and "new_max_bucket" not in found.params
    assert [e.path for e in found.edits] == [("datasets", 0, "num_frames")]


def test_video_single_frame_is_fine() -> None:
    assert check("video_frames_heavy", facts(arch="wan22_14b", name="wan2.2", num_frames=1)) is None


def test_video_frames_are_said_in_both_languages() -> None:
    assert_said_in_both_languages("video_frames_heavy", _wan(81, [512]))
    assert_said_in_both_languages("video_frames_heavy", _wan(81, [512, 768, 1024]))


def test_the_dropped_buckets_are_named_in_both_languages() -> None:
    for lang in LANGS:
        action = texts("video_frames_heavy", _wan(81, [512, 768, 1024]), lang)["action"]
        assert "81" in action and "33" in action and "512" in action and "1024" not in action, (lang, action)


def test_video_frames_fix_lowers_the_frames() -> None:
    # The first `num_frames` of the template is the dataset's.
    text = shipped("train_lora_wan22_14b_24gb", ("num_frames: 1", "num_frames: 81"))
    assert_fix_clears("video_frames_heavy", text)


def test_after_the_buckets_are_cut_the_next_step_is_not_to_cut_them_again() -> None:
    # The fix kept the 512 bucket only: "still out of memory? lower the buckets" would ask for nothing.
    for lang in LANGS:
        shown = texts("video_frames_heavy", _wan(81, [512, 768, 1024]), lang)
        assert "Resolutions" not in shown["next"] and "4k+1" in shown["next"], (lang, shown["next"])
