"""Invariants every report must keep, whatever the input: shared by the hostile suite, the property
tests and the fuzz target (`benchmarks/fuzz_engine.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from diagnosis.config.parse import parse_config
from diagnosis.jsonout import report_to_json
from diagnosis.limits import DEFAULT_LIMITS
from diagnosis.models import Piece, PieceKind
from diagnosis.render import render_cli, render_discord
from diagnosis.report import Report

MiB = 1024 * 1024
# A reply may carry the corrected config (at most max_config_bytes) plus its diff and the quotes.
OUTPUT_MAX_CHARS = 3 * DEFAULT_LIMITS.max_config_bytes + 512 * 1024

# Discord's documented limits (https://discord.com/developers/docs/resources/message).
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
FILES_MAX = 10
FILE_BYTES_MAX = 8 * MiB  # the smallest upload limit a server can have

BIDI_CONTROLS = ("\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069")
_MENTION = re.compile(r"@everyone|@here|<@[!&]?\d+>")
_MASKED_LINK = re.compile(r"(?<!\\)\[[^\[\]\n]*(?<!\\)\]\(\s*<?https?://")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)


def strict_json(report: Report) -> str:
    """The CLI's JSON, refusing NaN and infinities (they are not JSON, and scripts choke on them)."""
    return json.dumps(report_to_json(report).model_dump(), ensure_ascii=False, allow_nan=False)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-JSON constant {name} in output")


