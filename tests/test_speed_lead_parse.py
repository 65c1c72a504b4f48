"""The parser filters its source map only when a duplicate or merge key can have left stale paths.

Property: whenever the parser says nothing is stale, every path in its source map exists in the data;
and the flag is raised by the inputs that do leave stale paths.
"""

from __future__ import annotations

import json

import yaml
from hypothesis import given
from hypothesis import strategies as st

from diagnosis.config.parse import _exists, parse_text

keys = st.sampled_from(["train", "batch_size", "a", "b", "<<", "1", "on"])
scalars = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), st.sampled_from(["x", "1e-4", "yes"]))
trees = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=12,
)


def _check(text: str, fmt: str) -> None:
    parsed = parse_text(text, fmt)
    if parsed.error is not None or parsed.stale:
        return
    missing = [path for path in parsed.source_map if not _exists(parsed.data, path)]
    assert not missing, (text, missing)


@given(trees, st.booleans())
def test_yaml_not_stale_means_every_path_exists(tree: object, flow: bool) -> None:
    _check(yaml.safe_dump(tree, default_flow_style=flow), "yaml")


@given(trees)
def test_json_not_stale_means_every_path_exists(tree: object) -> None:
    _check(json.dumps(tree), "json")


@given(st.lists(st.tuples(keys, trees), max_size=6), st.integers(0, 3))
def test_yaml_with_repeated_keys_and_merges(pairs: list[tuple[str, object]], indent: int) -> None:
    # Duplicate keys and merge keys written by hand (a dumper never writes them).
    lines = ["base: &base", "  a: 1", "  b: {c: 2}"]
    for key, value in pairs:
        body = json.dumps(value)
        lines.append(f"{key}: {'*base' if key == '<<' else body}")
    _check("\n".join(lines) + "\n", "yaml")


@given(st.lists(st.tuples(keys, trees), max_size=6))
def test_json_with_repeated_keys(pairs: list[tuple[str, object]]) -> None:
    body = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs)
    _check("{" + body + "}", "json")


def test_the_flag_is_raised_where_paths_go_stale() -> None:
    assert parse_text("a: {x: 1}\na: 2\n", "yaml").stale
    assert parse_text("a: 1\na: {x: 1}\n", "yaml").stale
    assert parse_text("base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n", "yaml").stale
    assert parse_text('{"a": {"x": 1}, "a": 2}', "json").stale
    assert not parse_text("a: {x: 1}\nb: [1, 2]\n", "yaml").stale
    assert not parse_text('{"a": {"x": 1}, "b": [1]}', "json").stale


def test_the_tab_scan_still_finds_a_tab_anywhere() -> None:
    # AI Toolkit's scanner rejects a tab after a value; the scan stops only once it is past every tab.
    body = "".join(f"  key_{i}: {i}\n" for i in range(200))
    for text in (
        "train:\n  batch_size: 4\t\n" + body,
        "train:\n" + body + "  batch_size: 4\t\n",
        "train:\n  note: 'a\tb'\n" + body + "  batch_size: 4\t\n",
    ):
        parsed = parse_text(text, "yaml")
        assert parsed.error is not None and "\\t" in parsed.error.problem, text[-40:]
    assert parse_text("train:\n  note: 'a\tb'\n" + body, "yaml").error is None


def _same_data(a: object, b: object) -> bool:
    # NaN is the one value not equal to itself; compare through repr, which keeps types apart.
    return repr(a) == repr(b)


@given(trees, st.booleans())
def test_unmapped_parse_gives_the_same_data(tree: object, flow: bool) -> None:
    for text, fmt in ((yaml.safe_dump(tree, default_flow_style=flow), "yaml"), (json.dumps(tree), "json")):
        full, bare = parse_text(text, fmt), parse_text(text, fmt, mapped=False)
        assert _same_data(full.data, bare.data) and full.error == bare.error and full.hits == bare.hits
        assert not bare.source_map


def test_unmapped_parse_of_the_bundled_configs() -> None:
    from pathlib import Path

    root = Path(__file__).parent
    paths = sorted(root.glob("hostile/fixtures/*.yaml")) + sorted(root.parent.glob("examples/*.yaml"))
    texts = [(p.read_bytes().decode("utf-8", "replace"), "yaml") for p in paths]
    texts.append(("base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\nd: [*b, *b]\n", "yaml"))
    texts.append(('{"a": [1, {"b": 2}]}', "json"))
    for text, fmt in texts:
        full, bare = parse_text(text, fmt), parse_text(text, fmt, mapped=False)
        assert _same_data(full.data, bare.data) and full.error == bare.error and full.hits == bare.hits


CONFIG_DOC = (
    "job: extension\nconfig:\n  name: x\n  process:\n"
    "    - type: sd_trainer\n      train:\n        batch_size: 1\n"
)


def test_which_document_of_a_stream_is_read() -> None:
    # The config document wins wherever it stands; otherwise the first document is read.
    assert parse_text(CONFIG_DOC, "yaml").data["job"] == "extension"
    assert parse_text("a: 1\n---\n" + CONFIG_DOC, "yaml").data["job"] == "extension"
    assert parse_text(CONFIG_DOC + "---\na: 1\n", "yaml").data["job"] == "extension"
    assert parse_text("a: 1\n---\nb: 2\n", "yaml").data == {"a": 1}
    # A broken document after the config is never reached; after anything else it is the answer.
    assert parse_text(CONFIG_DOC + "---\n[unclosed\n", "yaml").data["job"] == "extension"
    assert parse_text(CONFIG_DOC + "--- [\n", "yaml").data["job"] == "extension"
    assert parse_text("a: 1\n---\n[unclosed\n", "yaml").error is not None
