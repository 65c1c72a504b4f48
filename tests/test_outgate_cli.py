"""The output gate through the command line: text, Markdown, JSON, the diff and the --fix file.

The fixture `leaky_config.yaml` is the FLUX example with FAKE secrets of every class in its `meta:`
block (a token split by an invisible character among them) and a home path with a non-ASCII name."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from oomcheck.cli import EXIT_FINDINGS, main
from tests.conftest import EXAMPLES
from tests.test_outgate import (
    AWS_ID,
    AWS_SECRET,
    CIVITAI,
    FAL,
    GITHUB_PAT,
    GOOGLE,
    KEY_BODY,
    SLACK,
    STRIPE,
    WANDB,
    WEBHOOK_ID_TOKEN,
)

FIXTURE = Path(__file__).parent / "fixtures" / "outgate" / "leaky_config.yaml"
SECRETS = [
    "Qx7Rt2Vb9Nm4Kp6Ls1Dw3Fy8Gh5Jz0AcEe",
    WEBHOOK_ID_TOKEN,
    GITHUB_PAT[11:],
    AWS_ID,
    AWS_SECRET,
    GOOGLE[4:],
    SLACK[5:],
    STRIPE[8:],
    FAL[37:],
    "alice.smith",
    "s3cretPass",
    "ssw0rd",
    WANDB,
    CIVITAI,
    KEY_BODY,
    "müller",
]
LOG = EXAMPLES / "flux_lora_24gb_oom.log"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def test_the_fixture_holds_every_secret() -> None:
    # The test below could not fail on a fixture that lost its secrets.
    assert leaks(FIXTURE.read_text(encoding="utf-8")) == SECRETS


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_no_secret_leaves_in_any_format(fmt: str, tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    config.write_bytes(FIXTURE.read_bytes())
    code, out, _ = run("check", str(config), str(LOG), "--format", fmt, "--diff", "--lang", "en")
    assert code == EXIT_FINDINGS
    assert leaks(out) == []


def test_json_holds_the_whole_corrected_config_gated_and_counts_what_it_replaced(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    config.write_bytes(FIXTURE.read_bytes())
    _, out, _ = run("check", str(config), str(LOG), "--format", "json")
    doc = json.loads(out)
    corrected = doc["corrected_config"]
    assert "gradient_checkpointing: true" in corrected
    assert "key: REDACTED_TOKEN" in corrected and "REDACTED_PRIVATE_KEY" in corrected
    assert leaks(json.dumps(doc, ensure_ascii=False)) == []
    # Intake found two (the split hf_token and the civitai key); the gate the other credentials.
    assert doc["secrets_found"] >= 12


def test_the_reply_counts_what_the_gate_replaced(tmp_path: Path) -> None:
    """A reply that quotes a line intake did not see as secret says so, with the gate's count."""
    pat = GITHUB_PAT
    line = f"After the update training got 14x slower, I used {pat} to clone"
    path = tmp_path / "message.txt"
    path.write_text(line, encoding="utf-8")
    _, out, _ = run("check", str(path), "--lang", "en")
    assert pat[11:] not in out
    assert "I found 1 (GitHub token)" in out


def test_the_diff_is_gated(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    # The changed line itself holds the secret: the diff shows it as removed and added.
    text = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    text = text.replace("gradient_checkpointing: false # off", f"gradient_checkpointing: false # {GOOGLE}")
    config.write_text(text, encoding="utf-8")
    _, out, _ = run("check", str(config), "--diff", "--lang", "en")
    assert "+        gradient_checkpointing: true # REDACTED_GOOGLE_KEY" in out
    assert GOOGLE[4:] not in out


def test_fix_writes_no_credential_but_keeps_the_users_own_path(tmp_path: Path) -> None:
    config = tmp_path / "job.yaml"
    config.write_bytes(FIXTURE.read_bytes())
    code, out, err = run("check", str(config), "--fix", "--lang", "en")
    assert code == EXIT_FINDINGS
    written = (tmp_path / "job.fixed.yaml").read_text(encoding="utf-8")
    assert "gradient_checkpointing: true" in written
    credentials = [s for s in leaks(written) if s not in ("müller", "alice.smith")]
    assert credentials == []
    assert "/home/müller/ai-toolkit/output" in written  # the user's own disk: their path stays
    assert leaks(out + err) == []


def test_in_place_does_not_overwrite_a_file_whose_credential_only_the_gate_saw(tmp_path: Path) -> None:
    original = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
    original = original.replace("meta:\n", f"meta:\n  maps: {GOOGLE}\n")
    config = tmp_path / "job.yaml"
    config.write_text(original, encoding="utf-8")
    run("check", str(config), "--fix", "--in-place", "--lang", "en")
    assert config.read_text(encoding="utf-8") == original
    assert GOOGLE not in (tmp_path / "job.fixed.yaml").read_text(encoding="utf-8")
