"""One log line → an out-of-memory event (kind and numbers), for every format in oom-message-formats.md.

Each pattern starts with a literal phrase from the message template and uses only bounded repetitions,
so a line is matched in linear time. A line is first screened with plain substring tests; the patterns
run only on lines that can hold an OOM.
"""

from __future__ import annotations

import re

from diagnosis.logreader.lines import ERROR_RUNNING_JOB
from diagnosis.logreader.units import SIZE, SIZE_MAX_CHARS, SIZE_UNITS, to_bytes
from diagnosis.models import OomEvent, OomKind, OtherProcess
from diagnosis.record import Record, field

_S = SIZE  # two groups: number, unit

# Caching allocator, every era (CUDA, HIP and XPU share the template).
_TRIED = re.compile(r"Tried to allocate " + _S)
# "GPU 0 has a total capacity of", the 2.1 typo "capacty", and the blank index "GPU  has" (a NUL byte).
_NEW_TOTAL = re.compile(r"GPU ?(\d{0,3}) ?has a total capac?i?ty of " + _S + r" of which " + _S + r" is free")
_OLD_DEVICE = re.compile(r"\(GPU (\d{1,3});")
_OLD_TOTAL_WORDS = " total capacity;"
_OLD_TOTAL = re.compile(_S + re.escape(_OLD_TOTAL_WORDS))
_OLD_ALLOCATED_WORDS = " already allocated;"
_OLD_ALLOCATED = re.compile(_S + re.escape(_OLD_ALLOCATED_WORDS))
_OLD_FREE_WORDS = " free;"
_OLD_FREE = re.compile(_S + re.escape(_OLD_FREE_WORDS))
_OLD_RESERVED = re.compile(_S + r" (reserved in total by PyTorch|cached)\)")
_OTHER_PROCESS = re.compile(r"Process (\d{1,10}) has " + _S + r" memory in use")
_THIS_PROCESS = re.compile(r"this process has " + _S + r" memory in use")
_ALLOCATED = re.compile(r"Of the allocated memory " + _S + r" is allocated by PyTorch")
_RESERVED_UNALLOCATED_WORDS = " is reserved by PyTorch but unallocated"
_RESERVED_UNALLOCATED = re.compile(_S + re.escape(_RESERVED_UNALLOCATED_WORDS))

# cudaMallocAsync: a headline, then one "label : size" per line.
_ASYNC_HEAD = re.compile(r"Allocation on device (\d{1,3}) would exceed allowed memory")
_ASYNC_FIELD = re.compile(
    r"^\s{0,8}(Currently allocated|Requested|Device limit|Free \(according to CUDA\)|)"
    r"\s{0,30}:\s{0,4}" + _S
)

_MPS = re.compile(
    r"MPS backend out of memory \((?:MPS allocated|currently allocated): "
    + _S
    + r"(?:, other allocations: "
    + _S
    + r")?(?:, max allowed: "
    + _S
    + r")?\)"
)
_CPU_ALLOCATOR = re.compile(r"DefaultCPUAllocator: [^:]{0,40}: you tried to allocate (\d{1,20}) bytes")
_KERNEL_KILL = re.compile(r"Out of memory: Killed process (\d{1,10})")
_ANON_RSS = re.compile(r"anon-rss:(\d{1,20})kB")
_SHELL_KILLED = re.compile(r"(?:^|\s)\d{1,10}\s+Killed\s")
_EXIT_137 = re.compile(r"(?:exit(?:ed with)? (?:code|status)|returncode|return code =)\s{0,2}(?:137|-9)\b")

# An exception class opening a line: "torch.OutOfMemoryError: ", "RuntimeError: ".
_EXCEPTION_PREFIX = re.compile(r"[A-Za-z_][\w.]{0,200}(?:Error|Exception): ?")
# Python's MemoryError and its subclasses ("numpy.core._exceptions._ArrayMemoryError: Unable to allocate").
_MEMORY_ERROR = re.compile(r"^\s{0,8}(?:[A-Za-z_][\w.]{0,200})?(?<!OutOf)MemoryError\s{0,4}(?::|$)")

