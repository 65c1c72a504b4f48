"""The rule `video_frames_heavy` (diagnosis/rules/video_frames_heavy.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.estimate import largest_that_fits
from diagnosis.estimate.fit import card_fit
from diagnosis.facts_model import Facts
from tests.rules.helpers import (
    ALL_ON,
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


# --- how far the fix cuts: the memory estimate, where the family and the card are known ---------------


def _light_wan(frames: int, buckets: list[int], vram_gib: float | None, batch: int = 1) -> Facts:
    f = facts(
        arch="wan22_14b",
        name="wan2.2",
        num_frames=frames,
        buckets=buckets,
        vram_gib=vram_gib,
        batch_size=batch,
        **ALL_ON,
    )
    f.datasets[0].num_frames = frames
    return f


def test_the_estimate_chooses_the_longest_clip_that_fits_the_card() -> None:
    # Wan 2.2 14B with its low-memory options on, 121 frames at 512 × batch 2 on 48 GB: the table
    # would halve the clip (61) and lets up to 81 through at 512; the estimate fits with the margin
    # at 65.
    f = _light_wan(121, [512], 48.0, batch=2)
    card = card_fit(f)
    assert card is not None
    grid = list(range(81, 4, -4))  # 4k+1, shorter than the clip, within the table's 81
    best = largest_that_fits(card.job, "frames", grid, card.usable, card.floor)
    result = check("video_frames_heavy", f)
    assert best == result.params["new_frames"] == 65
    assert {e.path: e.value for e in result.edits} == {("datasets", 0, "num_frames"): 65}


def test_the_cut_stays_within_what_the_config_alone_lets_through() -> None:
    # 81 frames at 512 on 32 GB: the estimate would fit 57, but the card's table flags more than 49 on
    # the corrected config alone, so the step goes to 49 (the table alone halves it to 41).
    f = _light_wan(81, [512], 32.0)
    card = card_fit(f)
    assert card is not None
    assert largest_that_fits(card.job, "frames", range(77, 4, -4), card.usable) == 57
    result = check("video_frames_heavy", f)
    assert result.params["new_frames"] == 49 and result.params["sized"] is True
    assert check("video_frames_heavy", _light_wan(49, [512], 32.0)) is None


def test_the_buckets_the_clip_keeps_go_with_the_frames() -> None:
    result = check("video_frames_heavy", _light_wan(81, [512, 768], 32.0))
    assert result.params["new_frames"] == 49 and result.params["new_max_bucket"] == 512
    assert result.params["sized_cut"] is True


def test_without_a_card_the_clip_is_halved_as_before() -> None:
    result = check("video_frames_heavy", _light_wan(81, [512], None))
    assert result.params["new_frames"] in (41, 33) and "sized" not in result.params


def test_the_step_says_why_this_many_frames_in_both_languages() -> None:
    f = _light_wan(81, [512], 32.0)
    assert texts("video_frames_heavy", f, "en")["action"] == (
        "Lower Num Frames from 81 to 49: the estimate fits 32 GB with margin at 49"
    )
    assert texts("video_frames_heavy", f, "ja")["action"] == (
        "Num Frames を 81 から 49 に下げる（推定では、49 フレームなら VRAM 32 GB に余裕を持って収まります）"
    )
    cut = _light_wan(81, [512, 768], 32.0)
    cut.vram_source = "assumed"
    assert (
        "keep the buckets up to 512: the estimate fits the assumed 32 GB card"
        in texts("video_frames_heavy", cut, "en")["action"]
    )
    assert "VRAM 32 GB と仮定した GPU" in texts("video_frames_heavy", cut, "ja")["action"]
