"""Where the run was: phase markers AI Toolkit prints, and the frames of a traceback.

A marker says what the trainer last announced; a traceback says what the code was doing when it
failed, so specific frames win over markers (`quantize` frames → quantize, `cache_latents_all_latents`
→ latent caching, `generate_images` → sampling, `backward` → the backward pass of a training step).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from diagnosis.lazyre import LazyPattern
from diagnosis.models import Phase, StepPart


class Mark(StrEnum):
    """What a marker line announces; `SAMPLE` becomes first_sample or sampling depending on the loop."""

    MODEL_LOAD = "model_load"
    QUANTIZE = "quantize"
    LATENT_CACHING = "latent_caching"
    TEXT_EMBEDDING_CACHING = "text_embedding_caching"
    DATALOADER = "dataloader"
    FIRST_SAMPLE = "first_sample"
    SAMPLE = "sample"
    TRAINING = "training"
    SAVE = "save"


# Literal line starts (after indentation). Longer, more specific entries come first.
_STARTS: tuple[tuple[str, Mark], ...] = (
    ("Generating baseline samples", Mark.FIRST_SAMPLE),
    ("Generating first sample", Mark.FIRST_SAMPLE),
    ("Skipping first sample", Mark.TRAINING),
    ("Sampling at step", Mark.SAMPLE),
    ("Unloading assistant lora", Mark.SAMPLE),
    ("Saving at step", Mark.SAVE),
    ("Saved checkpoint to", Mark.SAVE),
    ("Removing old save", Mark.SAVE),
    ("Caching latents", Mark.LATENT_CACHING),
    ("Caching validation latents", Mark.LATENT_CACHING),
    ("- Saving latents", Mark.LATENT_CACHING),
    ("- Keeping latents", Mark.LATENT_CACHING),
    ("Caching text_embeddings", Mark.TEXT_EMBEDDING_CACHING),
    ("Caching text embeddings", Mark.TEXT_EMBEDDING_CACHING),
    ("Caching embeddings and unloading", Mark.TEXT_EMBEDDING_CACHING),
    ("- Saving text embeddings", Mark.TEXT_EMBEDDING_CACHING),
    ("***** UNLOADING TEXT ENCODER", Mark.TEXT_EMBEDDING_CACHING),
    ("Embeddings cached to disk", Mark.TEXT_EMBEDDING_CACHING),
    ("Generating controls", Mark.DATALOADER),
    ("Dataset: ", Mark.DATALOADER),
    ("Bucket sizes for", Mark.DATALOADER),
    ("-  Preprocessing", Mark.DATALOADER),
    ("-  Found ", Mark.DATALOADER),
    ("Keeping transformer on CPU for quantization", Mark.QUANTIZE),
    ("Quantizing", Mark.QUANTIZE),
    ("- quantizing", Mark.QUANTIZE),
    ("Attaching quantization", Mark.QUANTIZE),
    ("Loading ", Mark.MODEL_LOAD),
    ("Moving transformer to", Mark.MODEL_LOAD),
    ("create LoRA", Mark.MODEL_LOAD),
    ("Grabbing lora from the hub", Mark.MODEL_LOAD),
)
# Whole lines that mark a phase on their own.
_EXACT: dict[str, Mark] = {
    "Text Encoder": Mark.MODEL_LOAD,
    "Model Loaded": Mark.MODEL_LOAD,
    "Making pipe": Mark.MODEL_LOAD,
    "Preparing Model": Mark.MODEL_LOAD,
}
# The starts grouped by their first character, so a line is compared with a handful of them at most.
_BY_FIRST: dict[str, tuple[tuple[str, Mark], ...]] = {
    first: tuple(entry for entry in _STARTS if entry[0][0] == first) for first in {s[0] for s, _ in _STARTS}
}
_EXACT_FIRST = frozenset(text[0] for text in _EXACT)
_BUCKET_LINE = LazyPattern(r"\d{2,5}x\d{2,5}(?:x\d{1,4}f)?: \d{1,9} files$|\d{1,6} buckets made$")


def marker_of(line: str) -> Mark | None:
    """The phase a line announces, or None."""
    text = line.lstrip()
    if not text:
        return None
    first = text[0]
    if first.isdigit():
        return Mark.DATALOADER if _BUCKET_LINE.get().match(text) else None
    if first in _EXACT_FIRST:
        exact = _EXACT.get(text.rstrip())
        if exact is not None:
            return exact
    for start, mark in _BY_FIRST.get(first, ()):
        if text.startswith(start):
            return mark
    return None


class Frame(NamedTuple):
    file: str
    func: str
    line: int  # 1-based line of the log where the frame is printed
    code: str  # the source line printed under it, if any


_FRAME = LazyPattern(r'^\s{0,12}File "([^"\n]{1,1000})", line \d{1,9}, in (\S{1,200})')


def parse_frame(line: str, log_line: int) -> Frame | None:
    match = _FRAME.get().match(line) if 'File "' in line else None  # most lines are no frame
    if match is None:
        return None
    return Frame(match.group(1).replace("\\", "/"), match.group(2), log_line, "")


def _in_trainer(file: str) -> bool:
    """A frame in AI Toolkit's own code rather than in a library."""
    return "site-packages" not in file and "dist-packages" not in file and "/lib/python" not in file


