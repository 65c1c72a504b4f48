"""`video_frames_heavy`: Too many video frames for this card."""

from __future__ import annotations

from typing import Any

from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.models import Applicability, ConfigEdit, Finding, Phase, Severity
from diagnosis.rules.base import (
    Placement,
    RuleSpec,
    checks_config,
    ds_ev,
    family,
    in_phases,
    model_cut,
    sized_params,
    step_oom,
    then_params,
    vram,
)

# The bucket `frames_ok` is given for (families.yaml), and the one assumed when a dataset names none.
_BASE_BUCKET = 512


def _grid(frames: int) -> int:
    """Video models take 4k+1 frames: the largest such count not above `frames`."""
    return max(1, (frames - 1) // 4 * 4 + 1)


def _fits(f: Facts, bucket: int) -> int:
    """The frames a clip may have at this bucket on this card (memory grows with frames × area)."""
    return _grid(int(family(f).frames_ok_for(vram(f)) * _BASE_BUCKET**2 / bucket**2))


def _cut(f: Facts, ds: DatasetFacts, at: Facts | None) -> tuple[int, list[int], bool]:
    """The dataset's frames and buckets after the fix, and whether the memory estimate chose them. A
    clip is cut by what memory needs, never to the frame budget of its largest bucket (81 frames at
    1024 would become 5). The estimate picks the longest clip on the 4k+1 grid, shorter than it is
    and within what the smallest bucket holds by the card's table (a longer one the config alone
    would flag again), at which the job fits with the margin. Without it: halve the clip on the grid,
    or less only when even the smallest bucket cannot hold half. Then drop the buckets that cannot
    hold the shorter clip."""
    buckets = ds.resolutions or [_BASE_BUCKET]
    most = _fits(f, min(buckets))

    def kept(frames: int) -> list[int]:
        return [b for b in buckets if _fits(f, b) >= frames] or [min(buckets)]

    # A clip of one frame is an image: the estimate chooses among clips of 5 frames and more.
    candidates = range(_grid(min(ds.num_frames - 1, most)), 4, -4)
    sized = model_cut(f, at, "frames", candidates, tied=lambda frames: {"bucket": max(kept(frames))})
    frames = sized if sized is not None else min(_grid((ds.num_frames - 1) // 2 + 1), most)
    return frames, kept(frames), sized is not None


def _over(f: Facts, ds: DatasetFacts) -> bool:
    return ds.num_frames > 1 and ds.num_frames > _fits(f, max(ds.resolutions or [_BASE_BUCKET]))


def _edits(f: Facts, cuts: list[tuple[DatasetFacts, int, list[int], bool]]) -> list[ConfigEdit]:
    edits: list[ConfigEdit] = []
    for ds, frames, kept, _ in cuts:
        edits.append(ConfigEdit(("datasets", ds.index, "num_frames"), frames))
        key = f"datasets[{ds.index}].resolution"
        if kept != ds.resolutions and key in f.paths:
            value: Any = kept if len(ds.resolutions) > 1 else kept[0]
            edits.append(ConfigEdit(f.paths[key], value))
    return edits


def check_video_frames(f: Facts, at: Facts | None = None) -> Finding | None:
    if not checks_config(f) or not family(f).is_video or f.num_frames <= 1:
        return None
    # The datasets as the ladder leaves them (an earlier step may have dropped buckets); the card, the
    # family and the evidence are the case's.
    datasets = (at if at is not None else f).datasets
    over = [ds for ds in datasets if _over(f, ds)]
    if not over:
        return None
    # Each dataset's cut once: the params, the dropped buckets and the edits all read it.
    cuts = [(ds, *_cut(f, ds, at)) for ds in over]
    _, frames, kept, sized = cuts[0]
    dropped = any(b not in cut for ds, _, cut, _ in cuts for b in ds.resolutions)
    return SPEC.finding(
        evidence=ds_ev(f, over, "num_frames", "resolution"),
        params={
            # The cut's reason first: its wording of the action wins over that of the dropped buckets.
            **sized_params(f, sized, "sized_cut" if dropped else "sized"),
            "frames": over[0].num_frames,
            "new_frames": frames,
            **({"buckets_cut": True, "new_max_bucket": max(kept)} if dropped else {}),
            **then_params(f),
        },
        edits=_edits(f if at is None else at, cuts),
        severity=Severity.ERROR if step_oom(f) else Severity.WARNING,
    )


SPEC = RuleSpec(
    id="video_frames_heavy",
    order=90,
    severity=Severity.WARNING,
    applicability=Applicability.CHANGES_RESULTS,
    reads=("num_frames", "datasets", "family", "vram_gib"),
    rank=28,
    check=check_video_frames,
    resize=check_video_frames,
    params=frozenset(
        {
            "frames",
            "new_frames",
            "buckets_cut",
            "new_max_bucket",
            "then",
            "paths_off",
            "sized",
            "sized_assumed",
            "sized_cut",
            "sized_cut_assumed",
            "card_gb",
        }
    ),
    placement=Placement(
        phases={Phase.LATENT_CACHING: 20, Phase.TRAINING_STEP: 50},
        last_in=in_phases(Phase.MODEL_LOAD, Phase.QUANTIZE),
        ruled_out_by=frozenset({"load", "host"}),
    ),
)
