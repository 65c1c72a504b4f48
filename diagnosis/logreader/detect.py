"""Is a piece of text console output (a log, a traceback, an nvidia-smi table) rather than prose or a config?

Intake asks this of each block it cannot otherwise classify. The signals are lines a program prints and a
person would not type: PyTorch's OOM texts, traceback frames, AI Toolkit's phase markers at the start of
a line, tqdm bars, nvidia-smi borders. A sentence that merely mentions "out of memory" is prose.
"""

from __future__ import annotations

import re

from diagnosis.lazyre import LazyPattern

# Texts only a program prints; one is enough.
_STRONG = LazyPattern(
    r"Traceback \(most recent call last\)"
    r"|out of memory\. Tried to allocate"
    r"|CUDA error: out of memory"
    r"|OutOfMemoryError:"
    r"|MPS backend out of memory \("
    r"|CUBLAS_STATUS_ALLOC_FAILED"
    r"|CUDNN_STATUS_[A-Z_]+"
    r"|DefaultCPUAllocator: "
    r"|paging file is too small for this operation"
    r"|Out of memory: Killed process"
    r"|invoked oom-killer"
    r"|Error running job: "
    r"|Job process exited unexpectedly"
    r"|Job process terminated with "
    r"|NVIDIA-SMI \d"
    r"|is killed by signal: "
    r"|Error out of memory at line \d"
    r"|Exception raised from \w"
    r"|CUDA kernel errors might be asynchronously reported"
    r"|Allocation on device \d+ would exceed allowed memory"
    r"|Signals\.SIGKILL"
    r"|return code = -9"
    r"|\x1b\[[\d;?]{0,20}[A-Za-z]"  # an ANSI colour or cursor code: a terminal wrote this
)
# A part of each of those texts (every match of `_STRONG` holds one of these): an alternation of many
# texts is tried at every offset that starts one of them, most letters; a substring test skips ahead.
# Most texts (a config, prose) hold none of them, and are done without the pattern.
_STRONG_PARTS = (
    "of memory",  # out of memory. Tried / CUDA error: out of memory / MPS backend … / Out of memory: Killed
    "Traceback (",
    "OutOfMemoryError:",
    "_STATUS_",  # CUBLAS_STATUS_ALLOC_FAILED, CUDNN_STATUS_…
    "DefaultCPUAllocator: ",
    "paging file",
    "oom-killer",
    "Error running job: ",
    "Job process ",
    "NVIDIA-SMI ",
    "killed by signal: ",
    "Exception raised from ",
    "CUDA kernel errors",
    "Allocation on device ",
    "Signals.SIGKILL",
    "return code = -9",
    "\x1b",
)