_QUANTIZE_FUNCS = frozenset(
    {"quantize", "quantize_model", "_quantize", "quantize_submodule", "requantize", "freeze"}
)
_BACKWARD_FUNCS = frozenset({"backward", "_engine_run_backward", "run_backward"})


def _coarse(frame: Frame) -> Phase | None:
    func = frame.func
    if func in {"get_job", "get_config"}:
        return Phase.CONFIG_PARSE
    if not _in_trainer(frame.file):
        return None
    if func in {"hook_train_loop", "train_single_accumulation"}:
        return Phase.TRAINING_STEP
    if func in {"sample", "generate_images", "generate_single_image"}:
        return Phase.SAMPLING
    if func == "cache_latents_all_latents" or func == "cache_latents":
        return Phase.LATENT_CACHING
    if "text_embedding" in func:
        return Phase.TEXT_EMBEDDING_CACHING
    if func == "get_dataloader_from_datasets":
        return Phase.DATALOADER
    if func in {"save", "save_weights", "save_model"}:
        return Phase.SAVE
    if func.startswith("load_") or func in _QUANTIZE_FUNCS:
        return Phase.QUANTIZE if func in _QUANTIZE_FUNCS else Phase.MODEL_LOAD
    return None


def _is_quantize(frame: Frame) -> bool:
    return frame.func in _QUANTIZE_FUNCS or frame.file.endswith("util/quantize.py")


def _is_optimizer(frame: Frame) -> bool:
    file = frame.file
    return (
        "/optim/" in file
        or "/optimizers/" in file
        or file.endswith(("optimizer.py", "adafactor.py", "prodigy.py"))
    )


def _refine(phase: Phase, deeper: list[Frame]) -> tuple[Phase, StepPart | None, Frame | None]:
    if phase is Phase.MODEL_LOAD:
        for frame in deeper:
            if _is_quantize(frame):
                return Phase.QUANTIZE, None, frame
    if phase is Phase.DATALOADER:
        for frame in deeper:
            refined = _coarse(frame)
            if refined in {Phase.LATENT_CACHING, Phase.TEXT_EMBEDDING_CACHING}:
                return refined, None, frame
            if frame.func == "encode_images":
                return Phase.LATENT_CACHING, None, frame
    if phase is Phase.TRAINING_STEP:
        for frame in deeper:
            if frame.func in _BACKWARD_FUNCS:
                return phase, StepPart.BACKWARD, frame
            if _is_optimizer(frame) or (frame.func == "step" and "optim" in frame.file.lower()):
                return phase, StepPart.OPTIMIZER, frame
        if any(frame.func == "forward" or "predict_noise" in frame.func for frame in deeper):
            return phase, StepPart.FORWARD, None
    return phase, None, None


def phase_of_frames(frames: list[Frame]) -> tuple[Phase, StepPart | None, Frame] | None:
    """The phase a traceback shows (frames listed outermost first), with the frame that shows it."""
    for index, frame in enumerate(frames):
        phase = _coarse(frame)
        if phase is None:
            continue
        refined, part, evidence = _refine(phase, frames[index + 1 :])
        return refined, part, evidence or frame
    # A traceback cut at the top: recognise the innermost library frames alone.
    for frame in reversed(frames):
        if frame.func in {"reduce_storage", "_share_filename_cpu_"} or "/torch/utils/data/" in frame.file:
            return Phase.DATALOADER, None, frame
        if frame.func in _BACKWARD_FUNCS:
            return Phase.TRAINING_STEP, StepPart.BACKWARD, frame
        if _is_quantize(frame):
            return Phase.QUANTIZE, None, frame
        if frame.func in {"from_pretrained", "load_file", "load_state_dict"}:
            return Phase.MODEL_LOAD, None, frame
    return None
