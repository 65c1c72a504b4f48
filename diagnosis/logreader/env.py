"""The machine around the run: operating system, PyTorch and trainer versions, the GPU and its size."""

from __future__ import annotations

import re
from collections import Counter

from diagnosis.logreader.gpus import vram_of_gpu_name

# A drive letter path ("C:\\", "d:/"), searched from its colon: a pattern that starts with the letter
# would be tried at every offset of the line.
_WINDOWS_PATH = re.compile(r":(?<=[A-Za-z]:)(?<![\w/][A-Za-z]:)[\\/]{1,2}[\w.$~-]")
_TORCH_VERSION = re.compile(
    r"(?i)(?<![\w-])(?:py)?torch(?:\s{1,3}version)?\s{0,3}(?:==|=|:|\s)\s{0,3}v?(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:\.dev\d{1,12})?(?:\+\w{1,20}(?:\.\w{1,20}){0,3})?)"
)
_TRAINER_VERSION = re.compile(
    r"(?i)ai[- _]?toolkit\s{0,3}(?:ui\s{0,3})?(?:version\s{0,3}:?|v(?=\d)|:)"
    r"\s{0,3}v?(\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)"
)
# Occurrences of a version pattern's word tried one by one before the line is searched whole.
_WORD_TRIES = 8
# What each version pattern's match holds before its word ("torch", "toolkit"), longest first, and
# the characters that can come right after the word (\s is " \t\n\r\v\f" and \x1c-\x1f in ASCII).
_TORCH_HEADS = ("py", "")
_TORCH_FOLLOW = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f=:"
_TRAINER_HEADS = ("ai-", "ai ", "ai_", "ai")
_TRAINER_FOLLOW = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1fuv:"
# nvidia-smi: a row "|   0  NVIDIA GeForce RTX 4090        On  |",
# then one with the memory "| 30%   45C  P2  120W / 450W |  23000MiB /  24564MiB |".
_SMI_GPU_ROW = re.compile(r"^\|\s{1,6}(\d{1,2})\s{1,6}(\S[^|]{2,80})\|")
# `nvidia-smi -L`: "GPU 1: NVIDIA GeForce RTX 3090 (UUID: GPU-…)".
_SMI_LIST_ROW = re.compile(r"^\s{0,8}GPU (\d{1,2}): ")
_SMI_MEMORY = re.compile(r"\|\s{0,30}(\d{1,7})MiB\s{0,4}/\s{0,4}(\d{1,7})MiB\s{0,30}\|")
# A log may name GPUs on many lines; the first few are all that matter.
_MAX_GPUS = 16
_GPU_WORDS = ("NVIDIA", "GeForce", "RTX", "GTX", "Tesla", "Quadro", "Radeon")


def search_from_word(
    pattern: re.Pattern[str], line: str, word: str, heads: tuple[str, ...], follow: str
) -> re.Match[str] | None:
    """`pattern.search(line)`, for a case-insensitive pattern each match of which is one of `heads`,
    then `word`, then one of the characters in `follow` (all lower case here; the word cannot overlap
    itself, and no head is as long as it).

    The lines that get here name the word in a path ("site-packages/torch/", "ai-toolkit/") far more
    often than a version: the pattern is tried only where a head, the word and a character that may
    follow it occur, not at every offset. In an ASCII line, lower-casing keeps every offset and finds
    every case of the word; other lines are searched whole.
    """
    if not line.isascii():
        return pattern.search(line)
    low = line.lower()
    at = low.find(word)
    for _ in range(_WORD_TRIES):
        if at < 0:
            return None
        after = at + len(word)
        if low[after : after + 1] in follow and after < len(low):
            for head in heads:  # longest first: the match that starts leftmost
                if low.endswith(head, 0, at):
                    found = pattern.match(line, at - len(head))  # a lookbehind still sees what is before
                    if found is not None:
                        return found
        at = low.find(word, after)
    # A line that names the word this often is searched whole: one scan costs less than many tries.
    return pattern.search(line) if at >= 0 else None


