"""tqdm progress bars: `name:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01]`.

AI Toolkit's training bar is described by the job's name; every other bar it draws has a fixed
description (caching, sampling, loading shards) or none at all. A bar announces a phase just as a
marker line does, so its kind is a `Mark` (None: a bar that says nothing about the phase, such as a
download).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from diagnosis.logreader.phase import Mark

_COUNTS = re.compile(r"\|[^|\n]{0,400}\|\s{0,8}(\d{1,9})/(\d{1,9})(?:\s{0,4}\[)?")
_FILE_SUFFIXES = (".safetensors", ".bin", ".json", ".txt", ".gguf", ".pt", ".pth", ".ckpt", ".model")


_KNOWN: tuple[tuple[str, Mark | None], ...] = (
    ("Generating Samples", Mark.SAMPLE),
    ("Generating Images", Mark.SAMPLE),
    ("Caching latents", Mark.LATENT_CACHING),
    ("Caching text embeddings", Mark.TEXT_EMBEDDING_CACHING),
    ("Caching text_embeddings", Mark.TEXT_EMBEDDING_CACHING),
    ("Loading checkpoint shards", Mark.MODEL_LOAD),
    ("Loading pipeline components", Mark.MODEL_LOAD),
    ("Attaching quantization", Mark.QUANTIZE),
    ("Generating Controls", Mark.DATALOADER),
    ("Loading", Mark.MODEL_LOAD),
    ("Quantizing", Mark.QUANTIZE),
    ("Downloading", None),
    ("Fetching", None),
)


class Bar(NamedTuple):
    description: str
    kind: Mark | None


def bar_description(line: str) -> str | None:
    """The text before the percentage of a tqdm bar, or None when `line` is not a bar."""
    at = line.find("%|")
    if at < 0:
        return None
    head = line[:at].rstrip("0123456789").rstrip()
    return head[:-1].strip() if head.endswith(":") else head.strip()


def classify_bar(description: str, line: str, job_name: str | None) -> Bar:
    """What a bar with this description (from `bar_description`) counts."""
    for prefix, kind in _KNOWN:
        if description.startswith(prefix):
            return Bar(description, kind)
    if not description or description.endswith(_FILE_SUFFIXES):
        return Bar(description, None)
    if job_name is not None and description == job_name:
        return Bar(description, Mark.TRAINING)
    # Without a known job name, a bar carrying the loop's postfix or named like a job (one word,
    # no spaces, as config names are) is the training loop.
    if "lr: " in line or "loss: " in line or (" " not in description and len(description) <= 120):
        return Bar(description, Mark.TRAINING)
    return Bar(description, None)


def bar_counts(line: str) -> tuple[int, int] | None:
    """(done, total) of a bar line, or None."""
    at = line.find("%|")
    if at < 0:
        return None
    match = _COUNTS.search(line, at + 1)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))