def load_strict_json(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def _embed_strings(embed: dict[str, Any]) -> list[str]:
    strings = [str(embed.get("title") or ""), str(embed.get("description") or "")]
    for fld in embed.get("fields") or []:
        strings += [str(fld.get("name") or ""), str(fld.get("value") or "")]
    strings.append(str((embed.get("footer") or {}).get("text") or ""))
    strings.append(str((embed.get("author") or {}).get("name") or ""))
    return strings


def discord_texts(reply: Any) -> list[str]:
    """Everything a Discord client would show as text: the content and every embed string."""
    texts = [str(reply.content or "")]
    for embed in reply.embeds:
        texts += _embed_strings(embed)
    return texts


def discord_problems(reply: Any) -> list[str]:
    problems: list[str] = []
    content = reply.content or ""
    if len(content) > CONTENT_MAX:
        problems.append(f"content has {len(content)} characters")
    if len(reply.embeds) > EMBEDS_MAX:
        problems.append(f"{len(reply.embeds)} embeds")
    total = 0
    for i, embed in enumerate(reply.embeds):
        if not isinstance(embed, dict):
            problems.append(f"embed {i} is a {type(embed).__name__}, not a dict")
            continue
        limits = (
            ("title", str(embed.get("title") or ""), EMBED_TITLE_MAX),
            ("description", str(embed.get("description") or ""), EMBED_DESCRIPTION_MAX),
            ("footer", str((embed.get("footer") or {}).get("text") or ""), EMBED_FOOTER_MAX),
            ("author", str((embed.get("author") or {}).get("name") or ""), EMBED_AUTHOR_MAX),
        )
        for label, text, limit in limits:
            if len(text) > limit:
                problems.append(f"embed {i} {label} has {len(text)} characters")
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            problems.append(f"embed {i} has {len(fields)} fields")
        for j, fld in enumerate(fields):
            name, value = str(fld.get("name") or ""), str(fld.get("value") or "")
            if not name.strip() or not value.strip():
                problems.append(f"embed {i} field {j} has an empty name or value (Discord rejects it)")
            if len(name) > EMBED_FIELD_NAME_MAX or len(value) > EMBED_FIELD_VALUE_MAX:
                problems.append(f"embed {i} field {j} is {len(name)}/{len(value)} characters")
        total += sum(len(s) for s in _embed_strings(embed))
    if total > EMBED_TOTAL_MAX:
        problems.append(f"embeds total {total} characters")
    files = list(reply.files)
    if len(files) > FILES_MAX:
        problems.append(f"{len(files)} files")
    if sum(len(f.data) for f in files) > FILE_BYTES_MAX:
        problems.append("attachments larger than the upload limit")
    if not content.strip() and not reply.embeds and not files:
        problems.append("empty reply")
    return problems


def outside_code(text: str) -> str:
    return _CODE.sub(" ", text)


def mention_problems(texts: Iterable[str]) -> list[str]:
    """Pings and masked links outside code, where Discord would act on them."""
    problems = []
    for text in texts:
        bare = outside_code(text)
        for pattern in (_MENTION, _MASKED_LINK):
            hit = pattern.search(bare)
            if hit:
                problems.append(
                    f"{hit.group(0)!r} outside code in {text[max(0, hit.start() - 40) : hit.end() + 40]!r}"
                )
    return problems


def rendered_outputs(report: Report) -> dict[str, str]:
    """Every text the user could see for this report, by channel."""
    outputs = {
        "json": strict_json(report),
        "text": render_cli(report, fmt="text"),
        "markdown": render_cli(report, fmt="markdown"),
    }
    for lang in ("en", "ja"):
        reply = render_discord(report, lang=lang)
        outputs[f"discord_{lang}"] = "\n".join(discord_texts(reply))
        offered = [reply.whole_config] if reply.whole_config is not None else []
        for f in [*reply.files, *offered]:
            outputs[f"discord_{lang}_file_{f.name}"] = f.data.decode("utf-8", "replace")
    return outputs


def discord_replies(report: Report) -> list[Any]:
    replies = [render_discord(report, lang=lang) for lang in ("en", "ja")]
    if len(report.ladder) >= 2:
        replies.append(render_discord(report, lang="en", step=2))
    return replies


def corrected_config_problem(report: Report) -> str | None:
    """Every corrected config (each written ladder step) must parse again, as the engine reads it."""
    kind = report.config.piece.kind if report.config is not None else PieceKind.CONFIG_YAML
    for step in report.ladder:
        if step.corrected_config is None:
            continue
        piece = Piece(kind=kind, text=step.corrected_config, source="corrected", input_index=0, line_offset=0)
        doc = parse_config(piece)
        if doc.error is not None:
            return f"step {step.number}: corrected config does not parse: {doc.error}"
        if not isinstance(doc.data, dict):
            return f"step {step.number}: corrected config parses to {type(doc.data).__name__}"
    return None


def report_problems(
    report: Any, *, secrets: Iterable[str] = (), mentions: bool = True, bidi: bool = True
) -> list[str]:
    """All broken invariants of one report (an empty list when it is sound)."""
    if not isinstance(report, Report):
        return [f"diagnose returned {type(report).__name__}"]
    problems: list[str] = []
    outputs = rendered_outputs(report)
    for channel, text in outputs.items():
        if len(text) > OUTPUT_MAX_CHARS:
            problems.append(f"{channel} output has {len(text)} characters")
        for secret in secrets:
            if secret in text:
                problems.append(f"{channel} output echoes the secret {secret[:6]}…")
    for reply in discord_replies(report):
        problems += [f"discord: {p}" for p in discord_problems(reply)]
        texts = discord_texts(reply)
        if mentions:
            problems += [f"discord: {p}" for p in mention_problems(texts)]
        if bidi:
            for text in texts:
                found = sorted({f"U+{ord(c):04X}" for c in text if c in BIDI_CONTROLS})
                if found:
                    problems.append(f"discord: bidi controls {', '.join(found)} in {text[:80]!r}")
    problem = corrected_config_problem(report)
    if problem:
        problems.append(problem)
    # The engine turns an exception inside a rule (or itself) into this note rather than crashing; for
    # a user that is still a lost diagnosis, so every such note is a bug to fix.
    failed = [str(n.params.get("rule_id")) for n in report.notes if n.id == "rule_failed"]
    if failed:
        problems.append(f"rule_failed notes (an exception was swallowed): {', '.join(failed)}")
    if report.log is not None and len(report.log.events) > DEFAULT_LIMITS.max_events:
        problems.append(f"{len(report.log.events)} OOM events kept (limit {DEFAULT_LIMITS.max_events})")
    return problems


def finding_ids(report: Report) -> set[str]:
    return {f.rule_id for f in report.findings}
