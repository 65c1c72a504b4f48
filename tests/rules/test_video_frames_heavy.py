"""The rule `video_frames_heavy` (diagnosis/rules/video_frames_heavy.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from tests.rules.helpers import assert_fix_clears, assert_said_in_both_languages, check, facts, shipped


def test_video_frames_heavy() -> None:
    f = facts(arch="wan22_14b", name="wan2.2", num_frames=81)
    f.datasets[0].num_frames = 81
    found = check("video_frames_heavy", f)
    assert found.params["new_frames"] < 81 and (found.params["new_frames"] - 1) % 4 == 0


def test_video_single_frame_is_fine() -> None:
    assert check("video_frames_heavy", facts(arch="wan22_14b", name="wan2.2", num_frames=1)) is None


def test_video_frames_are_said_in_both_languages() -> None:
    f = facts(arch="wan22_14b", name="wan2.2", num_frames=81)
    f.datasets[0].num_frames = 81
    assert_said_in_both_languages("video_frames_heavy", f)


def test_video_frames_fix_lowers_the_frames() -> None:
    # The first `num_frames` of the template is the dataset's.
    text = shipped("train_lora_wan22_14b_24gb", ("num_frames: 1", "num_frames: 81"))
    assert_fix_clears("video_frames_heavy", text)