# The screen: a line without any of these cannot be an OOM line.

_BNB = re.compile(r"Error out of memory at line \d{1,9} in file ")
_ALLOCATORS = (("CUDA", OomKind.CUDA_ALLOC), ("HIP", OomKind.HIP), ("XPU", OomKind.XPU))

CAUGHT_BANNER = "OOM during training step, skipping batch"
ABORT_AFTER_CAUGHT = "OOM during training step 3 times in a row"


class ParsedOom(Record):
    kind: OomKind
    tried_bytes: int | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None
    process_bytes: int | None = None
    allocated_bytes: int | None = None
    reserved_unallocated_bytes: int | None = None
    non_pytorch_bytes: int | None = None
    device_index: int | None = None
    other_processes: list[OtherProcess] = field(default_factory=list)


def _size(match: re.Match[str] | None, first: int = 1) -> int | None:
    """`to_bytes` of a `SIZE` match's two groups from group `first` on (None when it did not take part)."""
    if match is None:
        return None
    number, unit = match.group(first, first + 1)
    if number is None:
        return None
    factor = SIZE_UNITS.get(unit)  # every unit SIZE matches: the number's bytes without a call
    return to_bytes(number, unit) if factor is None else round(float(number) * factor)


_WORDS_TRIES = 8  # places a size's words are tried at before the line is searched whole


def _size_before(pattern: re.Pattern[str], line: str, words: str) -> re.Match[str] | None:
    """`pattern.search(line)` for a pattern that is `SIZE` followed by `words`: the pattern is tried
    only just before each place the words occur. (Searched from the size, the scan would try a number
    at every digit of the line.)"""
    at = line.find(words)
    for _ in range(_WORDS_TRIES):
        if at < 0:
            return None
        # A match ends with these words and starts at most SIZE_MAX_CHARS before them; the pattern
        # looks neither behind its start nor past its end, so the cut-out search finds what a search
        # of the whole line finds there.
        found = pattern.search(line, max(0, at - SIZE_MAX_CHARS), at + len(words))
        if found is not None:
            return found
        at = line.find(words, at + 1)
    # Words repeated this often (a hostile line): one search of the whole line costs less.
    return pattern.search(line) if at >= 0 else None


def could_be_oom(line: str) -> bool:
    """A cheap screen: a line without any of these words cannot be an OOM line.

    Plain substring tests beat both a regex alternation and a loop over the words on every line.
    """
    return (
        "emory" in line
        or "Kill" in line
        or "KILL" in line
        or "oom-kill" in line
        or "OOM" in line
        or "STATUS_" in line
        or "1455" in line
        or "paging file" in line
        or "Bus error" in line
        or "exited unexpectedly" in line
        or "terminated with" in line
        or "exit code" in line
        or "exit status" in line
        or "exits with" in line
        or "returncode" in line
        or "return code" in line
        or "unable to write to file" in line
        or "Allocation on device" in line
        or "batch size found" in line
    )


def _first_message(line: str, kind: OomKind) -> str:
    """`line` up to a second printing of the same message: a forum that joins a log onto one line
    joins `Error running job: <message>` and the traceback's last line, and each process it lists
    would be counted twice."""
    phrase = kind.name.split("_")[0] + " out of memory. Tried to allocate"
    first = line.find(phrase)
    second = line.find(phrase, first + len(phrase)) if first >= 0 else -1
    return line[:second] if second > 0 else line


