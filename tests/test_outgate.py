"""The output gate on its own: every class of secret the issue lists (FAKE values made up for these
tests), hidden every way the issue tried, and the ordinary content of a reply left as it is."""

from __future__ import annotations

import base64

import pytest

from diagnosis.outgate import Found, gate_all, gate_text

# Realistic shapes, made-up values.
HF = "hf_Qx7Rt2Vb9Nm4Kp6Ls1Dw3Fy8Gh5Jz0AcEe"
GHP = "ghp_8Kd2Lm9Qw4Rt7Yu1Io3Pa5Sd6Fg0Hj2Kl4Zx"
R8 = "r8_Vb3Nm8Qw2Er5Ty7Ui9Op1As4Df6Gh0Jk2Lz"
DISCORD = "MTA4NzY1NDMyMTA5ODc2NTQzMg.GhT3xQ.aB9cD8eF7gH6iJ5kL4mN3oP2qR1sT0uV9wX8y"
GITHUB_PAT = "github_pat_11AZQW3KX0bq7Lm2Vn9Rt_4Ys8Dp1Fg6Hj3Kl5Zx7Cv0Bn2Mq4Wr6Et8Yu1Io3Pa5Sd7Fg9Hj2Kl4"
AWS_ID = "AKIAZ7Q3XJ5LNV2RHM4P"
AWS_SECRET = "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"
GOOGLE = "AIzaSyD3x7Qk9vLm2Np4Rs6Tu8Wy0Ab1Cd3Ef5G"
SLACK = "xoxb-2468013579-1357924680-aBcDeFgHiJkLmNoPqRsTuVwX"
STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc9ZqLm"
FAL = "3f2a9c1e-7b4d-4e8f-a1c2-9d8e7f6a5b4c:0a1b2c3d4e5f60718293a4b5c6d7e8f9"
WEBHOOK_ID_TOKEN = "112233445566778899/Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa_-ZyXwVuTsRqPoNmLkJiHgFeDcBa98"
WANDB = "3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c6d7e8f90"
CIVITAI = "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"
KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
SIGNATURE = "9f2c1b7a3e5d4c6b8a0f1e2d3c4b5a69788f7e6d5c4b3a291807f6e5d4c3b2a1"


def gated(text: str) -> tuple[str, list[str]]:
    found = Found()
    return gate_text(text, found), sorted(found.kinds.values())


