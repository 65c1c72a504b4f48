"""The screened scan of a long text (`_screened`) finds exactly what scanning it whole finds.

Screening decides which lines the line-bound detectors read from the lines' folded shapes; any literal
it overlooks, any line it cuts wrong or any offset it maps wrong shows up here as a difference from
`_all_candidates`, the plain scan every short text still gets.
"""

from __future__ import annotations

import re
from unittest.mock import patch

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from diagnosis import scrub as scrub_module
from diagnosis.scrub import (
    LineShapes,
    _all_candidates,
    _find_prefixed,
    _lower,
    _screened,
    scrub,
    scrub_screening,
)

# Pieces that make detectors fire, nearly fire, or confuse the folding (digits, case, non-ASCII bytes,
# characters whose UTF-16 low byte is a line break such as 《 U+300A and Ċ U+010A, astral emoji).
_PIECES = [
    "hf_uQx7LmNpRtVwYzAbCdEfGhJkMnPqRsTuVw",
    "HF_uQx7LmNpRtVwYzAbCdEfGhJkMnPqRsTuVw",
    "xhf_uQx7LmNpRtVwYzAbCdEfGhJkMnPqRsTuVw",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcDEF123ghiJKL456mnoPQR789stuVWX0",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gh1jK9.abcDEF123ghiJKL456mnoPQR789stuVWX0",
    ".Gh1jK9.",
    "3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c6d7e8f90",
    "9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e",
    "wandb login ",
    "WANDB_API_KEY=",
    "civitai ",
    "CivitAI key: ",
    "https://civitai.com/api/download/models/1?token=a1B2c3D4e5F6g7H8i9J0",
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "SK-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1w",
    "GHP_Ab3dEf6hIj9kLm2nOp5qRs8tUv1w",
    "r8_Ab3dEf6hIj9kLm2nOp5qRs8t",
    "rpa_Ab3dEf6hIj9kLm2nOp5qRs8t",
    "Authorization: Bearer ",
    "BEARER ",
    "Zx9Yw8Vu7Ts6Rq5Pab12",
    "https://alice:s3cretPassw0rd@example.com/x",
    "://",
    "@",
    "HF_TOKEN=",
    "token: ",
    "Token = '",
    "password: hunter2hunter",
    "SECRET=",
    "api_key: ",
    "ApiKey=",
    "/home/alice/",
    "/Users/Bob/",
    "/HOME/carol/",
    "C:\\Users\\Dave\\",
    "c:/USERS/eve/",
    "C:\\\\Users\\\\Frank\\\\",
    "/mnt/c/Users/grace/",
    "\\\\wsl$\\Ubuntu\\home\\heidi\\",
    "\\\\WSL.localhost\\Ubuntu\\home\\ivan\\",
    "my_flux_lora_v1:  12%|█▏        | 360/3000 [10:42<52:03,  1.70s/it, lr: 1.0e-04 loss: 3.1e-01]",
    "Generating Images: 100%|██████████| 4/4 [01:20<00:00, 20.1s/it]",
    "█",
    "《",
    "Ċ",
    "トークン",
    "🔥",
    "é",
    "0123456789",
    " ",
    "\t",
    ":",
    "=",
    "'",
    '"',
    ".",
    "_",
    "-",
    "/",
    "\\",
    "\n",
    "\n",
    "\n",
]

_texts = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=12)), max_size=60).map("".join)


def _mutate(text: str, edits: list[tuple[int, str]]) -> str:
    for at, piece in edits:
        at = at % (len(text) + 1)
        text = text[:at] + piece + text[at + 1 :]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts)
def test_screened_scan_equals_whole_scan(text: str) -> None:
    try:
        utf8 = text.encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates are always scanned whole
    assert _screened(text, LineShapes(utf8), always=True) == _all_candidates(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts, st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(_PIECES)), max_size=6))
def test_screened_scan_equals_whole_scan_after_mutation(text: str, edits: list[tuple[int, str]]) -> None:
    mutated = _mutate(text * 3, edits)
    try:
        utf8 = mutated.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert _screened(mutated, LineShapes(utf8), always=True) == _all_candidates(mutated)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts, st.integers(0, 3000), st.integers(0, 3000))
