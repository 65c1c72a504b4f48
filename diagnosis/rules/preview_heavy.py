"""`preview_heavy`: The preview (sample generation) is heavy."""

from __future__ import annotations

from typing import Any

from diagnosis.facts_model import Facts
from diagnosis.families import thresholds
from diagnosis.models import Applicability, ConfigEdit, Effect, Evidence, Finding, Phase, Severity
from diagnosis.rules.base import (
    SAMPLING_PHASES,
    Placement,
    RuleSpec,
    all_phases_but,
    checks_config,
    ev,
    family,
    path,
    then_params,
    vram,
)

_MULTIPLE = 64  # sample sizes are rounded to the model's divisibility; 64 suits every family


def _shrink(width: int, height: int, side: int) -> tuple[int, int]:
    """Scale so the longer side is `side`, keeping the aspect ratio."""
    scale = side / max(width, height)
    return (
        max(_MULTIPLE, int(width * scale) // _MULTIPLE * _MULTIPLE),
        max(_MULTIPLE, int(height * scale) // _MULTIPLE * _MULTIPLE),
    )


def _size_edits(f: Facts, side: int) -> tuple[list[ConfigEdit], int | None, int | None]:
    edits: list[ConfigEdit] = []
    new_w = new_h = None
    w, h = f.sample_width or 512, f.sample_height or 512
    if max(w, h) > side:
        new_w, new_h = _shrink(w, h, side)
        if new_w != w:
            edits.append(ConfigEdit(path(f, "sample_width", ("sample", "width")), new_w))
        if new_h != h:
            edits.append(ConfigEdit(path(f, "sample_height", ("sample", "height")), new_h))
    for index, iw, ih in f.sample_items:
        iw2, ih2 = iw or w, ih or h
        if max(iw2, ih2) <= side:
            continue
        sw, sh = _shrink(iw2, ih2, side)
        if iw is not None:
            edits.append(ConfigEdit(("sample", "samples", index, "width"), sw))
        if ih is not None:
            edits.append(ConfigEdit(("sample", "samples", index, "height"), sh))
    return edits, new_w, new_h


def _params(
    f: Facts,
    has_preview: bool,
    new_w: int | None,
    new_h: int | None,
    new_steps: int | None,
    new_frames: int | None,
) -> dict[str, int]:
    """What is known of the preview; a value the input does not give is left out, not sent as None/0."""
    if not has_preview:
        return {}
    known = {
        "width": f.sample_width,
        "height": f.sample_height,
        "steps": f.sample_steps,
        "prompts": f.sample_prompts or None,
        "every": f.sample_every,
        "frames": f.sample_frames,
        # A value the fix leaves alone is reported as it is, so texts can always show "new" values.
        "new_width": new_w if new_w is not None else f.sample_width,
        "new_height": new_h if new_h is not None else f.sample_height,
        "new_steps": new_steps if new_steps is not None else f.sample_steps,
        "new_frames": new_frames if new_frames is not None else f.sample_frames,
    }
    return {k: v for k, v in known.items() if v is not None}


def _evidence(
    f: Facts, sampling_trouble: bool, over_size: bool, many_steps: bool, heavy_frames: bool, often: bool
) -> list[Evidence | None]:
    """The lines that make the preview heavy; with none over a threshold (an OOM while sampling), the
    size and steps the advice lowers."""
    names = ["phase"] if sampling_trouble else []
    if over_size:
        names += ["sample_width", "sample_height"]
    if many_steps:
        names.append("sample_steps")
    if heavy_frames:
        names.append("sample_frames")
    if often:
        names.append("sample_every")
    if not (over_size or many_steps or heavy_frames or often):
        names += ["sample_width", "sample_height", "sample_steps"]
    return ev(f, *names)


def check(f: Facts) -> Finding | None:
    t = thresholds()
    ok_side = t.preview_ok_for(vram(f))
    sampling_trouble = f.phase in SAMPLING_PHASES
    has_preview = checks_config(f) and f.sample_width is not None and not f.disable_sampling
    if not has_preview and not sampling_trouble:
        return None
    sides = [max(f.sample_width or 0, f.sample_height or 0)]
    sides += [max(w or f.sample_width or 0, h or f.sample_height or 0) for _, w, h in f.sample_items]
    over_size = has_preview and max(sides) > ok_side
    many_steps = has_preview and (f.sample_steps or 0) > t.preview_steps_max
    frames_ok = t.preview_frames_ok_for(vram(f))
    heavy_frames = has_preview and family(f).is_video and f.sample_frames > frames_ok
    often = has_preview and (
        f.sample_prompts >= t.preview_prompts_many and 0 < (f.sample_every or 0) <= t.preview_every_often
    )
    if not (over_size or many_steps or heavy_frames or often or sampling_trouble):
        return None

    edits: list[ConfigEdit] = []
    new_w = new_h = new_steps = new_frames = None
    # The preview's size and frames set its memory; its steps and how often it runs, only its time.
    lowers: set[Effect] = set()
    if has_preview:
        if over_size:
            size_edits, new_w, new_h = _size_edits(f, ok_side)
            edits += size_edits
            lowers.add(Effect.MEMORY)
        if many_steps:
            new_steps = t.preview_new_steps
            edits.append(ConfigEdit(path(f, "sample_steps", ("sample", "sample_steps")), new_steps))
            lowers.add(Effect.SPEED)
        if heavy_frames:
            new_frames = frames_ok
            edits.append(ConfigEdit(path(f, "sample_frames", ("sample", "num_frames")), new_frames))
            lowers.add(Effect.MEMORY)
        if often and not edits:
            edits.append(ConfigEdit(path(f, "sample_every", ("sample", "sample_every")), t.preview_new_every))
            lowers.add(Effect.SPEED)

    severity = (
        Severity.ERROR
        if sampling_trouble
        else (Severity.INFO if often and not (over_size or many_steps or heavy_frames) else Severity.WARNING)
    )
    params: dict[str, object] = {**_params(f, has_preview, new_w, new_h, new_steps, new_frames)}
    if params.get("prompts") == 1:
        params["one_prompt"] = True  # "1 prompt", not "1 prompts"
    if new_frames is not None:
        # A video preview: the step names the frame count it changes (alone, or with size or steps).
        params["lever"] = "frames" if len(edits) == 1 else "frames_more"
    # Skipping the first preview only helps when the first one is what fails (or nothing failed yet).
    params.update(then_params(f, prefix="periodic_" if f.phase == Phase.SAMPLING else ""))
    return SPEC.finding(
        evidence=_evidence(f, sampling_trouble, over_size, many_steps, heavy_frames, often),
        params=params,
        edits=edits,
        severity=severity,
        # Without a config to edit, the advice is both: a smaller size and fewer steps.
        effect=lowers.pop() if len(lowers) == 1 else Effect.BOTH,
    )


def _quotable(out: dict[str, Any]) -> dict[str, Any]:
    # A "new" value equal to the current one is not a change: the action names only what changes.
    if (out.get("new_width"), out.get("new_height")) == (out.get("width"), out.get("height")):
        out.pop("new_width", None)
        out.pop("new_height", None)
    if out.get("new_steps") == out.get("steps"):
        out.pop("new_steps", None)
    return out


SPEC = RuleSpec(
    id="preview_heavy",
    order=50,
    severity=Severity.WARNING,
    applicability=Applicability.MEMORY_ONLY,
    reads=(
        "sample_width",
        "sample_height",
        "sample_steps",
        "sample_prompts",
        "sample_every",
        "sample_frames",
        "disable_sampling",
        "phase",
        "vram_gib",
    ),
    rank=30,
    check=check,
    params=frozenset(
        {
            "width",
            "height",
            "steps",
            "prompts",
            "every",
            "frames",
            "new_width",
            "new_height",
            "new_steps",
            "new_frames",
            "one_prompt",
            "lever",
            "then",
            "paths_off",
        }
    ),
    placement=Placement(
        phases={Phase.FIRST_SAMPLE: 10, Phase.SAMPLING: 10},
        last_in=all_phases_but(Phase.FIRST_SAMPLE, Phase.SAMPLING, Phase.TRAINING_STEP),
        ruled_out_by=frozenset({"load", "host"}),
    ),
    quotable=_quotable,
)
