"""Hostile inputs for the engine, the CLI and the renderers.

Small cases are committed under `fixtures/` (they double as the seed corpus of `make fuzz`); run
`python -m tests.hostile.gen` to rewrite them after changing a builder here. Big cases (megabytes) are
only ever built at test time, so the repository stays small.
"""

from __future__ import annotations

import random
import struct
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
ROOT = HERE.parent.parent
EXAMPLE_CONFIG = (ROOT / "examples" / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
EXAMPLE_LOG = (ROOT / "examples" / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")
# The example without its leading `---`, for cases that put YAML in front of it in the same document.
EXAMPLE_BODY = EXAMPLE_CONFIG.removeprefix("---\n")

MiB = 1024 * 1024

# One fake secret per kind of the scrubbing list. Each value must never reach any output.
HF_TOKEN = "hf_qZ7xW3vKp9LmN2bR5tY8uJ4cF6gH1dS0aE"
DISCORD_TOKEN = "MTE4NzY1NDMyMTA5ODc2NTQzMg.GxQ4rT.k9Jm2Lp5Nq8Rs1Tv4Wx7Yz0Ab3Cd6Ef9Gh2Ij5"
WANDB_KEY = "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a"
CIVITAI_KEY = "7c1e9a3b5d7f0e2a4c6b8d0f1a3c5e7b"
OPENAI_KEY = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34"
OPENAI_LEGACY_KEY = "sk-9fK2mQ7vX1bN4cL8pR3tW6yZ0aS5dG2hJ7kE1uI4oP9qT3rY"
ASSIGNED_TOKEN = "rp9Zx8Yw7Vu6Ts5Rq4Po3Nm"
HOME_USER = "kazuhiro_s"

ALL_SECRETS = (
    HF_TOKEN,
    DISCORD_TOKEN,
    WANDB_KEY,
    CIVITAI_KEY,
    OPENAI_KEY,
    OPENAI_LEGACY_KEY,
    ASSIGNED_TOKEN,
    HOME_USER,
)

SENTINEL_NAME = "oomcheck_pwned_sentinel"
# What Discord would turn into a ping or a link if a reply echoed it outside a code block.
MENTIONS = ("@everyone", "@here", "<@123>", "<@!123>", "<@&456>", "](https://evil.example")
BIDI_CONTROLS = ("\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069")


@dataclass(frozen=True)
class Case:
    """One hostile input: one or more files given to the CLI (and to `diagnose`) together."""

    name: str
    files: tuple[tuple[str, bytes], ...]  # (file name, content)
    secrets: tuple[str, ...] = ()  # substrings that must never appear in any output
    tags: frozenset[str] = field(default_factory=frozenset)  # extra checks: "mentions", "bidi", …


def _case(name: str, filename: str, data: bytes | str, *tags: str, secrets: tuple[str, ...] = ()) -> Case:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return Case(name, ((filename, raw),), secrets, frozenset(tags))


# ------------------------------------------------------------------------------------------------
# Helpers


def replace_line(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def png_bytes(width: int = 8, height: int = 8) -> bytes:
    """A tiny but valid PNG (a red-to-blue gradient)."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 32 % 256, 0, y * 32 % 256)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


OOM_LINE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity "
    "of 23.55 GiB of which 201.31 MiB is free. Including non-PyTorch memory, this process has 23.33 GiB "
    "memory in use. Of the allocated memory 22.60 GiB is allocated by PyTorch, and 301.77 MiB is reserved "
    "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)


# ------------------------------------------------------------------------------------------------
# Small cases (committed as fixtures)


def _alias_bomb_lists() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def _alias_bomb_in_config() -> str:
    # The bomb sits where the renderer and the rules look: the sample prompts and the buckets.
    defs = ['x-p0: &p0 ["p3rs0n on a beach", "p3rs0n in snow", "p3rs0n, portrait", "a cat"]']
    for i in range(1, 12):
        defs.append(f"x-p{i}: &p{i} [{', '.join([f'*p{i - 1}'] * 8)}]")
    text = "\n".join(defs) + "\n" + EXAMPLE_BODY
    text = replace_line(text, "        prompts:\n", "        prompts: *p11\n        old_prompts:\n")
    text = replace_line(text, "resolution: [ 512, 768, 1024 ]", "resolution: *p9")
    return text


def _alias_bomb_maps() -> str:
    lines = ["m0: &m0 {k0: 1, k1: 2, k2: 3, k3: 4, k4: 5, k5: 6, k6: 7, k7: 8}"]
    for i in range(1, 12):
        body = ", ".join(f"c{j}: *m{i - 1}" for j in range(8))
        lines.append(f"m{i}: &m{i} {{<<: *m{i - 1}, {body}}}")
    lines.append("job: extension")
    lines.append("config:")
    lines.append("  name: bomb")
    lines.append("  process:")
    lines.append("    - type: sd_trainer")
    lines.append("      train: *m11")
    lines.append("      model: {<<: *m11, name_or_path: black-forest-labs/FLUX.1-dev}")
    lines.append("      sample: *m11")
    return "\n".join(lines) + "\n"


def _alias_recursive() -> str:
    return (
        "job: extension\n"
        "loop_list: &l [1, *l]\n"
        "loop_map: &m {self: *m, n: 1}\n"
        "config:\n"
        "  name: recursive\n"
        "  process: &proc\n"
        "    - type: sd_trainer\n"
        "      again: *proc\n"
        "      train: &t\n"
        "        batch_size: 2\n"
        "        gradient_checkpointing: false\n"
        "        me: *t\n"
        "      datasets: &d\n"
        "        - folder_path: x\n"
        "          resolution: [512, *d]\n"
        "      sample: &s {prompts: [*s], width: 1024, height: 1024}\n"
    )


def _python_tags(sentinel: str) -> str:
    return (
        f'pwn1: !!python/object/apply:os.system ["touch {sentinel}"]\n'
        f'pwn2: !!python/object/apply:builtins.open ["{sentinel}", "w"]\n'
        f"pwn3: !!python/object/new:subprocess.Popen [[touch, {sentinel}]]\n"
        "pwn4: !!python/name:os.system\n"
        "pwn5: !!python/module:os\n"
        "pwn6: !!python/object:builtins.dict {a: 1}\n"
        + EXAMPLE_BODY.replace(
            "        batch_size: 4 # was 1\n",
            f'        batch_size: !!python/object/apply:os.system ["touch {sentinel}"]\n',
        )
    )


def _json_python_tags(sentinel: str) -> str:
    # A JSON-looking config whose value is a YAML tag: JSON parsers reject it, YAML loaders must not run it.
    return (
        '{"job": "extension", "config": {"name": "x", "process": [{"type": "sd_trainer", '
        f'"train": {{"batch_size": !!python/object/apply:os.system ["touch {sentinel}"]}}}}]}}}}\n'
    )


def _unknown_tags() -> str:
    return (
        "%TAG !e! tag:evil.example,2026:\n"
        "---\n"
        "odd1: !foo bar\n"
        "odd2: !e!thing {a: 1}\n"
        "odd3: !<tag:evil.example,2026:verbatim> [1, 2]\n"
        + replace_line(EXAMPLE_BODY, "height: 1024", "height: !custom 1024")
    )


def _standard_tags_wrong_types() -> str:
    # Tags a safe loader accepts, producing dates, bytes, sets and pair lists where numbers belong.
    body = "odd1: !!set {a, b}\nodd2: !!omap [a: 1, b: 2]\nodd3: !!str\n" + EXAMPLE_BODY
    body = replace_line(body, "batch_size: 4 # was 1", "batch_size: 2001-12-14 # a date")
    body = replace_line(body, "steps: 2000", "steps: !!timestamp 2001-12-14t21:59:43.10-05:00")
    body = replace_line(body, "width: 1024", "width: !!binary AAAA")
    body = replace_line(body, "height: 1024", "height: !!set {1024}")
    body = replace_line(body, "resolution: [ 512, 768, 1024 ]", "resolution: !!omap [a: 512, b: 768]")
    body = replace_line(
        body, "gradient_checkpointing: false # off", "gradient_checkpointing: !!binary ZmFsc2U= # off"
    )
    return replace_line(body, "linear: 16\n", "linear: !!float 16\n")


def _homoglyph(value: str) -> str:
    # "gradient_checkpoіnting" with U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I.
    return replace_line(
        EXAMPLE_CONFIG,
        "        gradient_checkpointing: false # off, to go faster\n",
        f"        gradient_checkpo\u0456nting: {value} # off, to go faster\n",
    )


def _homoglyph_beside_real_key() -> str:
    return replace_line(
        EXAMPLE_CONFIG,
        "        gradient_checkpointing: false # off, to go faster\n",
        "        gradient_checkpointing: false # off, to go faster\n"
        "        gradient_checkpo\u0456nting: true\n",
    )


def _zero_width_rtl() -> str:
    text = replace_line(
        EXAMPLE_CONFIG,
        "        gradient_checkpointing: false # off, to go faster\n",
        "        gradient_\u200bcheckpointing: false # off, to go faster\n",
    )
    text = replace_line(text, 'name: "my_flux_lora_v1"', 'name: "my_\u202eflux\u2066lora\u200d_v1\u2069"')
    text = replace_line(text, 'trigger_word: "p3rs0n"', 'trigger_word: "p3\u200brs\ufeff0n\u202d"')
    text = replace_line(text, '- "p3rs0n walking', '- "\u202egnippilf\u202c p3rs0n walking')
    return text


def _mentions_message() -> str:
    config = replace_line(EXAMPLE_CONFIG, 'name: "my_flux_lora_v1"', 'name: "@everyone"')
    config = replace_line(config, 'trigger_word: "p3rs0n"', 'trigger_word: "<@&456> @here"')
    config = replace_line(
        config,
        '- "p3rs0n in a red coat, snowy street"',
        '- "[click](https://evil.example/login) <@123> <@!123> @everyone"',
    )
    log = EXAMPLE_LOG.replace("Error running job:", "@everyone @here <@123> Error running job:", 1)
    return (
        "@everyone @here help!! <@123> <@&456> my run dies, see [click](https://evil.example/x)\n"
        "```yaml\n" + config + "```\n"
        "and the log [totally safe](https://evil.example/y):\n"
        "```\n" + log + "\n```\n"
    )


def _secrets_log() -> str:
    home = f"/home/{HOME_USER}"
    log = EXAMPLE_LOG.replace("/workspace/ai-toolkit", f"{home}/ai-toolkit")
    prefix = (
        f"$ export HF_TOKEN={HF_TOKEN}\n"
        f"$ export WANDB_API_KEY={WANDB_KEY}\n"
        f"$ wandb login {WANDB_KEY}\n"
        f"$ export OPENAI_API_KEY={OPENAI_KEY}\n"
        f"$ export RUNPOD_API_TOKEN={ASSIGNED_TOKEN}\n"
        f"$ curl -H 'Authorization: Bot {DISCORD_TOKEN}' https://discord.com/api/v10/users/@me\n"
        f"$ wget 'https://civitai.com/api/download/models/12345?token={CIVITAI_KEY}'\n"
        f"$ python {home}/ai-toolkit/run.py C:\\Users\\{HOME_USER}\\jobs\\my_job.yaml\n"
        f"key={OPENAI_LEGACY_KEY} /Users/{HOME_USER}/Downloads/lora.safetensors\n"
    )
    # The OOM line itself carries a secret, so the evidence quote cannot leave it out by luck.
    log = log.replace("Error running job:", f"[HF_TOKEN={HF_TOKEN}] Error running job:", 1)
    return prefix + log


def _secrets_config() -> str:
    text = replace_line(
        EXAMPLE_CONFIG,
        '        name_or_path: "black-forest-labs/FLUX.1-dev"\n',
        '        name_or_path: "black-forest-labs/FLUX.1-dev"\n'
        f'        hf_token: "{HF_TOKEN}"\n'
        f"        civitai_api_key: {CIVITAI_KEY}\n",
    )
    text = replace_line(
        text,
        '      training_folder: "output"\n',
        f'      training_folder: "/home/{HOME_USER}/output"\n'
        f"      wandb_api_key: {WANDB_KEY}\n"
        f"      discord_token: {DISCORD_TOKEN}\n"
        f"      openai: {OPENAI_KEY}\n"
        f"      # HUGGING_FACE_HUB_TOKEN={HF_TOKEN}\n"
        f"      # MY_SERVICE_TOKEN={ASSIGNED_TOKEN}\n",
    )
    return replace_line(
        text, 'folder_path: "datasets/my_person"', f'folder_path: "C:\\\\Users\\\\{HOME_USER}\\\\ds"'
    )


def _secret_in_invalid_yaml() -> str:
    # A tab-indented line holding a token: the yaml_invalid finding quotes that very line.
    return replace_line(
        EXAMPLE_CONFIG,
        "        gradient_checkpointing: false # off, to go faster\n",
        f"\t\tgradient_checkpointing: false # {HF_TOKEN}\n",
    )


def _secret_json_config() -> str:
    return (
        "{\n"
        '  "job": "extension",\n'
        '  "config": {\n'
        '    "name": "json_job",\n'
        '    "process": [\n'
        "      {\n"
        '        "type": "diffusion_trainer",\n'
        f'        "training_folder": "/home/{HOME_USER}/output",\n'
        f'        "hf_token": "{HF_TOKEN}",\n'
        '        "train": {"batch_size": 4, "gradient_checkpointing": false, "dtype": "bf16"},\n'
        '        "model": {"name_or_path": "black-forest-labs/FLUX.1-dev", "quantize": true}\n'
        "      }\n"
        "    ]\n"
        "  }\n"
        "}\n"
    )


def _absurd_oom_numbers() -> str:
    lines = [
        "Generating baseline samples before training",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate nan GiB. GPU 0 has a total "
        "capacity of NaN GiB of which -5.00 GiB is free. Process -1 has -3.00 GiB memory in use. "
        "Of the allocated memory "
        "inf GiB is allocated by PyTorch, and -inf MiB is reserved by PyTorch but unallocated.",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 99999999.00 GiB. GPU 0 has a total "
        "capacity of 0 bytes of which 0 bytes is free. Including non-PyTorch memory, this process has "
        "99999999999999999999999999.00 GiB memory in use. Of the allocated memory 1e400 GiB is allocated by "
        "PyTorch, and 0 bytes is reserved by PyTorch but unallocated.",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1"
        + "0" * 400
        + ".00 GiB. GPU 99999999999999999999999 has a total capacity of 1.00 bytes of which 9"
        + "9" * 400
        + " GiB is free. Process 99999999999999999999999999 has 1.00 GiB memory in use.",
        "RuntimeError: CUDA out of memory. Tried to allocate -0.00 MiB (GPU -3; -7.80 GiB total capacity; "
        "NaN GiB already allocated; inf MiB free; 404.92 PiB cached)",
        "MPS backend out of memory (MPS allocated: nan GB, other allocations: -1 MB, max allowed: 0 GB). "
        "Tried to allocate 1e999 MB on private pool.",
        "RuntimeError: [enforce fail at alloc_cpu.cpp:72] data. DefaultCPUAllocator: not enough memory: you "
        "tried to allocate -151781376 bytes.",
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate 9" + "9" * 500 + " bytes.",
        "Out of memory: Killed process -1 (python) total-vm:-1kB, anon-rss:99999999999999999999kB",
        "  0%|          | 0/0 [00:00<?, ?it/s]",
        "my_lora:  nan%|          | -5/-1 [00:00<?, nanit/s, lr: nan loss: inf]",
    ]
    return "\n".join(lines) + "\n"


def _fifty_documents() -> str:
    docs = []
    for i in range(50):
        docs.append(
            "job: extension\n"
            "config:\n"
            f"  name: doc{i}\n"
            "  process:\n"
            "    - type: sd_trainer\n"
            f"      train: {{batch_size: {i + 1}, gradient_checkpointing: {'false' if i % 2 else 'true'}}}\n"
            f"      datasets: [{{folder_path: d{i}, resolution: [512, {512 + 64 * i}]}}]\n"
        )
    return "---\n" + "---\n".join(docs) + "...\n"


def _many_fences(count: int = 200) -> str:
    parts = ["my configs, all of them:\n"]
    for i in range(count):
        lang = ("yaml", "yml", "", "json", "python", "ansi")[i % 6]
        if lang == "json":
            body = f'{{"train": {{"batch_size": {i}, "gradient_checkpointing": false}}}}\n'
        else:
            body = f"train:\n  batch_size: {i}\n  gradient_checkpointing: false\n"
        parts.append(f"```{lang}\n{body}```\ntext {i} between fences\n")
    parts.append("```\n" + EXAMPLE_LOG + "\n```\n")
    return "".join(parts)


def _unterminated_fence() -> str:
    return (
        "Here is my config, it OOMs at step 1:\n```yaml\n" + EXAMPLE_CONFIG + "\nand the log:\n" + EXAMPLE_LOG
    )


def _fence_inside_yaml_string() -> str:
    config = replace_line(
        EXAMPLE_CONFIG,
        '          - "p3rs0n walking on a beach at sunset"\n',
        '          - "```p3rs0n``` walking on a beach at sunset"\n'
        "          - |\n"
        "            ```\n"
        "            not a fence, a prompt\n"
        "            ```\n",
    )
    config = replace_line(config, 'trigger_word: "p3rs0n"', "trigger_word: '```yaml'")
    return "Please check:\n```yaml\n" + config + "```\nThanks!\n```\n" + EXAMPLE_LOG + "\n```\n"


def _wrong_types() -> str:
    text = replace_line(EXAMPLE_CONFIG, "batch_size: 4 # was 1", 'batch_size: "four"')
    text = replace_line(text, "resolution: [ 512, 768, 1024 ]", "resolution: {a: 1, b: [2]}")
    text = replace_line(text, "width: 1024", "width: [1024, 2048]")
    text = replace_line(text, "height: 1024", "height: {h: 1}")
    text = replace_line(
        text, "gradient_checkpointing: false # off, to go faster", 'gradient_checkpointing: "yes please"'
    )
    text = replace_line(text, "quantize: true # 8-bit transformer", "quantize: [1]")
    text = replace_line(text, "sample_every: 250", "sample_every: ~")
    text = replace_line(text, "sample_steps: 20", "sample_steps: 20.5e3")
    text = replace_line(text, "linear: 16\n", "linear: {rank: 16}\n")
    text = replace_line(text, "steps: 2000", "steps: true")
    return text


def _wrong_shapes() -> str:
    return (
        "job: extension\n"
        "config:\n"
        "  name: [a, b]\n"
        "  process:\n"
        "    type: sd_trainer\n"  # a mapping where a list belongs
        "    train: [1, 2, 3]\n"
        "    datasets: {folder_path: x, resolution: 1024}\n"
        "    model: just a string\n"
        "    sample: {prompts: 42, width: 1024}\n"
        "---\n"
        "config: 5\n"
        "---\n"
        "config: {process: []}\n"
        "---\n"
        "config: {process: [1, null, [], {train: null}]}\n"
    )


def _duplicate_keys() -> str:
    text = replace_line(
        EXAMPLE_CONFIG,
        "        gradient_checkpointing: false # off, to go faster\n",
        "        gradient_checkpointing: true\n"
        "        batch_size: 1\n"
        "        gradient_checkpointing: false # off, to go faster\n",
    )
    # A second `train:` section after the first one, as happens when two example files are merged.
    return replace_line(
        text,
        "      model:\n",
        "      train:\n        batch_size: 8\n        gradient_checkpointing: false\n      model:\n",
    )


def _complex_keys() -> str:
    return replace_line(
        EXAMPLE_CONFIG,
        "      train:\n",
        "      ? [a, b]\n      : 1\n      ? {x: 1}\n      : y\n"
        "      {[1, 2]: 3, {k: v}: 4}: 5\n      train:\n"
        "        ? batch_size\n        : 4\n        ? [gradient_checkpointing]\n        : false\n",
    )


def _tabs() -> str:
    text = replace_line(EXAMPLE_CONFIG, "        batch_size: 4 # was 1\n", "\t\tbatch_size: 4 # was 1\n")
    return replace_line(text, "        steps: 2000\n", "        steps:\t2000\n")


def _tab_in_values() -> str:
    text = replace_line(
        EXAMPLE_CONFIG, "        steps: 2000\n", "        steps: 2000\t\t# tab before the comment\n"
    )
    return replace_line(text, '        neg: ""\n', '        neg: "a\tb"\n')


def _list_root() -> str:
    return "- job: extension\n  config:\n    name: x\n- train:\n    batch_size: 4\n- 42\n"


def _invalid_utf8() -> bytes:
    raw = EXAMPLE_CONFIG.encode("utf-8")
    raw = raw.replace(b"# was 1", b"# was \xff\xfe 1", 1)
    raw = raw.replace(b'"my_flux_lora_v1"', b'"my_\xc3_lora\xed\xa0\x80_v1\xc0\xaf"', 1)
    raw = raw.replace(b"snowy street", b"snowy \xf4\x90\x80\x80 street\xe2\x82", 1)
    return raw + b"\x80\x81\x82 trailing junk \xf0\x9f\x98"


def _invalid_utf8_log() -> bytes:
    raw = EXAMPLE_LOG.encode("utf-8")
    return b"\xfe\xfe\xff" + raw.replace(b"Loading VAE", b"Loading \x9d\xa0VAE", 1) + b"\n\xc3\x28\xa0\xa1"


def _nul_bytes() -> bytes:
    raw = EXAMPLE_CONFIG.encode("utf-8")
    raw = raw.replace(b"batch_size: 4", b"batch_\x00size: 4\x00", 1)
    raw = raw.replace(b"name: ", b"name: \x00\x00", 1)
    return b"\x00" + raw + b"\x00" * 64


def _nul_log() -> bytes:
    return EXAMPLE_LOG.encode("utf-8").replace(b"\n", b"\x00\n").replace(b"CUDA out", b"CUDA\x00 out", 1)


def _batch(value: str) -> str:
    return replace_line(EXAMPLE_CONFIG, "batch_size: 4 # was 1", f"batch_size: {value} # was 1")


def _giant_ints() -> str:
    big = str(10**400)
    text = replace_line(EXAMPLE_CONFIG, "batch_size: 4 # was 1", f"batch_size: {big}")
    text = replace_line(text, "resolution: [ 512, 768, 1024 ]", f"resolution: [ {big}, 768, -{big} ]")
    text = replace_line(text, "width: 1024", f"width: {big}")
    text = replace_line(text, "height: 1024", f"height: 0x{'f' * 300}")
    text = replace_line(text, "sample_steps: 20", f"sample_steps: 1e{'9' * 50}")
    text = replace_line(text, "linear: 16\n", f"linear: {big}\n")
    text = replace_line(text, "steps: 2000", f"steps: -{big}")
    return replace_line(text, "gradient_accumulation_steps: 1", f"gradient_accumulation_steps: {big}")


def _giant(old: str, key: str) -> str:
    """The example config with one number beyond the range of a float (int(10**400) parses fine)."""
    return replace_line(EXAMPLE_CONFIG, old, f"{key}: {10**400}")


def _inf_nan() -> str:
    text = replace_line(EXAMPLE_CONFIG, "batch_size: 4 # was 1", "batch_size: .inf")
    text = replace_line(text, "resolution: [ 512, 768, 1024 ]", "resolution: [ .nan, -.inf, .Inf, .NaN ]")
    text = replace_line(text, "width: 1024", "width: .nan")
    text = replace_line(text, "height: 1024", "height: -.inf")
    text = replace_line(text, "sample_steps: 20", "sample_steps: .NAN")
    text = replace_line(text, "linear: 16\n", "linear: .inf\n")
    text = replace_line(text, "lr: 1e-4", "lr: .nan")
    return replace_line(text, "gradient_accumulation_steps: 1", "gradient_accumulation_steps: .inf")


def _inf_nan_json() -> str:
    return (
        '{"job": "extension", "config": {"name": "j", "process": [{"type": "sd_trainer", '
        '"train": {"batch_size": Infinity, "gradient_checkpointing": false}, '
        '"datasets": [{"folder_path": "d", "resolution": [NaN, -Infinity, 1e999]}], '
        '"sample": {"width": NaN, "height": 1e99999, "sample_steps": -0}}]}}\n'
    )


def _nesting_flow(depth: int) -> str:
    return "[" * depth + "]" * depth + "\n"


def _nesting_flow_map(depth: int) -> str:
    return "{a: " * depth + "1" + "}" * depth + "\n"


def _nesting_block_seq(depth: int) -> str:
    return "- " * depth + "x\n"


def _nesting_json(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth + "\n"


def _nesting_in_config(depth: int) -> str:
    return replace_line(
        EXAMPLE_CONFIG, "resolution: [ 512, 768, 1024 ]", "resolution: " + _nesting_flow(depth).strip()
    )


SMALL_BUILDERS: dict[str, tuple[str, Callable[[], str | bytes], tuple[str, ...]]] = {
    # name: (file name, builder, tags)
    "alias_bomb_lists": ("alias_bomb_lists.yaml", _alias_bomb_lists, ()),
    "alias_bomb_in_config": ("alias_bomb_in_config.yaml", _alias_bomb_in_config, ()),
    "alias_bomb_maps": ("alias_bomb_maps.yaml", _alias_bomb_maps, ()),
    "alias_recursive": ("alias_recursive.yaml", _alias_recursive, ()),
    "python_tags": ("python_tags.yaml", lambda: _python_tags(SENTINEL_NAME), ("sentinel",)),
    "python_tags_json": ("python_tags.json", lambda: _json_python_tags(SENTINEL_NAME), ("sentinel",)),
    "unknown_tags": ("unknown_tags.yaml", _unknown_tags, ()),
    "standard_tags_wrong_types": ("standard_tags_wrong_types.yaml", _standard_tags_wrong_types, ()),
    "nesting_flow_10000": ("nesting_flow_10000.yaml", lambda: _nesting_flow(10_000), ()),
    "nesting_flow_map_10000": ("nesting_flow_map_10000.yaml", lambda: _nesting_flow_map(10_000), ()),
    "nesting_block_10000": ("nesting_block_10000.yaml", lambda: _nesting_block_seq(10_000), ()),
    "nesting_json_10000": ("nesting_json_10000.json", lambda: _nesting_json(10_000), ()),
    "nesting_in_config": ("nesting_in_config.yaml", lambda: _nesting_in_config(10_000), ()),
    "png_renamed": ("screenshot.yaml", png_bytes, ()),
    "invalid_utf8": ("invalid_utf8.yaml", _invalid_utf8, ()),
    "invalid_utf8_log": ("invalid_utf8.log", _invalid_utf8_log, ()),
    "nul_bytes": ("nul_bytes.yaml", _nul_bytes, ()),
    "nul_log": ("nul_bytes.log", _nul_log, ()),
    "utf16le_log": ("utf16le.log", lambda: b"\xff\xfe" + EXAMPLE_LOG.encode("utf-16-le"), ("same_as_log",)),
    "utf16be_log": ("utf16be.log", lambda: b"\xfe\xff" + EXAMPLE_LOG.encode("utf-16-be"), ("same_as_log",)),
    "bom_crlf_config": (
        "bom_crlf.yaml",
        lambda: b"\xef\xbb\xbf" + EXAMPLE_CONFIG.replace("\n", "\r\n").encode("utf-8"),
        ("same_as_config", "crlf"),
    ),
    "giant_ints": ("giant_ints.yaml", _giant_ints, ()),
    "giant_sample_width": ("giant_sample_width.yaml", lambda: _giant("width: 1024", "width"), ()),
    "giant_rank": ("giant_rank.yaml", lambda: _giant("linear: 16", "linear"), ()),
    "giant_alpha": ("giant_alpha.yaml", lambda: _giant("linear_alpha: 16", "linear_alpha"), ()),
    "giant_batch": ("giant_batch.yaml", lambda: _giant("batch_size: 4 # was 1", "batch_size"), ()),
    "giant_sample_steps": ("giant_sample_steps.yaml", lambda: _giant("sample_steps: 20", "sample_steps"), ()),
    "inf_nan": ("inf_nan.yaml", _inf_nan, ()),
    "inf_nan_json": ("inf_nan.json", _inf_nan_json, ()),
    "wrong_types": ("wrong_types.yaml", _wrong_types, ()),
    "wrong_shapes": ("wrong_shapes.yaml", _wrong_shapes, ()),
    "batch_zero": ("batch_zero.yaml", lambda: _batch("0"), ()),
    "batch_negative": ("batch_negative.yaml", lambda: _batch("-4"), ()),
    "batch_absurd": ("batch_absurd.yaml", lambda: _batch("1000000000"), ()),
    "duplicate_keys": ("duplicate_keys.yaml", _duplicate_keys, ()),
    "complex_keys": ("complex_keys.yaml", _complex_keys, ()),
    "tabs": ("tabs.yaml", _tabs, ("yaml_invalid",)),
    "tab_in_values": ("tab_in_values.yaml", _tab_in_values, ()),
    "list_root": ("list_root.yaml", _list_root, ()),
    "scalar_root": ("scalar_root.yaml", lambda: "just a plain string, not a mapping\n", ()),
    "fifty_documents": ("fifty_documents.yaml", _fifty_documents, ()),
    "fences_200": ("fences_200.txt", _many_fences, ()),
    "fence_unterminated": ("fence_unterminated.txt", _unterminated_fence, ()),
    "fence_in_yaml_string": ("fence_in_yaml_string.txt", _fence_inside_yaml_string, ()),
    "mentions": ("mentions.txt", _mentions_message, ("mentions",)),
    "zero_width_rtl": ("zero_width_rtl.yaml", _zero_width_rtl, ("bidi", "gc_not_read")),
    "homoglyph_key": ("homoglyph_key.yaml", lambda: _homoglyph("false"), ("gc_not_read",)),
    "homoglyph_beside_real_key": (
        "homoglyph_beside_real_key.yaml",
        _homoglyph_beside_real_key,
        ("gc_still_off",),
    ),
    "secrets_log": ("secrets.log", _secrets_log, ("secrets",)),
    "secrets_config": ("secrets.yaml", _secrets_config, ("secrets",)),
    "secret_in_invalid_yaml": ("secret_in_invalid_yaml.yaml", _secret_in_invalid_yaml, ("secrets",)),
    "secret_json_config": ("secrets.json", _secret_json_config, ("secrets",)),
    "absurd_oom_numbers": ("absurd_oom_numbers.log", _absurd_oom_numbers, ()),
    "empty": ("empty.txt", lambda: b"", ("incomplete",)),
    "whitespace": ("whitespace.txt", lambda: " \n\t\r\n   \u3000\u00a0\n\r\r\n  ", ("incomplete",)),
}

SECRET_CASES = {"secrets_log", "secrets_config", "secret_in_invalid_yaml", "secret_json_config"}


def small_cases() -> list[Case]:
    """The committed cases, read back from `fixtures/` (the files are the source of truth in CI)."""
    cases = []
    for name, (filename, _, tags) in SMALL_BUILDERS.items():
        data = (FIXTURES / filename).read_bytes()
        secrets = ALL_SECRETS if name in SECRET_CASES else ()
        cases.append(Case(name, ((filename, data),), secrets, frozenset(tags)))
    return cases


def build_small(name: str) -> bytes:
    data = SMALL_BUILDERS[name][1]()
    return data.encode("utf-8") if isinstance(data, str) else data


# ------------------------------------------------------------------------------------------------
# Big cases (built at test time)


def _long_line(size: int) -> bytes:
    unit = "my_lora:  12%|█▏   | 360/3000 [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.123e-01] "
    body = unit * (size // len(unit.encode("utf-8")))
    return (body + "Error running job: " + OOM_LINE.split(": ", 1)[1]).encode("utf-8")


def _regex_stress() -> tuple[tuple[str, bytes], ...]:
    n = 100_000
    parts = {
        "tried.log": "Tried to allocate " * n + "\n" + "CUDA out of memory. Tried to allocate " * (n // 2),
        "capacity.log": "GPU 0 has a total capacity of " * n + "\n" + "of which " * n + "is free. " * n,
        "process.log": "Process 1 has " * n
        + "\n"
        + "Including non-PyTorch memory, this process has " * (n // 4),
        "bars.log": "my_lora:  12%|"
        + "|" * 2_000_000
        + "\n"
        + "\r" * 100_000
        + "Caching latents: "
        + "█" * 500_000,
        "digits.log": "1." * 500_000 + "\n" + "(GPU 0; " * n + "\n" + "[" * 300_000 + "\n" + "{" * 300_000,
        "frames.log": 'File "' * n
        + "\n"
        + '  File "/a.py", line ' * (n // 2)
        + "\n"
        + "#" * 1_000_000
        + "\n"
        + "# OOM during training step, skipping batch " * (n // 4)
        + "\n"
        + " " * 1_000_000
        + "x\n"
        + "-" * 1_000_000
        + "\n"
        + "=" * 1_000_000
        + "\n",
    }
    return tuple((name, text.encode("utf-8")) for name, text in parts.items())


def _digit_run() -> bytes:
    """A size with a million digits: the input that made an unanchored `\\d+ Killed` search hang."""
    return ("Tried to allocate 1" + "0" * 1_000_000 + " GiB\n").encode("utf-8")


def _many_ooms(count: int) -> bytes:
    rng = random.Random(5000)
    lines = EXAMPLE_LOG.split("Error running job:", 1)[0].splitlines()
    for i in range(count):
        if i % 3 == 0:
            lines += [
                "",
                "#" * 48,
                f"# OOM during training step, skipping batch {i % 3 + 1}/3 #",
                "#" * 48,
                "",
            ]
        mib = rng.randint(1, 90_000) / 7
        lines.append(OOM_LINE.replace("512.00 MiB", f"{mib:.2f} MiB").replace("GPU 0", f"GPU {i % 8}"))
        lines.append(
            f"my_lora:  {i % 100}%|█▏   | {i}/{count} [10:42<1:18:27,  1.78s/it, lr: 1.0e-04 loss: 4.1e-01]"
        )
    return ("\n".join(lines) + "\n").encode("utf-8")


def _deep_traceback(frames: int) -> bytes:
    lines = ["Traceback (most recent call last):"]
    for i in range(frames):
        lines.append(f'  File "/root/ai-toolkit/toolkit/m{i % 97}.py", line {i % 5000 + 1}, in f{i % 13}')
        lines.append("    return g(x)")
    lines.append("RecursionError: maximum recursion depth exceeded")
    lines.append(OOM_LINE)
    return ("\n".join(lines) + "\n").encode("utf-8")


def _nesting_indented(depth: int) -> bytes:
    lines = [" " * i + f"k{i}:" for i in range(depth)]
    return ("\n".join(lines) + " 1\n").encode("utf-8")


def _giant_list(items: int) -> bytes:
    prompts = ", ".join(f'"p{i}"' for i in range(items))
    text = replace_line(
        EXAMPLE_CONFIG, "        prompts:\n", f"        prompts: [{prompts}]\n        old_prompts:\n"
    )
    return text.encode("utf-8")


def _oversized_config(size: int) -> bytes:
    lines = [EXAMPLE_CONFIG, "x-padding:"]
    lines += [f"  - item number {i} with some padding text to make it long" for i in range(size // 50)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def big_cases() -> list[Case]:
    return [
        Case("long_line_6mb", (("long_line.log", _long_line(6 * MiB)),)),
        Case("random_10mb", (("random.bin", random.Random(10).randbytes(10 * MiB)),)),
        Case("random_10mb_yaml", (("random.yaml", random.Random(11).randbytes(10 * MiB)),)),
        # A paste of nothing but line breaks once took minutes (a list copied per trailing blank line).
        Case("blank_lines_10mb", (("blank.log", b"\n" * (10 * MiB)),)),
        Case("blank_lines_crlf_8mb", (("blank.txt", b"\r\n" * (4 * MiB)),)),
        Case("regex_stress", _regex_stress()),
        Case("regex_digit_run", (("digits.log", _digit_run()),)),
        Case("ooms_5000", (("ooms_5000.log", _many_ooms(5000)),)),
        Case("traceback_50000", (("traceback.log", _deep_traceback(50_000)),)),
        Case("nesting_indented_2000", (("nesting_indented.yaml", _nesting_indented(2000)),)),
        Case("giant_list_60000", (("giant_list.yaml", _giant_list(60_000)),)),
        Case("oversized_config_2mb", (("oversized.yaml", _oversized_config(2 * MiB)),)),
        Case(
            "fences_5000",
            (("fences.txt", _many_fences(5000).encode("utf-8")),),
        ),
    ]


def write_fixtures() -> None:
    FIXTURES.mkdir(exist_ok=True)
    for name, (filename, _, _) in SMALL_BUILDERS.items():
        data = build_small(name)
        assert len(data) < 100 * 1024, (name, len(data))
        (FIXTURES / filename).write_bytes(data)


if __name__ == "__main__":
    write_fixtures()
    sys.stdout.write(f"wrote {len(SMALL_BUILDERS)} fixtures to {FIXTURES}\n")
