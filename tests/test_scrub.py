from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.scrub import scrub

CORPUS = Path(__file__).parent / "corpus"

# Made-up secrets of the right shapes (none of them is a real credential).
HF = "hf_uQx7LmNpRtVwYzAbCdEfGhJkMnPqRsTuVw"
DISCORD = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcDEF123ghiJKL456mnoPQR789stuVWX0"
WANDB = "3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c6d7e8f90"
CIVITAI = "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"
OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


@pytest.mark.parametrize(
    ("text", "secret", "kind", "placeholder"),
    [
        (f"my token is {HF} thanks", HF, "hf_token", "hf_REDACTED"),
        (f"bot = Bot(); bot.run('{DISCORD}')", DISCORD, "discord_token", "REDACTED_DISCORD_TOKEN"),
        (f"export WANDB_API_KEY={WANDB}", WANDB, "wandb_key", "REDACTED_WANDB_KEY"),
        (f"wandb login {WANDB}", WANDB, "wandb_key", "REDACTED_WANDB_KEY"),
        (f"civitai api key: {CIVITAI}", CIVITAI, "civitai_key", "REDACTED_CIVITAI_KEY"),
        (
            "wget https://civitai.com/api/download/models/12345?token=a1B2c3D4e5F6g7H8i9J0",
            "a1B2c3D4e5F6g7H8i9J0",
            "civitai_key",
            "REDACTED_CIVITAI_KEY",
        ),
        (f"OPENAI_API_KEY={OPENAI}", OPENAI, "openai_key", "sk-REDACTED"),
        (
            "key sk-9aZ8bY7cX6dW5eV4fU3gT2hS1 leaked",
            "sk-9aZ8bY7cX6dW5eV4fU3gT2hS1",
            "openai_key",
            "sk-REDACTED",
        ),
        ("HF_TOKEN=abcD3fGh1jKlMn0pQr", "abcD3fGh1jKlMn0pQr", "assignment", "REDACTED_TOKEN"),
        ("CIVITAI_API_KEY = 'Zx9Yw8Vu7Ts6Rq5P'", "Zx9Yw8Vu7Ts6Rq5P", "assignment", "REDACTED_TOKEN"),
        ("MY_SERVICE_SECRET=q1w2e3r4t5y6u7i8o9", "q1w2e3r4t5y6u7i8o9", "assignment", "REDACTED_TOKEN"),
        ("  hf_token: Tk4Lm9Np2Qr7St1Uv", "Tk4Lm9Np2Qr7St1Uv", "assignment", "REDACTED_TOKEN"),
        ('  token: "0a9B8c7D6e5F4g3H2"', "0a9B8c7D6e5F4g3H2", "assignment", "REDACTED_TOKEN"),
        ("api_key: A1b2C3d4E5f6G7h8", "A1b2C3d4E5f6G7h8", "assignment", "REDACTED_TOKEN"),
    ],
)
def test_each_kind_is_replaced(text: str, secret: str, kind: str, placeholder: str) -> None:
    out, hits = scrub(text, "message 1")
    assert secret not in out
    assert placeholder in out
    assert [h.kind for h in hits] == [kind]
    assert hits[0].source == "message 1"
    assert hits[0].line == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("folder_path: /home/alice/data/set1", "folder_path: /home/USER/data/set1"),
        ("cd /home/bob", "cd /home/USER"),
        ("File /Users/carol.smith/ai-toolkit/run.py", "File /Users/USER/ai-toolkit/run.py"),
        (r"File C:\Users\Dave\ai-toolkit\run.py", r"File C:\Users\USER\ai-toolkit\run.py"),
        (
            r'folder_path: "C:\\Users\\Erin Ko\\Pictures\\set"',
            r'folder_path: "C:\\Users\\USER\\Pictures\\set"',
        ),
        ("D:/Users/frank/lora/out", "D:/Users/USER/lora/out"),
        # Every form of the issue, any script of name, replaced as a whole path segment.
        (r"cd C:\Users\Alice", r"cd C:\Users\USER"),
        (r"USERPROFILE=C:\Users\Alice", r"USERPROFILE=C:\Users\USER"),
        (r"HOMEPATH=\Users\Alice", r"HOMEPATH=\Users\USER"),
        (r"PS C:\Users\alice> python run.py", r"PS C:\Users\USER> python run.py"),
        ("folder_path: /var/home/alice/set", "folder_path: /var/home/USER/set"),
        ("folder_path: /home/müller/set", "folder_path: /home/USER/set"),
        ("folder_path: /home/田中/set", "folder_path: /home/USER/set"),
        ("output: /Users/Zoë/lora", "output: /Users/USER/lora"),
        ("alice@gpu-box:~$ python run.py", "USER@gpu-box:~$ python run.py"),
        ("(venv) bob@gpu-box:~/ai-toolkit$ python run.py", "(venv) USER@gpu-box:~/ai-toolkit$ python run.py"),
        (
            "root@c0ffee12:/workspace/ai-toolkit# python run.py",
            "USER@c0ffee12:/workspace/ai-toolkit# python run.py",
        ),
    ],
)
def test_home_folder_names_are_replaced(text: str, expected: str) -> None:
    out, hits = scrub(text, "log")
    assert out == expected
    assert [h.kind for h in hits] == ["home_path"]