# One case per class: (text, the secret that must not be left, the kind counted).
CLASSES = [
    (f"HF_TOKEN={HF}", HF[3:], "hf_token"),
    (f"login {GHP}", GHP[4:], "github_token"),
    (f"REPLICATE_API_TOKEN {R8}", R8[3:], "replicate_token"),
    (f"bot token {DISCORD}", DISCORD[-20:], "discord_token"),
    (f"clone with {GITHUB_PAT}", GITHUB_PAT[11:], "github_token"),
    (f"key id {AWS_ID} in the log", AWS_ID, "aws_key"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "assignment"),
    (f"maps {GOOGLE}", GOOGLE[4:], "google_key"),
    (f"notify {SLACK}", SLACK[5:], "slack_token"),
    (f"billing {STRIPE}", STRIPE[8:], "stripe_key"),
    (f"FAL_KEY {FAL}", FAL[37:], "fal_key"),
    (f"post to https://discord.com/api/webhooks/{WEBHOOK_ID_TOKEN}", WEBHOOK_ID_TOKEN, "discord_webhook"),
    (
        f"post to https://canary.discordapp.com/api/v10/webhooks/{WEBHOOK_ID_TOKEN}",
        WEBHOOK_ID_TOKEN,
        "discord_webhook",
    ),
    (f"wandb:\n  project: lora\n  key: {WANDB}\n", WANDB, "assignment"),
    (f"civitai:\n  key: {CIVITAI}\n", CIVITAI, "assignment"),
    ('{"api_key": "Zk29xQ7mLp3Vn8Rt5Wy4"}', "Zk29xQ7mLp3Vn8Rt5Wy4", "assignment"),
    ('{"password": "hunter2!x"}', "hunter2!x", "assignment"),
    (f'{{"aws_secret_access_key": "{AWS_SECRET}"}}', AWS_SECRET, "aws_key"),
    ("session_cookie: s%3Aq8Zt4Kx", "q8Zt4Kx", "assignment"),
    ("cache: redis://:s3cretPass@10.0.0.2:6379/0", "s3cretPass", "url_credentials"),
    ("db: https://alice:p%40ssw0rd9@db.internal.net/x", "ssw0rd9", "url_credentials"),
    ("db: https://bob:pa@ss9word@db.internal.net/x", "ss9word", "url_credentials"),
    (
        "ssh_key: |\n  -----BEGIN OPENSSH PRIVATE KEY-----\n"
        f"  {KEY_BODY}\n  QyNTUxOQAAACBQ1z2Yk7Lr0nHq9mVxWc3sTb8JdFpKe4Ug6iZo5Rj1\n"
        "  -----END OPENSSH PRIVATE KEY-----\nnext: 1\n",
        KEY_BODY,
        "private_key",
    ),
    (
        f"https://b.s3.amazonaws.com/x.safetensors?X-Amz-Credential={AWS_ID}%2F20240101%2Fus-east-1"
        f"&X-Amz-Signature={SIGNATURE}",
        SIGNATURE,
        "signed_url",
    ),
    (
        "https://files.example.net/x.bin?sv=2022-11-02&sig=Qm9vYmFyYmF6cXV4MTIzNDU2",
        "Qm9vYmFyYmF6",
        "signed_url",
    ),
    ("write to alice.smith@example.org please", "alice.smith", "email"),
    ("network:\n  seed_token: Xq93Lk2Pz8Wm4Rt7Yv1Nb6Hd\n", "Xq93Lk2Pz8Wm4Rt7Yv1Nb6Hd", "assignment"),
    ("extra:\n  run_id: Xq93Lk2Pz8Wm4Rt7Yv1Nb6HdQ0\n", "Xq93Lk2Pz8Wm4Rt7Yv1Nb6HdQ0", "high_entropy"),
]


@pytest.mark.parametrize(
    ("text", "secret", "kind"), CLASSES, ids=[c[2] + str(i) for i, c in enumerate(CLASSES)]
)
def test_every_class_is_replaced_and_counted(text: str, secret: str, kind: str) -> None:
    out, kinds = gated(text)
    assert secret not in out
    assert kind in kinds


# Hidden from a plain pattern, whole for whoever reads the reply.
_HIDDEN_IN = ["\u200b", "\u00ad", "\u200d", "\u2060", "\ufeff", "\u202e", "\U000e0041", "\u2063"]


@pytest.mark.parametrize("token", [HF, GHP, R8, DISCORD], ids=["hf", "ghp", "r8", "discord"])
@pytest.mark.parametrize("hidden", _HIDDEN_IN, ids=[f"U+{ord(c):04X}" for c in _HIDDEN_IN])
def test_a_token_split_by_an_invisible_character_is_still_found(token: str, hidden: str) -> None:
    split = token[:9] + hidden + token[9:]
    out, kinds = gated(f"my token is {split} thanks")
    assert token[9:] not in out and token[:9] + hidden not in out
    assert out.startswith("my token is ") and out.endswith(" thanks")
    assert len(kinds) == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"token": "\\u0068f_' + HF[3:] + '"}',  # a JSON escape
        '{"t": "\\u0068\\u0066\\u005f' + HF[3:] + '"}',
        'hf: "' + HF[:14] + "\\\n    " + HF[14:] + '"',  # a YAML line continuation
        "url: https://example.net/x?t=hf%5F" + HF[3:],  # URL-encoded
        "url: https://example.net/x?t=hf%5f" + HF[3:],
        "ｈｆ＿" + HF[3:],  # fullwidth prefix
        "һf_" + HF[3:],  # Cyrillic shha for h
        "h\u0066_" + HF[3:],
        "escaped hf\\_" + HF[3:],  # the reply's own Markdown escape
    ],
)
def test_escapes_continuations_and_look_alikes_are_joined_for_matching(text: str) -> None:
    out, kinds = gated(text)
    assert HF[3:] not in out and HF[12:20] not in out
    assert kinds == ["hf_token"]


