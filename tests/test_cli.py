"""The command line: exit codes, JSON contract, --fix safety."""

from __future__ import annotations

import argparse
import io
import json
import shutil
from pathlib import Path

import pytest

from oomcheck.cli import (
    _COMMANDS,
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_USAGE,
    _build_parser,
    _terminal_columns,
    main,
)
from tests.conftest import CORPUS, EXAMPLES


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_json_output_follows_the_design_contract() -> None:
    code, out, _ = run("check", str(EXAMPLES / "flux_lora_24gb_gc_off.yaml"), "--format", "json")
    assert code == EXIT_FINDINGS  # gradient checkpointing is off in this example
    data = json.loads(out)
    assert data["findings"]
    for key in ("findings", "not_oom", "corrected_config", "diff", "language", "facts"):
        assert key in data
    for key in ("phase", "step", "oom_kind", "gpu_total_gib", "family"):
        assert key in data["facts"]


def test_json_verifies_every_step_of_the_ladder() -> None:
    # A case with a three-step ladder: the JSON reports each step as written and verified, not only
    # the first one that a reply shows.
    case = next(CORPUS.glob("*/101-*/input.txt"))
    code, out, _ = run("check", str(case), "--format", "json")
    assert code == EXIT_FINDINGS
    steps = json.loads(out)["ladder"]
    assert len(steps) >= 3
    assert all(step["verified"] for step in steps if step["edits"])


def test_missing_file_is_a_usage_error() -> None:
    code, out, err = run("check", "/nonexistent/config.yaml")
    assert code == EXIT_USAGE
    assert out == ""
    assert err.strip()


def test_unknown_subcommand_is_a_usage_error() -> None:
    code, _, _ = run("frobnicate")
    assert code == EXIT_USAGE


def test_unknown_rule_is_a_usage_error() -> None:
    code, _, err = run("explain", "no_such_rule")
    assert code == EXIT_USAGE
    assert "no_such_rule" in err


def test_every_corpus_input_answers_in_json_without_a_traceback() -> None:
    inputs = sorted(CORPUS.glob("*/*/input.txt"))
    assert len(inputs) >= 38
    for path in inputs:
        code, out, _ = run("check", str(path), "--format", "json")
        assert code in (EXIT_CLEAN, EXIT_FINDINGS), path
        json.loads(out)


