"""`oomcheck`: the engine on the command line.

Exit status: 0 nothing found, 1 findings, 2 bad usage (an unreadable path, an unknown rule id, a
corrected config that cannot be written).
"""

from __future__ import annotations

import argparse
import errno
import functools
import gc
import math
import os
import stat
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, TextIO

from diagnosis.limits import DEFAULT_LIMITS
from locales import DEFAULT_LANGUAGE, LANGUAGES, known_language
from oomcheck import __version__

# Start-up time is part of the product (a benchmark figure, README): each command imports only what
# its path needs, so the engine, the templates, the catalogues and the JSON document are imported
# where they are used.
if TYPE_CHECKING:
    from diagnosis.models import SecretHit
    from diagnosis.report import Report

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
MAX_GPU_VRAM_GIB = 1024.0


def cli_message(key: str, lang: str, **params: object) -> str:
    from diagnosis.render import cli_message as message

    return message(key, lang, **params)


_LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")


def env_language(chosen: str | None = None, fallback: str = "en") -> str:
    """The language of what a command prints: `OOMCHECK_LANG`; else `chosen` (a setting of the
    command's own, such as the bot's reply language); else the locale (`LC_ALL`, `LC_MESSAGES`,
    `LANG`); else `fallback`."""
    for value in (os.environ.get("OOMCHECK_LANG"), chosen, *map(os.environ.get, _LOCALE_VARS), fallback):
        if value:
            # A locale set to a language without catalogues (C.UTF-8, de_DE) still decides: English.
            return known_language(value) or DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def _message_language(choice: str | None) -> str:
    return choice if choice in LANGUAGES else env_language()