def _caching_allocator(line: str, kind: OomKind) -> ParsedOom:
    line = _first_message(line, kind)
    event = ParsedOom(kind, tried_bytes=_size(_TRIED.search(line)))
    new = _NEW_TOTAL.search(line)
    if new is not None:
        event.device_index = int(new.group(1)) if new.group(1) else None
        event.total_bytes = _size(new, 2)
        event.free_bytes = _size(new, 4)
        for other in _OTHER_PROCESS.finditer(line):
            event.other_processes.append(OtherProcess(int(other.group(1)), _size(other, 2) or 0))
        event.process_bytes = _size(_THIS_PROCESS.search(line))
        event.allocated_bytes = _size(_ALLOCATED.search(line))
        event.reserved_unallocated_bytes = _size(
            _size_before(_RESERVED_UNALLOCATED, line, _RESERVED_UNALLOCATED_WORDS)
        )
    else:
        device = _OLD_DEVICE.search(line)
        event.device_index = int(device.group(1)) if device else None
        event.total_bytes = _size(_size_before(_OLD_TOTAL, line, _OLD_TOTAL_WORDS))
        event.allocated_bytes = _size(_size_before(_OLD_ALLOCATED, line, _OLD_ALLOCATED_WORDS))
        event.free_bytes = _size(_size_before(_OLD_FREE, line, _OLD_FREE_WORDS))
        reserved = _OLD_RESERVED.search(line)
        if reserved is not None and reserved.group(3) == "cached":
            # 1.0-era "cached" is what the allocator holds beyond the allocated memory.
            event.reserved_unallocated_bytes = _size(reserved)
        elif reserved is not None and event.allocated_bytes is not None:
            # Later "reserved in total" includes the allocated memory; the modern field excludes it.
            total_reserved = _size(reserved)
            if total_reserved is not None and total_reserved >= event.allocated_bytes:
                event.reserved_unallocated_bytes = total_reserved - event.allocated_bytes
    # "this process has" counts everything the process holds: what PyTorch reserved plus the CUDA
    # context and libraries; the difference is the non-PyTorch part.
    if (
        event.process_bytes is not None
        and event.allocated_bytes is not None
        and event.reserved_unallocated_bytes is not None
    ):
        rest = event.process_bytes - event.allocated_bytes - event.reserved_unallocated_bytes
        event.non_pytorch_bytes = rest if rest >= 0 else None
    return event


def _host_killed(line: str) -> ParsedOom | None:
    stripped = line.strip()
    kernel = _KERNEL_KILL.search(line)
    if kernel is not None:
        rss = _ANON_RSS.search(line)
        return ParsedOom(OomKind.HOST_KILLED, process_bytes=int(rss.group(1)) * 1024 if rss else None)
    if (
        stripped == "Killed"
        or "invoked oom-killer" in line
        or line.startswith("oom-kill:")
        or "Job process exited unexpectedly" in line
        or ("Job process terminated with signal SIGKILL" in line)
        or "Signals.SIGKILL" in line
        # Each pattern holds a literal that a plain test finds sooner than the pattern's own scan.
        or ("Killed" in line and _SHELL_KILLED.search(line) is not None)
        or (("137" in line or "-9" in line) and _EXIT_137.search(line) is not None)
    ):
        return ParsedOom(OomKind.HOST_KILLED)
    return None


def message_head(line: str) -> str:
    """The message a line carries once quoting, `Error running job: ` and an exception class are removed."""
    text = line.strip().lstrip("`'\"> ")
    text = text.removeprefix(ERROR_RUNNING_JOB)
    exception = _EXCEPTION_PREFIX.match(text)
    return text[exception.end() :] if exception else text


def _allocator_kind(line: str, head: str) -> OomKind | None:
    """CUDA/HIP/XPU caching allocator: its full phrase anywhere, or its short phrase opening the message."""
    for device, kind in _ALLOCATORS:
        phrase = device + " out of memory"
        if phrase + ". Tried to allocate" in line or head.startswith(phrase):
            return kind
    return None