# Lines that start (after a line break and indentation) with something a program prints. The pattern
# opens with the break itself, so the scanner jumps from break to break, and every repetition is bounded:
# a scan over megabytes stays linear. The texts are grouped by their first character, so a line that
# starts with none of them costs one test instead of one per text; only the exception line (any name
# ending in Error or Exception) would be tried on every line that starts with a letter. The indentation
# is taken whole (possessive): no text starts with a blank, so giving some of it back could not help.
_LINE_TEXTS = (
    r"[ \t]{0,40}+(?:"
    r"F(?:ile \"[^\"\n]{1,1000}\", line \d+)"  # traceback frame
    r"|M(?:emoryError(?=[\r\n]|$)|oving transformer to CPU|odel Loaded(?=[\r\n]|$)|aking pipe(?=[\r\n]|$))"
    r"|K(?:illed(?=[\r\n]|$))"
    r"|L(?:oading (?:transformer|checkpoint shards|VAE|T5|CLIP|[\w.\- ]{1,40} model))"
    r"|Q(?:uantizing (?:[Tt]ransformer|Text Encoder|T5|Gemma2))"
    r"|-(?: quantizing (?:\d+ transformer blocks|extras)"
    r"| {2}(?:Found \d+ (?:images|videos)|Preprocessing (?:image|video) dimensions)"
    r"| \d+ (?:completed jobs?|failures?)(?=[\r\n]|$))"
    r"|C(?:aching (?:latents|text_embeddings|text embeddings|embeddings and unloading))"
    r"|G(?:enerating (?:baseline samples|first sample|Samples|Images|controls))"
    r"|S(?:kipping first sample|aving at step \d|aved checkpoint to )"
    r"|R(?:unning 1 job|unning  1 process)"
    r"|#(?: Running job: |#{3} IMPORTANT RESUMING FROM | OOM during training step)"
    r"|B(?:ucket sizes for )"
    r"|\d(?:\d* buckets made(?=[\r\n]|$)|\d{1,4}x\d{2,5}(?:x\d{1,4}f)?: \d+ files(?=[\r\n]|$))"
    r"|c(?:reate LoRA (?:network|for ))"
    r"|U(?:sing SQLite database at )"
    r"|P(?:reparing Model(?=[\r\n]|$))"
    r"|T(?:imer '[^'\n]{1,80}':)"
    r"|\|(?: GPU  Name)"
    r"|\+(?:-{5,}\+)"
    r"|\[(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] )"  # dmesg -T
)
# One pattern per kind of break: a literal first character is found much faster than a class. The
# exception line (any name ending in Error or Exception) is looked for apart from the other texts, and
# only in a text that has "Error: " or "Exception: ": it is the one alternative that reads (and gives
# back) the first word of every line.
_EXCEPTION_LINE = r"[A-Za-z_][\w.]{0,200}[a-z](?:Error|Exception): "  # the final line of a traceback
_LINE = re.compile("\n" + _LINE_TEXTS + ")")
_LINE_EXCEPTION = LazyPattern("\n[ \t]{0,40}+" + _EXCEPTION_LINE)
_LINE_AFTER_CR = LazyPattern("\r" + _LINE_TEXTS + "|" + _EXCEPTION_LINE + ")")  # few texts have a "\r"

# Both patterns below only answer whether the text has a match. Each starts from its rarest literal
# ("%|", " Killed") and checks the digits before it from there, which finds a match exactly when the
# digits-first form would, without trying every digit of the text as a start.

# A tqdm bar: "name:  12%|█▏   | 360/3000 [10:42<…" (one digit before the "%" is all `\d{1,3}` needs).
_PROGRESS = re.compile(r"%\|(?<=\d%\|)[^|\n]{0,200}\|\s{0,4}\d+/\d+ ?\[")

# A shell reporting a killed child: "run.sh: line 3: 12345 Killed   python run.py" (a number of one
# to ten digits, not part of a longer one).
_SHELL_KILLED = re.compile(r" Killed(?<=\d Killed)(?<!\d{11} Killed) {1,20}\S")

# Longer texts are judged on their first and last parts: a log shows itself quickly, and the error sits
# at the end.
_HEAD_CHARS = 2_000_000
_TAIL_CHARS = 1_000_000
# A text this long or shorter is judged whole.
WHOLE_CHARS = _HEAD_CHARS + _TAIL_CHARS


def _has_program_line(part: str) -> bool:
    """Does a line of `part` (after a line feed or a carriage return) start with a program's text?"""
    # The break in front lets the first line match too.
    if _LINE.search("\n" + part):
        return True
    if ("Error: " in part or "Exception: " in part) and _LINE_EXCEPTION.search("\n" + part):
        return True
    return "\r" in part and _LINE_AFTER_CR.search(part) is not None


def is_log_text(text: str) -> bool:
    """True when `text` holds console output; False for prose (any language) and for YAML/JSON configs."""
    if not text:
        return False
    long_text = len(text) > WHOLE_CHARS
    parts = (text[:_HEAD_CHARS], text[-_TAIL_CHARS:]) if long_text else (text,)
    for part in parts:
        # A log usually shows a program's line or a bar near its top: those searches end soonest.
        if _has_program_line(part):
            return True
        # Each of these patterns starts with (or holds) a literal that a substring test finds sooner.
        if ("%|" in part and _PROGRESS.search(part)) or _has_strong(part):
            return True
        if " Killed" in part and _SHELL_KILLED.search(part):
            return True
    return False


def _has_strong(part: str) -> bool:
    """`_STRONG.search(part) is not None`, without the pattern when no part of its texts is there."""
    for literal in _STRONG_PARTS:
        if literal in part:
            return _STRONG.get().search(part) is not None
    return False
