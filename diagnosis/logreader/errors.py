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