@pytest.mark.parametrize(
    "text",
    [
        "HF_HOME=/workspace/cache",
        "hf_home: /data/hf",
        "pip install sk-learn scikit-learn",
        "max_token_length: 77",
        "tokenizer_max_length: 512",
        "token: null",
        "hf_token: ${HF_TOKEN}",
        "HF_TOKEN=your_token_here",
        "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "HF_TOKEN=hf_REDACTED",
        "cache_key: latents",
        "commit 3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c6d7e8f90 of ai-toolkit",
        "model hash 9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e",
        "name_or_path: black-forest-labs/FLUX.1-dev",
        "/home/USER/ai-toolkit and C:\\Users\\USER\\x and /Users/Shared/x",
        "ValueError: tokens. 1.2.3 MTIz.abc.def",
        "trigger_word: sks_person_token_v2",
        "save_every: 250 # hf_api_token_when_pushing",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    out, hits = scrub(text, "message 1")
    assert out == text
    assert hits == []


def test_line_numbers_count_from_one_per_hit() -> None:
    text = f"first line\nHF_TOKEN={HF}\nnothing\npath /home/zoe/x\n"
    out, hits = scrub(text, "a.txt")
    assert [(h.kind, h.line) for h in hits] == [("hf_token", 2), ("home_path", 4)]
    assert out == "first line\nHF_TOKEN=hf_REDACTED\nnothing\npath /home/USER/x\n"


def test_corpus_config_with_token_still_parses_the_same() -> None:
    case = CORPUS / "synthetic" / "110-kontext-1024-bucket-hf-token-in-config"
    text = (case / "input.txt").read_text(encoding="utf-8")
    secret = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))["must_not_echo"][0]
    assert secret in text
    out, hits = scrub(text, "input.txt")
    assert secret not in out
    assert "hf_token" in {h.kind for h in hits}

    def config_of(t: str) -> object:
        block = re.search(r"```yaml\n(.*?)```", t, re.S)
        assert block is not None
        return yaml.safe_load(block.group(1))

    before, after = config_of(text), config_of(out)
    assert isinstance(before, dict) and isinstance(after, dict)
    save_before = before["config"]["process"][0]["save"]
    save_after = after["config"]["process"][0]["save"]
    assert save_after["hf_token"] == "hf_REDACTED"
    assert {k: v for k, v in save_after.items() if k != "hf_token"} == {
        k: v for k, v in save_before.items() if k != "hf_token"
    }
    assert after["config"]["process"][0]["datasets"] == before["config"]["process"][0]["datasets"]


@pytest.mark.parametrize(
    "placeholder_line", [f"hf_token: {HF}", f"HF_TOKEN: '{HF}'", f"path: /home/u{HF[3:9]}/x"]
)
def test_placeholders_keep_yaml_structure(placeholder_line: str) -> None:
    doc = f"a:\n  {placeholder_line}\n  b: [1, 2]\n"
    out, _ = scrub(doc, "c.yaml")
    loaded = yaml.safe_load(out)
    assert isinstance(loaded, dict)
    assert loaded["a"]["b"] == [1, 2]
    assert len(loaded["a"]) == 2


def test_offsets_survive_characters_that_change_length_when_lower_cased() -> None:
    text = f"İİİİ ß HF_TOKEN={HF} /home/al/x"
    out, hits = scrub(text, "m")
    assert out == "İİİİ ß HF_TOKEN=hf_REDACTED /home/USER/x"
    assert len(hits) == 2


def test_scrub_is_idempotent() -> None:
    text = f"HF_TOKEN={HF}\n{DISCORD}\n/home/al/x OPENAI_API_KEY={OPENAI}"
    once, hits = scrub(text, "m")
    assert len(hits) == 4
    twice, again = scrub(once, "m")
    assert twice == once
    assert again == []


