"""tqdm progress bars: `name:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01]`.

AI Toolkit's training bar is described by the job's name; every other bar it draws has a fixed
description (caching, sampling, loading shards) or none at all.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import NamedTuple

_COUNTS = re.compile(r"\|[^|\n]{0,400}\|\s{0,8}(\d{1,9})/(\d{1,9})(?:\s{0,4}\[)?")
_FILE_SUFFIXES = (".safetensors", ".bin", ".json", ".txt", ".gguf", ".pt", ".pth", ".ckpt", ".model")


class BarKind(StrEnum):
    TRAINING = "training"
    SAMPLING = "sampling"
    LATENT_CACHING = "latent_caching"
    TEXT_EMBEDDING_CACHING = "text_embedding_caching"
    MODEL_LOAD = "model_load"
    QUANTIZE = "quantize"
    DATALOADER = "dataloader"
    OTHER = "other"


_KNOWN: tuple[tuple[str, BarKind], ...] = (
    ("Generating Samples", BarKind.SAMPLING),
    ("Generating Images", BarKind.SAMPLING),
    ("Caching latents", BarKind.LATENT_CACHING),
    ("Caching text embeddings", BarKind.TEXT_EMBEDDING_CACHING),
    ("Caching text_embeddings", BarKind.TEXT_EMBEDDING_CACHING),
    ("Loading checkpoint shards", BarKind.MODEL_LOAD),
    ("Loading pipeline components", BarKind.MODEL_LOAD),
    ("Attaching quantization", BarKind.QUANTIZE),
    ("Generating Controls", BarKind.DATALOADER),
    ("Loading", BarKind.MODEL_LOAD),
    ("Quantizing", BarKind.QUANTIZE),
    ("Downloading", BarKind.OTHER),
    ("Fetching", BarKind.OTHER),
)


class Bar(NamedTuple):
    description: str
    kind: BarKind


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
        return Bar(description, BarKind.OTHER)
    if job_name is not None and description == job_name:
        return Bar(description, BarKind.TRAINING)
    # Without a known job name, a bar carrying the loop's postfix or named like a job (one word,
    # no spaces, as config names are) is the training loop.
    if "lr: " in line or "loss: " in line or (" " not in description and len(description) <= 120):
        return Bar(description, BarKind.TRAINING)
    return Bar(description, BarKind.OTHER)


def bar_counts(line: str) -> tuple[int, int] | None:
    """(done, total) of a bar line, or None."""
    at = line.find("%|")
    if at < 0:
        return None
    match = _COUNTS.search(line, at + 1)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))