def test_long_text_scrubs_like_its_whole_scan(secrets: str, before: int, after: int) -> None:
    """A long progress log with secrets in it: the public function takes the screened path."""
    bar = "my_flux_lora_v1: {:3d}%|██▌       | {}/3000 [10:42<52:03,  1.70s/it, lr: 1.0e-04 loss: 3.1e-01]\n"
    head = "".join(bar.format(i % 100, i) for i in range(before))
    tail = "".join(bar.format(i % 100, i) for i in range(after))
    text = head + secrets + "\n" + tail
    out, hits = scrub(text, "m")
    with patch.object(scrub_module, "_SCREEN_MIN_CHARS", len(text) + 1):  # screening off: the whole scan
        assert scrub(text, "m") == (out, hits)
    screened = _screened(text, LineShapes(text.encode("utf-8")))
    assert screened is None or screened == _all_candidates(text)
    assert sorted(h.line for h in hits) == [h.line for h in hits]
    assert scrub_screening(text, "m", text.encode("utf-8"))[:2] == (out, hits)


def test_screening_is_taken_on_a_long_log_and_finds_its_secret() -> None:
    bar = "job: {:3d}%|██        | {}/9000 [00:01<00:09,  1.70s/it]\n"
    lines = [bar.format(i % 100, i) for i in range(3000)]
    lines[1500] = "HF_TOKEN=abcD3fGh1jKlMn0pQr\n"
    text = "".join(lines)
    assert len(text) >= scrub_module._SCREEN_MIN_CHARS
    screened = _screened(text, LineShapes(text.encode("utf-8")))
    assert screened is not None
    assert screened == _all_candidates(text)
    out, hits = scrub(text, "m")
    assert "abcD3fGh1jKlMn0pQr" not in out
    assert [(h.kind, h.line) for h in hits] == [("assignment", 1501)]


# The prefixed-token pattern as first written: tried at every offset, prefix first.
_PLAIN_PREFIXED = re.compile(r"(?<![A-Za-z0-9_])(gh[pousr]|rpa|r8)_[A-Za-z0-9]{20,80}(?![A-Za-z0-9_])")
_TOKEN_PIECES = [
    *("ghp_", "gho_", "ghs_", "ghx_", "rpa_", "r8_", "r9_", "xr8_", "_r8_", "8_", "xghp_", "_"),
    *("Ab3dEf6hIj9kLm2nOp5qRs8t", "Ab3dEf6hIj9k", "7", "é", " ", ".", "\n"),
]
_token_texts = st.lists(st.one_of(st.sampled_from(_TOKEN_PIECES), st.text(max_size=4)), max_size=30)


@settings(max_examples=500, deadline=None)
@given(_token_texts.map("".join))
@example("r8_Ab3dEf6hIj9kLm2nOp5qRs8t")
@example("xrpa_Ab3dEf6hIj9kLm2nOp5qRs8t _ghp_Ab3dEf6hIj9kLm2nOp5qRs8t 9r8_Ab3dEf6hIj9kLm2nOp5qRs8t")
@example("key rpa_Ab3dEf6hIj9kLm2nOp5qRs8t.")
@example("xr8_Ab3dEf6hIj9kLm2nOp5qRs8t ghs_Ab3dEf6hIj9kLm2nOp5qRs8t")
def test_prefixed_tokens_found_from_the_underscore_equal_the_plain_scan(text: str) -> None:
    found = [(c.start, c.end, c.replacement) for c in _find_prefixed(text, _lower(text))]
    plain = []
    for m in _PLAIN_PREFIXED.finditer(text):
        body = m.group()[len(m.group(1)) + 1 :]
        if any(c.isdigit() for c in body) and any(c.isalpha() for c in body) and len(set(body)) >= 10:
            plain.append((m.start(), m.end(), f"{m.group(1)}_REDACTED"))
    assert found == plain


def test_a_flooded_literal_scans_whole_while_the_others_stay_screened() -> None:
    bar = "my_token_lora: {:3d}%|██        | {}/9000 [00:01<00:09,  1.70s/it]\n"
    lines = [bar.format(i % 100, i) for i in range(3000)]
    lines[10] = "token: Tk4Lm9Np2Qr7St1Uv\n"
    lines[2000] = "see https://alice:s3cretPassw0rd@example.com/x and /home/bob/run.sh\n"
    text = "".join(lines)
    screened = _screened(text, LineShapes(text.encode("utf-8")))
    assert screened is not None
    assert screened == _all_candidates(text)
    assert sorted(c.kind for c in screened) == ["assignment", "home_path", "url_credentials"]