def test_fix_never_overwrites_without_in_place(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    config.write_bytes((EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_bytes())
    before = config.read_bytes()
    run("check", str(config), "--fix")
    assert config.read_bytes() == before
    assert (tmp_path / "job.fixed.yaml").read_bytes() != before  # the fix went beside it


def test_absurd_gpu_vram_is_a_usage_error_in_both_languages() -> None:
    for value in ("nan", "inf", "-1", "0", "5000"):
        for lang in ("en", "ja"):
            code, out, err = run(
                "check", str(EXAMPLES / "flux_lora_24gb_gc_off.yaml"), f"--gpu-vram={value}", "--lang", lang
            )
            assert code == EXIT_USAGE
            assert out == ""
            assert "--gpu-vram" in err and "cli." not in err


def test_a_sensible_gpu_vram_is_accepted() -> None:
    code, out, _ = run(
        "check", str(EXAMPLES / "flux_lora_24gb_gc_off.yaml"), "--gpu-vram", "16", "--format", "json"
    )
    assert code == EXIT_FINDINGS
    assert json.loads(out)["facts"]["vram_gib"] == 16


def test_fix_writes_the_whole_corrected_file_beside_the_original(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    original = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    config.write_text(original, encoding="utf-8")
    code, _, err = run("check", str(config), "--fix", "--lang", "en")
    assert code == EXIT_FINDINGS
    fixed = tmp_path / "job.fixed.yaml"
    assert str(fixed) in err
    before, after = original.splitlines(), fixed.read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [
        (
            "        gradient_checkpointing: false # off, to go faster",
            "        gradient_checkpointing: true # off, to go faster",
        )
    ]
    code, _, err = run("check", str(config), "--fix", "--lang", "en")
    assert "--in-place" in err  # the second run refuses to overwrite its earlier output


def test_fix_in_place_overwrites_only_a_file_that_is_the_config(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    config.write_bytes((EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_bytes())
    run("check", str(config), "--fix", "--in-place")
    assert "gradient_checkpointing: true # off" in config.read_text(encoding="utf-8")

    message = tmp_path / "message.txt"
    body = "my config:\n```yaml\n" + (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    message.write_text(body + "```\nwhy does it crash?\n", encoding="utf-8")
    before = message.read_bytes()
    run("check", str(message), "--fix", "--in-place")
    assert message.read_bytes() == before
    assert "gradient_checkpointing: true" in (tmp_path / "message.fixed.yaml").read_text(encoding="utf-8")


def test_help_comes_from_the_catalogue_in_the_user_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for lang, expected in (("ja_JP.UTF-8", "メモリ不足"), ("en_US.UTF-8", "out-of-memory")):
        monkeypatch.setenv("LANG", lang)
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.delenv("LC_MESSAGES", raising=False)
        monkeypatch.delenv("OOMCHECK_LANG", raising=False)
        assert main(["--help"]) == EXIT_CLEAN
        out = capsys.readouterr().out
        assert expected in out
        assert "cli.help" not in out


def test_fix_keeps_the_users_own_paths_and_tokens_in_their_file(tmp_path: Path) -> None:
    original = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    original = original.replace('folder_path: "datasets/my_person"', 'folder_path: "/home/alice/datasets/me"')
    assert "/home/alice/" in original
    config = tmp_path / "job.yaml"
    config.write_text(original, encoding="utf-8")
    code, out, err = run("check", str(config), "--fix", "--in-place")
    assert code == EXIT_FINDINGS
    assert "alice" not in out and "alice" not in err  # the reply never shows the user name
    written = config.read_text(encoding="utf-8")
    assert written == original.replace(
        "gradient_checkpointing: false # off", "gradient_checkpointing: true # off"
    )


def test_a_device_or_pipe_is_read_with_a_bound() -> None:
    from oomcheck.cli import read_input

    assert len(read_input(Path("/dev/zero"), 1024)) == 4 * 1024


def test_fix_restores_home_paths_but_never_a_token(tmp_path: Path) -> None:
    token = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
    original = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    original = original.replace('folder_path: "datasets/my_person"', 'folder_path: "/home/alice/datasets/me"')
    original = original.replace("  trigger_word:", f"  hf_token: {token}\n      trigger_word:")
    config = tmp_path / "job.yaml"
    config.write_text(original, encoding="utf-8")
    code, out, err = run("check", str(config), "--fix")
    assert code == EXIT_FINDINGS
    assert token not in out and token not in err
    written = (tmp_path / "job.fixed.yaml").read_text(encoding="utf-8")
    assert token not in written
    assert '"/home/alice/datasets/me"' in written
    assert "gradient_checkpointing: true # off" in written


def test_in_place_never_overwrites_a_file_that_holds_a_token(tmp_path: Path) -> None:
    token = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
    original = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    original = original.replace("  trigger_word:", f"  hf_token: {token}\n      trigger_word:")
    config = tmp_path / "job.yaml"
    config.write_text(original, encoding="utf-8")
    _, _, err = run("check", str(config), "--fix", "--in-place", "--lang", "en")
    assert config.read_text(encoding="utf-8") == original
    assert "holds a token" in err and token not in err
    assert token not in (tmp_path / "job.fixed.yaml").read_text(encoding="utf-8")


def test_the_reply_offers_fix_only_when_it_was_not_asked_for(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    config.write_bytes((EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_bytes())
    _, plain, _ = run("check", str(config), "--lang", "en")
    _, fixing, _ = run("check", str(config), "--lang", "en", "--fix")
    assert "run the same command with --fix" in plain
    assert "--fix" not in fixing


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no sub-commands")


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("command", _COMMANDS)
def test_a_command_parsed_alone_reads_and_helps_as_in_the_whole_parser(
    command: str, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `main` builds only the sub-command a run names (start-up, issue #8): its help, its usage and
    # what it parses must be those of the whole parser.
    monkeypatch.setenv("COLUMNS", "60")
    whole, alone = _build_parser(lang), _build_parser(lang, only=command)
    assert _subparsers(alone)[command].format_help() == _subparsers(whole)[command].format_help()
    assert list(_subparsers(alone)) == [command]
    argv = {
        "check": ["check", "a.yaml", "--format", "json"],
        "estimate": ["estimate", "a.yaml", "--format", "json"],
        "explain": ["explain", "gc_off"],
    }
    words = argv.get(command, [command])
    assert alone.parse_args(words) == whole.parse_args(words)


@pytest.mark.parametrize("columns", ["", "0", "-3", "abc", "37", "133"])
def test_help_is_as_wide_as_argparse_would_make_it(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The formatter asks for the width itself, without importing shutil; argparse would have asked
    # shutil and kept two columns of margin.
    monkeypatch.setenv("COLUMNS", columns)
    assert _terminal_columns() == shutil.get_terminal_size().columns
    parser = _build_parser("en")
    plain = argparse.ArgumentParser(prog="oomcheck", description="x")
    assert parser._get_formatter()._width == plain._get_formatter()._width  # type: ignore[attr-defined]


# --- findings of the user-eyes review (--fix errors, the way out, --version, the reply's language) ------


def test_a_corrected_config_that_cannot_be_written_is_a_usage_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read from stdin, the corrected config goes to the working folder: here one that is gone.
    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_bytes()
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    from diagnosis.render import cli_message

    for lang, said in (
        ("en", "Cannot write oomcheck.fixed.yaml"),
        ("ja", "oomcheck.fixed.yaml に書き込めません"),
    ):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text), encoding="utf-8"))
        code, out, err = run("check", "-", "--fix", "--lang", lang)
        assert code == EXIT_USAGE
        assert out  # the diagnosis itself was still printed
        # The system's reason in the user's language (its own words are English whatever the locale).
        reason = cli_message("cli.os_error.ENOENT", lang)
        assert said in err and reason in err and "Traceback" not in err


def test_fix_says_the_written_file_keeps_the_users_paths(tmp_path: Path) -> None:
    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    home = text.replace('folder_path: "datasets/my_person"', 'folder_path: "/home/alice/datasets/my_person"')
    assert home != text
    config = tmp_path / "job.yaml"
    config.write_text(home, encoding="utf-8")
    _, out, _ = run("check", str(config), "--lang", "en")
    assert "Put yours back" in out  # the reply shows USER, and nothing was written
    _, out, _ = run("check", str(config), "--fix", "--lang", "en")
    assert "Put yours back" not in out and "keeps your own paths" in out
    assert "/home/alice/datasets/my_person" in (tmp_path / "job.fixed.yaml").read_text(encoding="utf-8")
    _, out, err = run("check", str(config), "--fix", "--lang", "en")  # not written: it exists
    assert "already exists" in err and "Put yours back" in out


def test_an_existing_fixed_file_names_in_place_only_where_it_would_help(tmp_path: Path) -> None:
    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    config = tmp_path / "job.yaml"
    config.write_text(text, encoding="utf-8")
    message = tmp_path / "message.txt"
    message.write_text("my config:\n```yaml\n" + text + "```\nwhy?\n", encoding="utf-8")
    for path in (config, message):
        run("check", str(path), "--fix", "--lang", "en")
    # A whole-file config: --in-place would overwrite the original instead.
    _, _, err = run("check", str(config), "--fix", "--lang", "en")
    assert "already exists" in err and "--in-place" in err
    # A message holds more than the config, and --in-place was given already: rename or remove it.
    for argv in (("--fix",), ("--fix", "--in-place")):
        _, _, err = run("check", str(message), *argv, "--lang", "en")
        assert "already exists" in err and "Remove or rename" in err
        assert "add --in-place" not in err


def test_version_is_the_installed_one(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == EXIT_CLEAN
    assert capsys.readouterr().out.strip() == f"oomcheck {version('oomcheck')}"


def test_a_bare_config_is_answered_in_the_users_language_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    # No words of the user's own to take the language from: OOMCHECK_LANG / LANG decide, as they do
    # for every other message of the command line.
    config = str(EXAMPLES / "flux_lora_24gb_gc_off.yaml")
    for var in ("OOMCHECK_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OOMCHECK_LANG", "ja")
    assert json.loads(run("check", config, "--format", "json")[1])["language"] == "ja"
    assert json.loads(run("check", config, "--format", "json", "--lang", "en")[1])["language"] == "en"
    monkeypatch.setenv("OOMCHECK_LANG", "en")
    assert json.loads(run("check", config, "--format", "json")[1])["language"] == "en"
    # The user's own words still win over the setting.
    monkeypatch.setenv("OOMCHECK_LANG", "ja")
    log = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
    message = "My training stops with this error every time, what should I change?\n" + log
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(message.encode("utf-8")), encoding="utf-8"))
    assert json.loads(run("check", "-", "--format", "json")[1])["language"] == "en"


def test_the_messages_the_fix_writes_have_their_params_in_both_languages() -> None:
    from diagnosis.render import cli_message

    for lang in ("en", "ja"):
        assert "{path}" not in cli_message("cli.fix_exists_in_place", lang, path="x.fixed.yaml")
        assert "x.fixed.yaml" in cli_message("cli.fix_exists_in_place", lang, path="x.fixed.yaml")
        text = cli_message("cli.unwritable", lang, path="x.fixed.yaml", reason="No space left")
        assert "x.fixed.yaml" in text and "No space left" in text


# --- argparse's own words (usage, section titles, -h, its errors) in the user's language ------------


def test_argparse_words_we_translate_are_argparses_own() -> None:
    from pathlib import Path as _Path

    from diagnosis.render import cli_message
    from oomcheck.cli import _ARGPARSE_HELP, _ARGPARSE_MESSAGES, _argparse_text

    source = _Path(argparse.__file__).read_text(encoding="utf-8")
    for msgid, key in {**_ARGPARSE_HELP, **_ARGPARSE_MESSAGES}.items():
        # A Python whose argparse words changed would leave ours unused: this says so.
        assert repr(msgid) in source or repr(msgid).replace("'", '"') in source, msgid
        english = (
            cli_message(f"cli.help.{key}", "en") if msgid in _ARGPARSE_HELP else _argparse_text("en", msgid)
        )
        assert english == msgid  # English stays exactly what argparse says


def test_usage_errors_and_help_speak_japanese(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OOMCHECK_LANG", "ja")
    assert main(["check"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("使い方: oomcheck check")
    assert "oomcheck check: エラー: 次の引数が必要です: paths" in err
    assert main(["check", "x", "--format", "yaml"]) == EXIT_USAGE
    assert "'yaml' は選べません" in capsys.readouterr().err
    assert main(["check", "--help"]) == EXIT_CLEAN
    shown = capsys.readouterr().out
    assert "位置引数:" in shown and "オプション:" in shown and "このヘルプを表示して終了します" in shown
    assert "usage" not in shown and "options:" not in shown
    # Put back afterwards: another parser in the process still speaks argparse's English.
    plain = argparse.ArgumentParser(prog="other")
    assert "options:" in plain.format_help() and "show this help message and exit" in plain.format_help()


# --- issue #19: the advice ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_diff_prints_the_change_once_and_does_not_offer_diff_again(lang: str) -> None:
    code, out, _ = run("check", str(EXAMPLES / "flux_lora_24gb_gc_off.yaml"), "--diff", "--lang", lang)
    assert code == EXIT_FINDINGS
    assert out.count("+        gradient_checkpointing: true") == 1, out
    assert out.count("-        gradient_checkpointing: false") == 1, out
    assert out.count("--diff") == 0, out


def _home_config(tmp_path: Path) -> Path:
    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    text = text.replace('training_folder: "output"', 'training_folder: "/home/sora/ai-toolkit/output"')
    config = tmp_path / "job.yaml"
    config.write_text(text, encoding="utf-8")
    return config


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("flags", [(), ("--diff",), ("--format", "markdown"), ("--format", "json")])
def test_what_the_cli_prints_keeps_user_and_says_what_it_breaks(
    tmp_path: Path, lang: str, flags: tuple[str, ...]
) -> None:
    # Issue #19: `/home/sora/…` is `/home/USER/…` in the corrected config; printed, it stays so (every
    # output passes the same gate, DESIGN.md), and the reply says what USER breaks if pasted back.
    from diagnosis.render import message

    _, out, _ = run("check", str(_home_config(tmp_path)), "--lang", lang, *flags)
    assert "sora" not in out, out
    if "json" not in flags:
        assert message("reply.config.user_placeholder", lang) in out, out


@pytest.mark.parametrize("how", ["stdin", "message"])
def test_fix_gives_the_users_paths_back_in_a_config_from_stdin_or_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # Issue #19: the file --fix writes is on the user's own disk; a config that was not a whole file
    # (piped in, or pasted in a message) was written with USER, which breaks its paths.
    config = _home_config(tmp_path).read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    if how == "stdin":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(config.encode("utf-8"))))
        _, out, _ = run("check", "-", "--fix", "--lang", "en")
        written = tmp_path / "oomcheck.fixed.yaml"
    else:
        message_file = tmp_path / "message.txt"
        message_file.write_text("my config, why OOM?\n```yaml\n" + config + "```\n", encoding="utf-8")
        _, out, _ = run("check", str(message_file), "--fix", "--lang", "en")
        written = tmp_path / "message.fixed.yaml"
    text = written.read_text(encoding="utf-8")
    assert "/home/sora/ai-toolkit/output" in text and "USER" not in text, text
    assert "gradient_checkpointing: true" in text
    assert "sora" not in out and "keeps your own paths" in out, out


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_fixed_config_that_passes_only_after_step_1_says_what_is_still_risky(
    tmp_path: Path, lang: str
) -> None:
    # Issue #19: FLUX at batch 4 with buckets to 1024 on 24 GB. The ladder after the OOM named GC, then
    # batch and buckets; the file --fix wrote, checked alone, said "no out-of-memory risk".
    config = tmp_path / "job.yaml"
    shutil.copy(EXAMPLES / "flux_lora_24gb_gc_off.yaml", config)
    run("check", str(config), str(EXAMPLES / "flux_lora_24gb_oom.log"), "--fix", "--lang", lang)
    fixed = tmp_path / "job.fixed.yaml"
    _, out, _ = run("check", str(fixed), "--gpu-vram", "24", "--lang", lang)
    from diagnosis.render import message

    assert message("reply.headline.clean", lang) not in out, out
    assert "Batch Size" in out, out
    _, data, _ = run("check", str(fixed), "--gpu-vram", "24", "--format", "json")
    # The memory estimate says a training step at batch 4 and 1024 px does not fit 24 GB: the batch is
    # a risk of the file itself, not only what to change after another OOM.
    (first, *_) = json.loads(data)["findings"]
    assert first["id"] == "batch_too_large"
    assert (first["params"]["batch_size"], first["params"]["over"]) == (4, True)


def test_a_shipped_example_with_nothing_to_change_stays_clean() -> None:
    # Batch 1 on AI Toolkit's own FLUX settings: after an OOM only advice would follow, no config change.
    from diagnosis import diagnose
    from tests.rules.helpers import shipped

    report = diagnose([shipped("train_lora_flux_24gb")], gpu_vram_gib=24.0)
    assert not report.findings and not report.if_oom


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_clean_config_that_is_still_heavy_says_what_to_change_next(tmp_path: Path, lang: str) -> None:
    # FLUX.1 at batch 2 and 1024 px on 24 GB: nothing in the file alone is a risk (the estimate says a
    # step is close, not over), but after an OOM in a step the batch and the buckets come next.
    from diagnosis.render import message
    from tests.rules.helpers import shipped

    config = tmp_path / "job.yaml"
    config.write_text(shipped("train_lora_flux_24gb", ("batch_size: 1", "batch_size: 2")), encoding="utf-8")
    _, out, _ = run("check", str(config), "--gpu-vram", "24", "--lang", lang)
    assert message("reply.headline.clean_heavy", lang) in out, out
    assert message("reply.clean.still_heavy", lang) in out, out
    _, data, _ = run("check", str(config), "--gpu-vram", "24", "--format", "json")
    assert [r["id"] for r in json.loads(data)["if_oom"]][:2] == ["batch_too_large", "bucket_too_large"]