def parse_oom(line: str) -> ParsedOom | None:
    """The OOM event a line reports, or None. `line` is one logical log line (ANSI already stripped).

    Sentences that merely name an error ("it crashed with CUDA error: out of memory") are not events:
    short messages count only when they open the line, long ones only with their distinctive wording.
    """
    if not could_be_oom(line):
        return None
    head = message_head(line)
    if "out of memory" in line:
        kind = _allocator_kind(line, head)
        if kind is not None:
            return _caching_allocator(line, kind)
        if "MPS backend out of memory (" in line or head.startswith("MPS backend out of memory"):
            return _mps(line)
        if head.startswith("HIP error: out of memory"):
            return ParsedOom(OomKind.HIP)
        if head.startswith("CUDA error: out of memory"):
            return ParsedOom(OomKind.CUDA_ERROR)
        if _BNB.search(line):
            return ParsedOom(OomKind.BITSANDBYTES)
        if "out of shared memory" in line and "DataLoader worker" in line:
            return ParsedOom(OomKind.SHM)
    if ("Allocation on device" in line and "would exceed allowed memory" in line) or head.startswith(
        "Allocation on device"
    ):
        return _async_head(line)
    if "node running low on memory" in line:
        return ParsedOom(OomKind.HOST_KILLED)  # Ray killed the task to save the host
    if "CUBLAS_STATUS_ALLOC_FAILED" in line:
        return ParsedOom(OomKind.CUBLAS)
    if "CUDNN_STATUS_ALLOC_FAILED" in line or "CUDNN_STATUS_NOT_SUPPORTED" in line:
        return ParsedOom(OomKind.CUDNN)
    if "DefaultCPUAllocator: " in line:
        cpu = _CPU_ALLOCATOR.search(line)
        return ParsedOom(OomKind.HOST_ALLOC, tried_bytes=int(cpu.group(1)) if cpu else None)
    if (
        "paging file is too small for this operation" in line
        or "os error 1455" in line
        or "WinError 1455" in line
    ):
        return ParsedOom(OomKind.WINDOWS_PAGEFILE)
    if (
        "is killed by signal: Bus error" in line
        or head.startswith("Bus error")
        or "unable to write to file </torch_" in line
    ):
        return ParsedOom(OomKind.SHM)
    if _MEMORY_ERROR.match(line):
        return ParsedOom(OomKind.MEMORY_ERROR)
    killed = _host_killed(line)
    if killed is not None:
        return killed
    if "No executable batch size found" in line:
        return ParsedOom(OomKind.UNKNOWN)  # accelerate halved the batch on every OOM down to zero
    if ABORT_AFTER_CAUGHT in line:
        # AI Toolkit catches only the caching allocator's OutOfMemoryError in a step.
        return ParsedOom(OomKind.CUDA_ALLOC)
    if _is_unrecognised_oom_headline(line):
        return ParsedOom(OomKind.UNKNOWN)
    return None


def _is_unrecognised_oom_headline(line: str) -> bool:
    """An exception line about memory in no known wording ("RuntimeError: … out of memory")."""
    text = line.strip()
    text = text.removeprefix(ERROR_RUNNING_JOB)
    if not _EXCEPTION_PREFIX.match(text):
        return False
    lowered = text.lower()
    return "outofmemory" in lowered or "out of memory" in lowered or "oom when allocating" in lowered


def _mps(line: str) -> ParsedOom:
    match = _MPS.search(line)
    event = ParsedOom(OomKind.MPS, tried_bytes=_size(_TRIED.search(line)))
    if match is not None:
        event.allocated_bytes = _size(match, 1)
        event.non_pytorch_bytes = _size(match, 3)  # "other allocations": Metal buffers PyTorch does not own
        event.total_bytes = _size(match, 5)  # "max allowed": the watermark, the ceiling that was hit
    return event


def _async_head(line: str) -> ParsedOom:
    head = _ASYNC_HEAD.search(line)
    return ParsedOom(OomKind.CUDA_ASYNC_ALLOC, device_index=int(head.group(1)) if head else None)


def continue_async(event: OomEvent | ParsedOom, line: str) -> bool:
    """Fill a cudaMallocAsync event from one of its "label : size" lines; False when `line` is not one."""
    if line.lstrip().startswith("PyTorch limit") and ":" not in line:
        return True  # the label of a value printed on the next line
    match = _ASYNC_FIELD.match(line)
    if match is None:
        return False
    label = match.group(1)
    value = _size(match, 2)
    if label == "Currently allocated":
        event.allocated_bytes = value
    elif label == "Requested":
        event.tried_bytes = value
    elif label == "Device limit":
        event.total_bytes = value
    elif label.startswith("Free"):
        event.free_bytes = value
    return True