def test_a_base64_encoded_token_is_replaced_whole() -> None:
    encoded = base64.b64encode(f"HF_TOKEN={HF}".encode()).decode()
    out, kinds = gated(f"env: {encoded}")
    assert encoded not in out and out == "env: REDACTED_BASE64"
    assert len(kinds) == 1


def test_the_same_secret_twice_counts_once() -> None:
    found = Found()
    gate_all({"content": f"a {GOOGLE}", "files": [f"b {GOOGLE}\n".encode()]}, found)
    assert found.credentials() == ["google_key"]


def test_a_text_gated_again_reports_the_same_secrets() -> None:
    # The gate remembers the texts it gated last: a second pass must still say what it replaced,
    # and the gated text itself passes unchanged and clean.
    text = f"again {GOOGLE} and {SLACK}"
    first, second, clean = Found(), Found(), Found()
    out = gate_text(text, first)
    assert gate_text(text, second) == out
    assert sorted(second.credentials()) == sorted(first.credentials()) == ["google_key", "slack_token"]
    assert gate_text(out, clean) == out and clean.credentials() == []


def test_personal_data_is_replaced_but_not_counted_as_a_credential() -> None:
    found = Found()
    out = gate_text("path /home/müller/x and bob@example.org", found)
    assert out == "path /home/USER/x and REDACTED_EMAIL"
    assert found.credentials() == []


def test_keep_personal_leaves_paths_and_addresses_but_not_tokens() -> None:
    text = f"out: /home/alice/x\nmail: bob@example.org\nHF_TOKEN={HF}\n"
    out = gate_text(text, keep_personal=True)
    assert out == "out: /home/alice/x\nmail: bob@example.org\nHF_TOKEN=hf_REDACTED\n"


@pytest.mark.parametrize(
    "text",
    [
        "name_or_path: black-forest-labs/FLUX.1-dev",
        "max_token_length: 512\ntokenizer_max_length: 77\ncache_key: latents",
        "lr: 1e-4\nsave_every: 250\ngradient_checkpointing: true",
        "trigger_word: p3rs0n\nsecret_sauce: true\npassword_file: /etc/app/pass",
        "hf_token: hf_REDACTED\napi_key: REDACTED_TOKEN\nurl: https://user:REDACTED@host/x",
        "folder_path: /home/USER/data and C:\\Users\\USER\\x",
        "OOM: tried to allocate 512.00 MiB; 201.31 MiB free of 23.55 GiB",
        'File "/home/USER/ai-toolkit/run.py", line 90, in <module>\n    @torch.no_grad()',
        "Out of memory at step 2 of training: gradient checkpointing is turned off.",
        "学習の 2 ステップ目でメモリ不足になりました。勾配チェックポイントをオンに戻してください。",
        "see https://github.com/ostris/ai-toolkit#readme and pip install torch==2.5.1",
        '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1532',
        "100%|██████████| 2000/2000 [1:02:03<00:00,  1.86s/it, lr: 1.0e-04 loss: 4.215e-01]",
        "```yaml\nconfig:\n  # …\n  process:\n    - type: 'sd_trainer'\n```",
        "revision: 3f9a1c0 commit abc1234",
        # A sentence under a key named like a secret is no secret (the bot's own catalogue has these).
        'malformed_token: "DISCORD_TOKEN がトークンの形になっていません。3 つの部分からできています。"',
        'token_help: "Paste the token of 3 parts here, then restart the bot"',
    ],
)
def test_ordinary_reply_content_is_left_alone(text: str) -> None:
    out, kinds = gated(text)
    assert out == text
    assert kinds == []


def test_only_invisible_characters_around_nothing_secret_are_kept_as_they_are() -> None:
    # The gate removes nothing it did not replace: it reads the view, it does not print it.
    text = "ok\u200b then\u00ad more"
    assert gate_text(text) == text
