"""Discord's documented message limits, checked on everything the bot sends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CONTENT = 2000
EMBEDS = 10
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR = 256
EMBED_TOTAL = 6000
FILES = 10
FILE_BYTES = 10 * 1024 * 1024
ACTION_ROWS = 5
ROW_ITEMS = 5
CUSTOM_ID = 100
LABEL = 80


def _embed_size(embed: dict[str, Any]) -> int:
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "") + len(
        (embed.get("author") or {}).get("name") or ""
    )
    for f in embed.get("fields") or []:
        size += len(f.get("name") or "") + len(f.get("value") or "")
    return size


def _embed_violations(i: int, embed: dict[str, Any]) -> list[str]:
    out: list[str] = []
    checks = [
        ("title", len(embed.get("title") or ""), EMBED_TITLE),
        ("description", len(embed.get("description") or ""), EMBED_DESCRIPTION),
        ("footer.text", len((embed.get("footer") or {}).get("text") or ""), FOOTER),
        ("author.name", len((embed.get("author") or {}).get("name") or ""), AUTHOR),
        ("fields", len(embed.get("fields") or []), EMBED_FIELDS),
    ]
    for name, value, limit in checks:
        if value > limit:
            out.append(f"embeds[{i}].{name}: {value} > {limit}")
    for j, f in enumerate(embed.get("fields") or []):
        if not f.get("name") or not f.get("value"):
            out.append(f"embeds[{i}].fields[{j}]: empty name or value")
        if len(f.get("name") or "") > FIELD_NAME or len(f.get("value") or "") > FIELD_VALUE:
            out.append(f"embeds[{i}].fields[{j}]: too long")
    return out


def _component_violations(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    if len(rows) > ACTION_ROWS:
        out.append(f"components: {len(rows)} rows > {ACTION_ROWS}")
    seen: set[str] = set()
    for r, row in enumerate(rows):
        items = row.get("components") or []
        if row.get("type") == 1 and len(items) > ROW_ITEMS:
            out.append(f"components[{r}]: {len(items)} items > {ROW_ITEMS}")
        for c in items:
            cid = c.get("custom_id")
            if cid is not None:
                if len(cid) > CUSTOM_ID:
                    out.append(f"custom_id too long: {cid!r}")
                if cid in seen:
                    out.append(f"duplicate custom_id {cid!r}")
                seen.add(cid)
            if len(c.get("label") or "") > LABEL:
                out.append(f"label too long: {c.get('label')!r}")
    return out


def message_violations(body: dict[str, Any], files: Sequence[Any], *, creating: bool) -> list[str]:
    """Problems Discord would answer with 400 (Invalid Form Body / Cannot send an empty message)."""
    out: list[str] = []
    content = body.get("content") or ""
    if len(content) > CONTENT:
        out.append(f"content: {len(content)} characters > {CONTENT}")
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS:
        out.append(f"embeds: {len(embeds)} > {EMBEDS}")
    for i, embed in enumerate(embeds):
        out.extend(_embed_violations(i, embed))
    total = sum(_embed_size(e) for e in embeds)
    if total > EMBED_TOTAL:
        out.append(f"embeds: {total} characters in all > {EMBED_TOTAL}")
    out.extend(_component_violations(body.get("components") or []))
    if len(files) > FILES:
        out.append(f"files: {len(files)} > {FILES}")
    for f in files:
        if len(f.data) > FILE_BYTES:
            out.append(f"file {f.filename}: {len(f.data)} bytes > {FILE_BYTES}")
    if creating and not content and not embeds and not files and not body.get("components"):
        out.append("Cannot send an empty message")
    return out