_WRAP_UNITS = ("GiB", "MiB", "KiB", "bytes", "iB")
_WRAP_WORDS = (
    "capac",
    "which",
    "Process",
    "rocess",
    "total",
    "llocat",
    "emory",
    "memory in use",
    "allocated",
    "reserved",
    "PyTorch",
    " free",
    "fragmentation",
    "Management",
)
_ALLOCATOR_KINDS = frozenset({OomKind.CUDA_ALLOC, OomKind.HIP, OomKind.XPU})


# Every word of the caching allocator's message (all eras), to tell a word cut by a console's hard
# wrap ("capa" + "city") from two words a soft wrap split at a blank ("total" + "capacity").
_MESSAGE_WORDS = frozenset(
    (
        "out",
        "of",
        "memory",
        "tried",
        "to",
        "allocate",
        "gpu",
        "has",
        "a",
        "total",
        "capacity",
        "capacty",
        "which",
        "is",
        "free",
        "process",
        "in",
        "use",
        "including",
        "non-pytorch",
        "this",
        "allowed",
        "the",
        "allocated",
        "by",
        "pytorch",
        "with",
        "private",
        "pools",
        "e.g.",
        "cuda",
        "graphs",
        "and",
        "reserved",
        "but",
        "unallocated",
        "if",
        "large",
        "try",
        "setting",
        "avoid",
        "fragmentation",
        "see",
        "documentation",
        "for",
        "management",
        "already",
        "cached",
        "max_split_size_mb",
        "gib",
        "mib",
        "kib",
        "bytes",
    )
)


def _last_word(text: str) -> str:
    at = len(text)
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_-"):
        at -= 1
    return text[at:]


def _first_word(text: str) -> str:
    at = 0
    while at < len(text) and (text[at].isalnum() or text[at] in "_-"):
        at += 1
    return text[:at]


def _join_wrapped(so_far: str, line: str) -> str:
    """`so_far` and the next line of a wrapped message, with a blank between them unless the break
    cut a word or a number in two (a console wraps at its width, mid-word; a forum wraps at blanks)."""
    if not so_far or not line or so_far[-1].isspace() or line[0].isspace():
        return so_far.rstrip() + " " + line.strip()
    line = line.rstrip()
    left, right = so_far[-1], line[0]
    if (left.isdigit() or left == ".") and (right.isdigit() or right == "."):
        # A number cut in two ("15." + "99 GiB"): the template never puts two numbers side by side.
        return so_far + line
    if left == "-":
        return so_far + line  # "non-" + "PyTorch"
    head, tail = _last_word(so_far).lower(), _first_word(line).lower()
    if (
        head
        and tail
        and head + tail in _MESSAGE_WORDS
        and not (head in _MESSAGE_WORDS and tail in _MESSAGE_WORDS)
    ):
        return so_far + line
    return so_far + " " + line


def continue_wrapped(event: OomEvent, so_far: str, line: str) -> str | None:
    """More of a caching-allocator message that a console or a forum wrapped onto the next line.

    Returns the message joined so far when `line` continues it (and fills what the event lacked), or
    None when `line` is something else.
    """
    if event.kind not in _ALLOCATOR_KINDS or "out of memory" in line:
        return None
    if not any(unit in line for unit in _WRAP_UNITS) and not any(word in line for word in _WRAP_WORDS):
        return None
    joined = _join_wrapped(so_far, line)
    whole = _caching_allocator(joined, event.kind)
    for name in _FILLABLE:
        if getattr(event, name) is None and getattr(whole, name) is not None:
            setattr(event, name, getattr(whole, name))
    if len(whole.other_processes) > len(event.other_processes):
        event.other_processes = whole.other_processes
    return joined


_FILLABLE = (
    "tried_bytes",
    "total_bytes",
    "free_bytes",
    "process_bytes",
    "allocated_bytes",
    "reserved_unallocated_bytes",
    "non_pytorch_bytes",
    "device_index",
)