class GpuSeen:
    __slots__ = ("gb", "index", "name", "total_bytes")

    def __init__(self, index: int | None, name: str, gb: float, total_bytes: int | None = None) -> None:
        self.index = index
        self.name = name
        self.gb = gb
        self.total_bytes = total_bytes


class Environment:
    """Collects clues line by line; the reader asks for the verdicts at the end.

    This class and GpuSeen are plain classes, not dataclasses: see diagnosis/record.py."""

    __slots__ = ("_smi_row", "gpus", "os_votes", "torch_version", "trainer_version")

    def __init__(self) -> None:
        self.os_votes: Counter[str] = Counter()
        self.torch_version: str | None = None
        self.trainer_version: str | None = None
        self.gpus: list[GpuSeen] = []
        self._smi_row: GpuSeen | None = None

    def feed(self, line: str) -> None:
        # Plain substring tests: far cheaper per line than one regex alternation over all clues.
        if "/" in line or "\\" in line:
            self._feed_paths(line)
        if "WinError" in line or "os error 1455" in line or "WDDM" in line:
            self.os_votes["windows"] += 1
        elif "Out of memory: Killed process" in line or "oom-killer" in line:
            self.os_votes["linux"] += 1
        elif "MPS backend" in line:
            self.os_votes["macos"] += 1
        if self.torch_version is None and "orch" in line:
            version = search_from_word(_TORCH_VERSION, line, "torch", _TORCH_HEADS, _TORCH_FOLLOW)
            if version is not None:
                self.torch_version = version.group(1)
        if self.trainer_version is None and "oolkit" in line:
            trainer = search_from_word(_TRAINER_VERSION, line, "toolkit", _TRAINER_HEADS, _TRAINER_FOLLOW)
            if trainer is not None:
                self.trainer_version = trainer.group(1)
        if (
            "MiB" in line
            or "NVIDIA" in line
            or "GeForce" in line
            or "RTX" in line
            or "GTX" in line
            or "Tesla" in line
            or "Quadro" in line
            or "Radeon" in line
        ):
            self._feed_gpu(line)

    def _feed_paths(self, line: str) -> None:
        if (":\\" in line or ":/" in line) and _WINDOWS_PATH.search(line):
            self.os_votes["windows"] += 1
        elif (
            "/home/" in line
            or "/root/" in line
            or "/workspace/" in line
            or "/usr/" in line
            or "/mnt/" in line
            or "/opt/" in line
        ):
            self.os_votes["linux"] += 1
        elif "/Users/" in line:
            self.os_votes["macos"] += 1

    def _feed_gpu(self, line: str) -> None:
        if self._smi_row is not None and "MiB" in line:
            memory = _SMI_MEMORY.search(line)
            if memory is not None:
                self._smi_row.total_bytes = int(memory.group(2)) * 1024 * 1024
            self._smi_row = None
        if len(self.gpus) >= _MAX_GPUS or not any(word in line for word in _GPU_WORDS):
            return
        found = vram_of_gpu_name(line[:400])
        if found is None:
            return
        row = _SMI_GPU_ROW.match(line)
        listed = _SMI_LIST_ROW.match(line) if row is None else None
        index = row or listed
        seen = GpuSeen(int(index.group(1)) if index else None, found[0], found[1])
        self.gpus.append(seen)
        if row is not None:
            self._smi_row = seen

    def os(self) -> str | None:
        if not self.os_votes:
            return None
        return self.os_votes.most_common(1)[0][0]

    def gpu(self, device_index: int | None) -> GpuSeen | None:
        """The GPU the run used when the log lists several (by device index), else the first named."""
        if not self.gpus:
            return None
        if device_index is not None:
            for seen in self.gpus:
                if seen.index == device_index:
                    return seen
        return self.gpus[0]