def read_input(path: str | os.PathLike[str], cap: int) -> bytes:
    """Read a file; one far larger than the cap is read head and tail (the error sits at the end)."""
    size = os.stat(path).st_size
    with open(path, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return fh.read(4 * cap)  # a pipe or device has no size to trust: bound it like stdin
        if size <= 2 * cap:
            return fh.read()
        head = fh.read(cap // 8)
        fh.seek(size - cap)
        return head + b"\n" + fh.read()


class _HelpKey(str):
    """A catalogue key standing for a help text: it is looked up only when help is printed."""

    __slots__ = ()


def _terminal_columns() -> int:
    """The width argparse would ask `shutil` for. argparse builds a formatter for every argument it
    adds, and importing `shutil` (with bz2, lzma and fnmatch) for that would add to every `check` run."""
    try:
        columns = int(os.environ["COLUMNS"])
        if columns > 0:
            return columns
    except (KeyError, ValueError):
        pass
    stdout = sys.__stdout__
    try:
        return (os.get_terminal_size(stdout.fileno()).columns if stdout else 0) or 80
    except (AttributeError, ValueError, OSError):
        return 80


# argparse's own words (the usage line, the section titles, -h's help, its errors) are English
# message ids that it passes through gettext as it goes: they are taken from our catalogue instead,
# in the user's language. Help texts stay keys until help is printed (see _HelpKey).
_ARGPARSE_HELP = {
    "show this help message and exit": "help_action",
    "positional arguments": "positional_arguments",
    "options": "options",
}
_ARGPARSE_MESSAGES = {
    "usage: ": "usage",
    "%(prog)s: error: %(message)s\n": "error",
    "the following arguments are required: %s": "required",
    "unrecognized arguments: %s": "unrecognized",
    "argument %(argument_name)s: %(message)s": "argument",
    "expected one argument": "expected_one",
    "invalid choice: %(value)r (choose from %(choices)s)": "invalid_choice",
    "invalid %(type)s value: %(value)r": "invalid_value",
    "ambiguous option: %(option)s could match %(matches)s": "ambiguous",
}


def _argparse_text(lang: str, msgid: str) -> str:
    if msgid in _ARGPARSE_HELP:
        return _HelpKey(_ARGPARSE_HELP[msgid])
    key = _ARGPARSE_MESSAGES.get(msgid)
    return msgid if key is None else cli_message(f"cli.argparse.{key}", lang)


def _parse(words: list[str], lang: str) -> argparse.Namespace:
    """The command line parsed, argparse saying its own words in `lang` meanwhile (it looks up its
    gettext function at each use; it is put back after, for any other parser in the process)."""
    only = words[0] if words and words[0] in _COMMANDS else None
    english = argparse.__dict__["_"]
    argparse.__dict__["_"] = functools.partial(_argparse_text, lang)
    try:
        return _build_parser(lang, only).parse_args(words)
    finally:
        argparse.__dict__["_"] = english


class _HelpFormatter(argparse.HelpFormatter):
    def __init__(self, prog: str, *, lang: str) -> None:
        super().__init__(prog, width=_terminal_columns() - 2)  # argparse's own margin
        self._lang = lang

    def _text(self, text: str) -> str:
        return cli_message(f"cli.help.{text}", self._lang) if isinstance(text, _HelpKey) else text

    def start_section(self, heading: str | None) -> None:
        super().start_section(None if heading is None else self._text(heading))

    def _get_help_string(self, action: argparse.Action) -> str:
        return self._text(action.help or "")

    def add_text(self, text: str | None) -> None:
        super().add_text(None if text is None else self._text(text))


_COMMANDS = ("check", "estimate", "rules", "explain", "bot")


def _build_parser(lang: str, only: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser; with `only`, the sub-command `only` alone.

    A run names its command first, and argparse parses nothing of the other sub-commands, but building
    them (a formatter per argument, a catalogue of argparse's own messages per parser) was a tenth of
    the start-up of `oomcheck check`. Top-level help and a mistyped command get the whole parser.
    """
    # Every help text comes from the catalogue; reading it costs a YAML load that a plain
    # `oomcheck check` never needs, so the parser carries keys and the formatter resolves them.
    formatter = functools.partial(_HelpFormatter, lang=lang)

    def h(key: str) -> str:
        return _HelpKey(key)

    def add_parser(name: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=h(name), formatter_class=formatter)

    langs = ("auto", *LANGUAGES)
    parser = argparse.ArgumentParser(prog="oomcheck", description=h("description"), formatter_class=formatter)
    parser.add_argument("--version", action="version", version=f"oomcheck {__version__}", help=h("version"))
    sub = parser.add_subparsers(dest="command", required=True)

    if only in (None, "check"):
        check = add_parser("check")
        check.add_argument("paths", nargs="+", help=h("paths"))
        check.add_argument("--lang", choices=langs, default="auto", help=h("lang"))
        check.add_argument("--format", choices=("text", "markdown", "json"), default="text", help=h("format"))
        check.add_argument("--gpu-vram", type=float, metavar="GIB", help=h("gpu_vram"))
        check.add_argument("--diff", action="store_true", help=h("diff"))
        check.add_argument("--fix", action="store_true", help=h("fix"))
        check.add_argument("--in-place", action="store_true", help=h("in_place"))
        check.add_argument("--fetch", action="store_true", help=h("fetch"))

    if only in (None, "estimate"):
        est = add_parser("estimate")
        est.add_argument("paths", nargs="+", help=h("estimate_path"))
        est.add_argument("--gpu-vram", type=float, metavar="GIB", help=h("gpu_vram"))
        est.add_argument("--format", choices=("text", "json"), default="text", help=h("estimate_format"))
        est.add_argument("--lang", choices=langs, default="auto", help=h("lang_env"))
        est.add_argument("--fetch", action="store_true", help=h("fetch"))

    if only in (None, "rules"):
        rules = add_parser("rules")
        rules.add_argument("--lang", choices=langs, default="auto", help=h("lang_env"))

    if only in (None, "explain"):
        explain = add_parser("explain")
        explain.add_argument("rule_id", help=h("rule_id"))
        explain.add_argument("--lang", choices=langs, default="auto", help=h("lang_env"))

    if only in (None, "bot"):
        bot = add_parser("bot")
        bot.add_argument("--check-config", action="store_true", help=h("check_config"))
        bot.add_argument("--health", action="store_true", help=h("health"))
    return parser


def _shown(path: str) -> str:
    """A path as a message prints it: a name's escape sequences and bidi marks never reach the terminal."""
    from diagnosis.names import display_name

    return display_name(path)


def _valid_vram(value: float | None) -> bool:
    # nan, inf and negative sizes would poison every threshold comparison downstream
    return value is None or (math.isfinite(value) and 0 < value <= MAX_GPU_VRAM_GIB)


def _diagnosed(
    args: argparse.Namespace, lang: str, err: TextIO, *, steps: int | None = 1
) -> tuple[Report, list[bytes]] | None:
    """The case of `check` and `estimate`, diagnosed, with every path's bytes; None (said on `err`)
    when --gpu-vram is not a size or a path cannot be read."""
    if not _valid_vram(args.gpu_vram):
        err.write(cli_message("cli.bad_gpu_vram", lang, value=args.gpu_vram) + "\n")
        return None
    read = _read_inputs(args, DEFAULT_LIMITS.max_input_bytes, lang, err)
    if read is None:
        return None
    texts, sources = read

    from diagnosis import diagnose

    report: Report = diagnose(
        texts,
        locale=None if args.lang == "auto" else args.lang,
        # A bare config or log has no words to take the language from: the user's own setting then.
        default_language=lang,
        gpu_vram_gib=args.gpu_vram,
        sources=sources,
        steps=steps,
    )
    return report, texts


def _check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    lang = _message_language(args.lang)
    # The JSON lists every ladder step with its verification; the reply shows step 1.
    case = _diagnosed(args, lang, err, steps=None if args.format == "json" else 1)
    if case is None:
        return EXIT_USAGE
    report, texts = case

    fix = _plan_fix(args, texts, report, lang) if args.fix else None
    if args.format == "json":
        import json

        from diagnosis.jsondoc import report_to_dict
        from diagnosis.outgate.report import gated

        out.write(json.dumps(gated(report, report_to_dict), ensure_ascii=False, indent=2) + "\n")
    else:
        from diagnosis.render import render_cli

        restored = fix is not None and fix.restored
        out.write(
            render_cli(report, fmt=args.format, fixing=args.fix, paths_restored=restored, diff=args.diff)
        )

    if fix is not None and not _write_fix(fix, lang, err):
        return EXIT_USAGE
    return EXIT_FINDINGS if report.findings else EXIT_CLEAN


def _estimate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The memory estimate of a config: exit 0 when one was printed, 2 when none can be made."""
    lang = _message_language(args.lang)
    case = _diagnosed(args, lang, err)
    if case is None:
        return EXIT_USAGE
    report, _ = case

    from diagnosis.estimate.reply import reply_estimate

    estimate = reply_estimate(report)
    if estimate is None:
        from diagnosis.render.estimate_table import render_no_estimate

        err.write(render_no_estimate(report, lang) + "\n")
        return EXIT_USAGE
    if args.format == "json":
        import json

        from diagnosis.estimate.reply import estimate_to_dict

        out.write(json.dumps(estimate_to_dict(estimate), ensure_ascii=False, indent=2) + "\n")
    else:
        from diagnosis.render.estimate_table import render_estimate_text

        out.write(render_estimate_text(estimate, lang))
    return EXIT_CLEAN


def _read_inputs(
    args: argparse.Namespace, cap: int, lang: str, err: TextIO
) -> tuple[list[bytes], list[str]] | None:
    """Every path's bytes and source name (a link fetched with --fetch, a screenshot read as text);
    None after saying which one cannot be read."""
    texts: list[bytes] = []
    sources: list[str] = []
    for raw in args.paths:
        if raw == "-":
            data, source = sys.stdin.buffer.read(4 * cap), "stdin"
        elif raw.startswith(("https://", "http://")):
            if not args.fetch:
                err.write(cli_message("cli.link_needs_fetch", lang, url=raw) + "\n")
                return None
            fetched = _fetch(raw, cap, lang, err)
            if fetched is None:
                return None
            data, source = fetched
        else:
            try:
                data, source = read_input(raw, cap), os.path.basename(raw)
            except OSError as exc:
                reason = os_reason(exc, lang)
                err.write(cli_message("cli.unreadable", lang, path=_shown(raw), reason=reason) + "\n")
                return None
        data, source = _screenshot_text(data, source, lang, err)
        texts.append(data)
        sources.append(source)
    return texts, sources


def _fetch(url: str, cap: int, lang: str, err: TextIO) -> tuple[bytes, str] | None:
    """A link's raw text (or image) under the bot's rules (bot/links.py), or None after saying why not."""
    import asyncio

    from bot.links import FetchLimits, LinkFetcher, link_label, paste_links

    found = paste_links(url)
    if not found:
        err.write(cli_message("cli.link.host", lang, url=url) + "\n")
        return None
    link, raw = found[0]
    limits = FetchLimits(max_bytes=cap)

    async def fetch() -> tuple[bytes | None, str | None]:
        fetcher = LinkFetcher(limits)
        try:
            got = await fetcher.fetch(link, raw)
        finally:
            await fetcher.close()
        return got.data, got.refusal

    data, refusal = asyncio.run(fetch())
    if data is None:
        mib = f"{cap / (1024 * 1024):.1f}".removesuffix(".0")
        err.write(cli_message(f"cli.link.{refusal}", lang, url=url, limit_mib=mib) + "\n")
        return None
    return data, link_label(link)


def _screenshot_text(data: bytes, source: str, lang: str, err: TextIO) -> tuple[bytes, str]:
    """`data` as it is, or the text read from it when it is a screenshot. An image that cannot be
    read (no Tesseract, no text, an unsure read) is said on stderr and brings no text: the rest of the
    case is still diagnosed, and the reply asks for what is missing."""
    from diagnosis.decode import image_format

    if image_format(data) is None:
        return data, source
    from bot import ocr  # only for an image: a plain check never imports the bot's modules

    if not ocr.available():
        err.write(cli_message("cli.no_ocr", lang, path=source) + "\n")
        return b"", source
    read = ocr.read_screenshot(data)
    if read.status is ocr.ReadStatus.TEXT:
        from diagnosis.render.view import screenshot_source

        err.write(cli_message("cli.ocr_read", lang, path=source) + "\n")
        return read.text.encode("utf-8"), screenshot_source(source)
    key = {
        ocr.ReadStatus.UNSURE: "cli.ocr_unsure",
        ocr.ReadStatus.NO_TEXT: "cli.ocr_no_text",
    }.get(read.status, "cli.ocr_refused")
    err.write(cli_message(key, lang, path=source) + "\n")
    return b"", source


def _restore_home_paths(original: str, redacted: str, corrected: str, hits: list[SecretHit]) -> str:
    """Put the user's own home paths back into the corrected file written on their disk.

    Redaction protects replies, logs and the bot's database; a path on the user's own disk is theirs.
    Tokens stay redacted even there: the reply tells the user to revoke them, and a config is no place
    for one. Scrubbing never adds or removes a line, so unchanged lines map one to one.
    """
    from diagnosis import linediff

    original_lines, redacted_lines = original.split("\n"), redacted.split("\n")
    if len(original_lines) != len(redacted_lines):
        return corrected
    keep_redacted = {hit.line for hit in hits if hit.kind != "home_path"}
    corrected_lines = corrected.split("\n")
    out: list[str] = []
    for tag, i1, i2, j1, j2 in linediff.opcodes(redacted_lines, corrected_lines):
        if tag != "equal":
            out.extend(corrected_lines[j1:j2])
            continue
        for k in range(i1, i2):
            out.append(redacted_lines[k] if k + 1 in keep_redacted else original_lines[k])
    return "\n".join(out)


class _Fix(NamedTuple):
    """What --fix is about to do: write `corrected` to `target` (None: nothing to write), after saying
    `notes`; `restored`: the written file has the user's own home paths back; `replace`: `target` is the
    original, overwritten; `mode`: the written file's permissions; `refused`: the command line asked for
    something unsafe (a usage error, not merely nothing to write)."""

    target: str | None
    corrected: str
    restored: bool
    notes: list[str]
    replace: bool = False
    mode: int = 0o644
    refused: bool = False


def _source_mode(raw: str) -> int:
    """The permissions the corrected copy of `raw` gets: the original's (a private config stays
    private), or a new file's for standard input and anything that is not a regular file."""
    from oomcheck.fixfile import default_mode

    try:
        st = os.stat(raw)
    except OSError:
        return default_mode()
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else default_mode()


def _plan_fix(args: argparse.Namespace, texts: list[bytes], report: Report, lang: str) -> _Fix:
    """Decided before the reply is printed, which says whether the written file keeps the user's paths."""
    corrected = report.corrected_config
    config = report.config
    if corrected is None or config is None:
        return _Fix(None, "", False, [cli_message("cli.nothing_to_fix", lang)])
    from pathlib import Path  # only a run that writes a file pays for pathlib's import

    from diagnosis.decode import decode
    from diagnosis.scrub import scrub
    from oomcheck.fixfile import default_mode, in_place_refusal

    index = config.piece.input_index
    raw = args.paths[index] if index < len(args.paths) else "-"
    refusal = in_place_refusal(raw) if args.in_place else None
    if refusal is not None:
        # Overwriting a pipe waits for a reader that is gone; overwriting a link writes elsewhere.
        return _Fix(None, "", False, [cli_message(refusal, lang, path=_shown(raw))], refused=True)
    # Only a file that is the config and nothing else may be overwritten: a config cut out of a log or
    # a message is written beside it instead.
    original = decode(texts[index], DEFAULT_LIMITS.max_input_bytes).text
    redacted, secrets = scrub(original, config.piece.source)
    # A link or a screenshot is no file of the user's to write beside: the corrected config goes to
    # the working folder, as for stdin.
    from diagnosis.render.view import screenshot_source

    if raw.startswith(("https://", "http://")) or config.piece.source.startswith(screenshot_source("")):
        raw = "-"
    whole_file = raw != "-" and redacted.rstrip("\n") == config.piece.text.rstrip("\n")
    restored = any(hit.kind == "home_path" for hit in secrets)
    if restored and whole_file:
        newline = config.piece.newline
        lf = corrected.replace(newline, "\n")
        corrected = _restore_home_paths(original, redacted, lf, secrets).replace("\n", newline)
    elif restored:
        # A config read from stdin or cut out of a message or a log is written to the user's disk too:
        # its scrubbed lines are found by their text in the input (oomcheck/ownpaths.py).
        from oomcheck.ownpaths import own_path_lines, with_own_paths

        own = with_own_paths(corrected, own_path_lines(original, redacted, secrets))
        restored, corrected = own != corrected, own
    from diagnosis.outgate import gate_text

    # The output gate's last check: the user's own paths and addresses may stay in a file on their own
    # disk; credentials may not (also those only the gate recognises).
    gated = gate_text(corrected, keep_personal=True)
    # Overwriting a file whose token the corrected copy leaves out would lose it without a word.
    holds_token = gated != corrected or any(hit.kind != "home_path" for hit in secrets)
    corrected = gated
    in_place = args.in_place and whole_file and not holds_token
    suffix = ".json" if config.format == "json" else ".yaml"
    if raw == "-":
        target = Path("oomcheck.fixed" + suffix)
    elif in_place:
        target = Path(raw)
    else:
        path = Path(raw)
        target = path.with_name(f"{path.stem}.fixed{path.suffix if whole_file else suffix}")
    if target.is_symlink():
        return _Fix(
            None, "", False, [cli_message("cli.symlink", lang, path=_shown(str(target)))], refused=True
        )
    if target.exists() and not in_place:
        # --in-place is a way out only for a file that is the config alone (given, it would be in place).
        could_overwrite = whole_file and not holds_token
        key = "cli.fix_exists_in_place" if could_overwrite else "cli.fix_exists"
        return _Fix(None, "", False, [cli_message(key, lang, path=_shown(str(target)))])
    notes = []
    if args.in_place and not in_place:
        reason = "cli.not_in_place_token" if whole_file else "cli.not_in_place"
        notes.append(cli_message(reason, lang, path=_shown(raw)))
    mode = default_mode() if raw == "-" else _source_mode(raw)
    return _Fix(str(target), corrected, restored, notes, replace=in_place, mode=mode)


def _write_fix(fix: _Fix, lang: str, err: TextIO) -> bool:
    """Say the plan's notes and write the corrected config; False when the disk refused it."""
    from oomcheck.fixfile import write_atomically

    for note in fix.notes:
        err.write(note + "\n")
    if fix.target is None:
        return not fix.refused
    try:
        write_atomically(fix.target, fix.corrected, mode=fix.mode, replace=fix.replace)
    except OSError as exc:
        reason = os_reason(exc, lang)
        err.write(cli_message("cli.unwritable", lang, path=_shown(fix.target), reason=reason) + "\n")
        return False
    err.write(cli_message("cli.fix_written", lang, path=_shown(fix.target)) + "\n")
    return True


def os_reason(exc: OSError, lang: str) -> str:
    """Why a file could not be read or written, in the reply's language: the system's own words are
    English whatever the locale, so the common reasons are translated and the rest passed through."""
    from diagnosis.render.catalogue import lookup

    name = errno.errorcode.get(exc.errno or 0, "")
    key = f"cli.os_error.{name}"
    if name and lookup(key, lang) is not None:
        return cli_message(key, lang)
    return exc.strerror or str(exc)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one command. Without `argv` this is the program itself (the `oomcheck` script,
    `python -m oomcheck`), and the process ends when it returns."""
    out = out or sys.stdout
    err = err or sys.stderr
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parse(words, env_language())
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_CLEAN
    if args.command == "bot":
        from oomcheck.botcmd import run_bot

        return run_bot(check_config=args.check_config, health=args.health, out=out, err=err)
    try:
        return _command(args, out, err)
    finally:
        if argv is None:
            # The interpreter's exit runs full garbage collections over every object the imports
            # created (classes, functions, compiled patterns), a noticeable part of a short run, only
            # to find cycles the exit releases anyway. Frozen objects are left out of those passes;
            # nothing a one-shot command leaves behind needs a finaliser (its files are closed).
            gc.freeze()


def _command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command == "check":
        return _check(args, out, err)
    if args.command == "estimate":
        return _estimate(args, out, err)
    if args.command == "rules":
        from diagnosis.render import render_rules

        out.write(render_rules(_message_language(args.lang), fmt="text"))
        return EXIT_CLEAN
    if args.command == "explain":
        from diagnosis.render import render_explain

        lang = _message_language(args.lang)
        text = render_explain(args.rule_id, lang, fmt="text")
        if text is None:
            err.write(cli_message("cli.unknown_rule", lang, rule_id=args.rule_id) + "\n")
            return EXIT_USAGE
        out.write(text)
        return EXIT_CLEAN
    return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