def test_long_runs_of_token_characters_finish() -> None:
    # Shapes that would make a careless pattern rescan the run from every offset.
    for text in ("a" * 200_000, "A1-" * 70_000, "hf_" + "a1" * 100_000, "/home/" * 50_000, "x." * 100_000):
        assert scrub(text, "big") == (text, [])  # and none of them holds a secret


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_random_text_never_crashes_and_placeholders_are_yaml_safe(text: str) -> None:
    out, hits = scrub(text, "fuzz")
    for h in hits:
        assert h.line >= 1
    for ph in ("hf_REDACTED", "REDACTED_TOKEN", "REDACTED_DISCORD_TOKEN", "sk-REDACTED", "USER"):
        assert not set(ph) & set("*&[]{}#'\"") and ": " not in ph
    again, _ = scrub(out, "fuzz")
    assert again == out


GITHUB = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQ7rS"
RUNPOD = "rpa_K7M2Q9X4W1Z8B5N3C6V0L8J2H4G7F1D9S3A5P0"
REPLICATE = "r8_Zq4Wx7Ec1Rv9Tb2Yn6Um3Ik8Ol5Pj0Ah4Sd7F"


@pytest.mark.parametrize(
    ("text", "secret", "kind", "expected"),
    [
        (f"token {GITHUB} leaked", GITHUB, "github_token", "token ghp_REDACTED leaked"),
        (f"RUNPOD key is {RUNPOD}", RUNPOD, "runpod_key", "RUNPOD key is rpa_REDACTED"),
        (f"replicate: {REPLICATE}", REPLICATE, "replicate_token", "replicate: r8_REDACTED"),
        (
            "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc123XYZ' x",
            "eyJhbGciOiJIUzI1NiJ9.abc123XYZ",
            "bearer_token",
            "curl -H 'Authorization: Bearer REDACTED_TOKEN' x",
        ),
        (
            "git clone https://alice:s3cretPw@github.com/a/b",
            "s3cretPw",
            "url_credentials",
            "git clone https://alice:REDACTED@github.com/a/b",
        ),
        (
            "  password: correcthorsebattery",
            "correcthorsebattery",
            "assignment",
            "  password: REDACTED_TOKEN",
        ),
        ("DB_SECRET=letmeinplease", "letmeinplease", "assignment", "DB_SECRET=REDACTED_TOKEN"),
        ('secret: "Tr0ub4dor"', "Tr0ub4dor", "assignment", 'secret: "REDACTED_TOKEN"'),
    ],
)
def test_more_secret_shapes_are_replaced(text: str, secret: str, kind: str, expected: str) -> None:
    out, hits = scrub(text, "message 1")
    assert secret not in out
    assert out == expected
    assert [h.kind for h in hits] == [kind]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("folder_path: /mnt/c/Users/alice/lora/set", "folder_path: /mnt/c/Users/USER/lora/set"),
        (r"open \\wsl$\Ubuntu\home\dave\ai-toolkit", r"open \\wsl$\Ubuntu\home\USER\ai-toolkit"),
        (
            r'path: "\\\\wsl.localhost\\Ubuntu-22.04\\home\\dave\\x"',
            r'path: "\\\\wsl.localhost\\Ubuntu-22.04\\home\\USER\\x"',
        ),
    ],
)
def test_wsl_home_folder_names_are_replaced(text: str, expected: str) -> None:
    out, hits = scrub(text, "log")
    assert out == expected
    assert [h.kind for h in hits] == ["home_path"]


@pytest.mark.parametrize(
    "text",
    [
        "password_file: /etc/app/pass",
        "secret_sauce: true",
        "he was the bearer of bad news",
        "password: REDACTED_TOKEN",
        "password: ********",
        "secret: ${MY_SECRET}",
        "password: changeme",
        "url: https://user:REDACTED@host/x",
        "see https://github.com/ostris/ai-toolkit",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "mount /mnt/c/Users/Public/x",
    ],
)
def test_more_ordinary_text_is_left_alone(text: str) -> None:
    out, hits = scrub(text, "message 1")
    assert out == text
    assert hits == []


def test_new_placeholders_keep_yaml_structure() -> None:
    doc = (
        f"a:\n  password: hunterhunter\n  gh: {GITHUB}\n  url: https://u:p4ssw0rd@h/x\n"
        "  auth: Bearer abcDEF123ghiJKL456\n  b: [1, 2]\n"
    )
    out, hits = scrub(doc, "c.yaml")
    assert len(hits) == 4
    loaded = yaml.safe_load(out)
    assert loaded["a"]["b"] == [1, 2] and len(loaded["a"]) == 5
