"""Errors that are not out-of-memory: what kind, and the line that says so.

AI Toolkit fails for many reasons besides memory; telling the user "this is not an OOM" needs the
error's own headline and a coarse kind (a missing module, a Hugging Face login, a GPU too new for
the installed PyTorch, a broken config, a compiler failure).
"""

from __future__ import annotations

import re

# "ModuleNotFoundError: …", "yaml.scanner.ScannerError: …", "subprocess.CalledProcessError: …".
_HEADLINE = re.compile(r"^([A-Za-z_][\w.]{0,200}(?:Error|Exception|Failed|Failure))(?::\s?(.*))?$")

_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("missing_module", ("ModuleNotFoundError", "No module named", "ImportError", "cannot import name")),
    (
        "hf_auth",
        (
            "GatedRepoError",
            "gated repo",
            "401 Client Error",
            "403 Client Error",
            "Invalid user token",
            "Invalid credentials",
            "RepositoryNotFoundError",
            "Repository Not Found",
            "huggingface-cli login",
        ),
    ),
    ("no_kernel_image", ("no kernel image is available",)),
    (
        "compile_error",
        (
            "triton",
            "Triton",
            "tcc.exe",
            "CalledProcessError",
            "InductorError",
            "BackendCompilerFailed",
            "CompilationError",
            "torch._dynamo",
            "cl.exe",
            "nvcc",
        ),
    ),
    (
        "config_error",
        (
            "ScannerError",
            "ParserError",
            "ComposerError",
            "ConstructorError",
            "while scanning",
            "while parsing",
            "JSONDecodeError",
            "found character",
            "could not find expected",
            "Unknown arch",
            "config file error",
        ),
    ),
)


# What may end a traceback besides an error: the user's Ctrl-C, sys.exit().
_FINAL = re.compile(r"^[A-Za-z_][\w.]{0,200}(?:Interrupt|Exit)(?::|$)")


def ends_traceback(line: str) -> bool:
    """The last line of a traceback: an exception headline, or an interrupt or exit."""
    return exception_headline(line) is not None or _FINAL.match(line) is not None


def exception_headline(line: str) -> str | None:
    """The whole line when it reads like a Python exception headline at the left margin."""
    if not line or line[0] in " \t":
        return None
    match = _HEADLINE.match(line.rstrip())
    if match is None:
        return None
    return line.rstrip()


def classify(block: str) -> str:
    """The kind of a non-OOM error from its headline and the few lines that follow it."""
    for kind, needles in _KINDS:
        if any(needle in block for needle in needles):
            return kind
    return "other"


# Finer kinds than `classify` gives, for the rules that name what went wrong (`NonOomError.detail`).
# Checked in order on the error's block (its headline and the lines after it), case-insensitively;
# the first kind with a needle in the block wins. A block that matches none keeps its coarse kind.
DETAILS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("quantize_failed", ("failed to quantize",)),
    (
        "triton_error",
        ("'tl' is not defined", "tl is not defined", "tl.constexpr", "triton.compiler", "tritonerror"),
    ),
    (
        "compile_error",
        (
            "tcc.exe",
            "calledprocesserror",
            "inductorerror",
            "backendcompilerfailed",
            "cl.exe",
            "nvcc",
            "torch._dynamo",
        ),
    ),
    ("no_kernel_image", ("no kernel image is available",)),
    # PyTorch has no GPU to use: a CPU-only build, no driver, WSL without the card.
    (
        "no_cuda",
        (
            "torch not compiled with cuda enabled",
            "no cuda gpus are available",
            "found no nvidia driver",
            "cuda driver version is insufficient",
            "no cuda-capable device is detected",
        ),
    ),
    ("cuda_unknown_error", ("cuda error: unknown error",)),
    ("nan_loss", ("loss is nan", "nan loss", "loss is inf", "nan or inf", "non-finite loss")),
    (
        "dataloader_worker",
        ("dataloader worker", "bootstrapping phase", "freeze_support()", "ran out of input"),
    ),
    ("hf_gated", ("gatedrepoerror", "gated repo", "is restricted", "awaiting a review")),
    (
        "hf_auth",
        (
            "401 client error",
            "403 client error",
            "invalid user token",
            "invalid credentials",
            "huggingface-cli login",
        ),
    ),
    ("file_not_found", ("filenotfounderror", "no such file or directory", "does not exist", "not found:")),
)
# Where an AssertionError comes from quantizing or offloading weights (torchao, optimum-quanto, the
# trainer's own quantize and memory-management code).
_QUANTIZE_PLACES = ("quantiz", "torchao", "quanto", "memory_management", "offload", "qfloat8", "block_size")


def detail(block: str, files: list[str], coarse: str) -> str:
    """The finer kind of a non-OOM error (see `DETAILS`); `files` are its traceback's source files."""
    if coarse in {"missing_module", "config_error"}:
        return coarse
    lowered = block.lower()
    if "assertionerror" in lowered and any(
        place in text for place in _QUANTIZE_PLACES for text in (lowered, *(f.lower() for f in files))
    ):
        return "quantize_assertion"
    for kind, needles in DETAILS:
        if any(needle in lowered for needle in needles):
            if kind == "file_not_found" and "control" in lowered:
                return "control_image_missing"
            return kind
    return coarse
