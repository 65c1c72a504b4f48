"""The translated reply templates: made on first use, cached, never stale, and writing exactly what
Jinja2 writes.

Nothing generated is in the repository: `templating.translated` translates a template the first time
it is rendered and keeps the module in a cache folder, named after the template's text, the
environment's options and the translator's source. Every test here gets an empty cache folder.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.render import render_cli, render_discord, render_explain, render_rules, templating
from diagnosis.render.templating import TEMPLATES_DIR, source_environment
from diagnosis.render.translate import Unsupported, module_text, translate
from diagnosis.report import Report
from tests.conftest import CORPUS, EXAMPLES

TEMPLATES = sorted(Path(TEMPLATES_DIR).glob("*.j2"))
TEXTS = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*/*/input.txt"))]
TEXTS += [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.iterdir())]
CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")


def forget() -> None:
    """What this process remembers of translations (each process asks the cache once per template)."""
    templating.translated.cache_clear()
    templating._translator_key.cache_clear()
    templating.environment.cache_clear()


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    forget()
    yield tmp_path / "xdg" / "oomcheck" / "templates"
    monkeypatch.undo()
    forget()


def cached_files(cache: Path) -> set[str]:
    return {p.name for p in cache.glob("*.py")} if cache.is_dir() else set()


def test_there_are_templates() -> None:
    assert len(TEMPLATES) >= 6


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_each_template_is_translated_once_and_then_read_from_the_cache(
    template: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = template.read_text(encoding="utf-8")
    path = Path(templating.translation_path(template.name, source))
    assert path.parent == cache
    assert not path.exists()
    # Its bytecode is kept too, even where Python is told not to write any beside its modules.
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert templating.translated(template.name) is not None
    assert path.read_text(encoding="utf-8") == module_text(source_environment(), template.name, source)
    assert cached_files(cache) == {path.name}
    assert Path(importlib.util.cache_from_source(str(path))).is_file()
    # A new process finds it and translates nothing.
    forget()
    with monkeypatch.context() as patch:
        patch.setattr(templating, "_translate", lambda *args: pytest.fail("translated again"))
        assert templating.translated(template.name) is not None


def test_the_cache_follows_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    assert templating.cache_dir() == str(tmp_path / "elsewhere" / "oomcheck" / "templates")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert templating.cache_dir() == str(tmp_path / "home" / ".cache" / "oomcheck" / "templates")


def test_what_a_translation_depends_on_is_in_its_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = TEMPLATES[0].read_text(encoding="utf-8")
    name = TEMPLATES[0].name
    first = templating.translation_path(name, source)
    assert templating.translation_path(name, source + " ") != first
    with monkeypatch.context() as patch:
        patch.setitem(templating.JINJA_OPTIONS, "trim_blocks", False)
        forget()
        assert templating.translation_path(name, source) != first
    forget()
    assert templating.translation_path(name, source) == first
    for changed in templating.TRANSLATOR_FILES:
        fake = tmp_path / os.path.basename(changed)
        fake.write_text(Path(changed).read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
        files = tuple(str(fake) if p == changed else p for p in templating.TRANSLATOR_FILES)
        with monkeypatch.context() as patch:
            patch.setattr(templating, "TRANSLATOR_FILES", files)
            forget()
            assert templating.translation_path(name, source) != first
        forget()


def test_an_edited_template_gets_a_new_translation(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = diagnose([CONFIG])
    before = render_cli(report)
    folder = tmp_path / "templates"
    folder.mkdir()
    for template in TEMPLATES:
        text = template.read_text(encoding="utf-8")
        if template.name == "fix.j2":
            text = text.replace('{{ t("reply.config.apply") }}', "EDITED")
        (folder / template.name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(templating, "TEMPLATES_DIR", str(folder))
    forget()
    assert "EDITED" not in before
    assert render_cli(report).rstrip().endswith("EDITED")
    assert len({p for p in cached_files(cache) if p.startswith("fix-")}) == 2
    assert len({p for p in cached_files(cache) if p.startswith("headline-")}) == 1


def test_a_cached_module_of_another_text_is_not_used(cache: Path) -> None:
    # Its name is a checksum; a file under the right name built from other text is made again.
    source = (Path(TEMPLATES_DIR) / "fix.j2").read_text(encoding="utf-8")
    path = Path(templating.translation_path("fix.j2", source))
    stale = source.replace('{{ t("reply.config.apply") }}', "STALE")
    path.parent.mkdir(parents=True)
    path.write_text(module_text(source_environment(), "fix.j2", stale), encoding="utf-8")
    assert not render_cli(diagnose([CONFIG])).rstrip().endswith("STALE")
    assert "STALE" not in path.read_text(encoding="utf-8")


def test_an_unwritable_cache_still_renders_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = diagnose([CONFIG])
    expected = render_cli(report, lang="ja")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    forget()
    assert render_cli(report, lang="ja") == expected
    assert templating.translated("fix.j2") is not None
    assert blocked.read_text(encoding="utf-8") == "a file where the cache folder would go"
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]


def test_a_template_the_translator_does_not_cover_is_rendered_by_jinja2(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "rules.j2").write_text("{{ 'jinja2' | upper }} {{ rule_ids | length }}\n", encoding="utf-8")
    monkeypatch.setattr(templating, "TEMPLATES_DIR", str(folder))
    forget()
    assert templating.translated("rules.j2") is None
    assert render_rules("en").startswith("JINJA2 ")
    assert cached_files(cache) == set()


@pytest.fixture
def jinja_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every template rendered by Jinja2 itself, as before the translation."""
    monkeypatch.setattr(templating, "translated", lambda name: None)
    yield


def every_reply(reports: list[Report]) -> list[str]:
    out: list[str] = []
    for report in reports:
        for lang in ("en", "ja"):
            for step in (1, 2, 3):
                out.append(render_cli(report, fmt="text", lang=lang, step=step, fixing=step == 2))
                out.append(render_cli(report, fmt="markdown", lang=lang, step=step))
                reply = render_discord(report, lang=lang, step=step)
                out.append(reply.content + repr(reply.embeds) + repr(reply.files))
    return out


def every_listing() -> list[str]:
    out = [render_rules(lang) + render_rules(lang, fmt="text") for lang in ("en", "ja")]
    for rule_id in ("gc_off", "not_oom", "secret_in_input", "other_process_on_gpu"):
        for lang in ("en", "ja"):
            out += [str(render_explain(rule_id, lang, fmt=fmt)) for fmt in ("text", "markdown")]
    return out


def test_translated_and_jinja2_templates_write_the_same_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    reports = [diagnose([text]) for text in TEXTS]
    reports += [diagnose([text], locale="ja", gpu_vram_gib=8) for text in TEXTS[:10]]
    translated = every_reply(reports)
    listings = every_listing()
    monkeypatch.setattr(templating, "translated", lambda name: None)
    assert len(translated) > 800
    assert translated == every_reply(reports)
    assert listings == every_listing()


@given(st.lists(st.sampled_from(TEXTS), min_size=1, max_size=3), st.integers(0, 2**32 - 1), st.data())
def test_cut_and_mixed_pastes_read_the_same_either_way(
    texts: list[str], cut: int, data: st.DataObject
) -> None:
    first = texts[0][: cut % (len(texts[0]) + 1)]
    report = diagnose([first, *texts[1:]], gpu_vram_gib=data.draw(st.sampled_from([None, 8, 24.0])))
    lang = data.draw(st.sampled_from(["en", "ja"]))
    step = data.draw(st.integers(1, 4))
    translated = render_discord(report, lang=lang, step=step), render_cli(report, lang=lang, step=step)
    original = templating.translated
    try:
        templating.translated = lambda name: None  # type: ignore[assignment]
        by_jinja = render_discord(report, lang=lang, step=step), render_cli(report, lang=lang, step=step)
    finally:
        templating.translated = original
    assert translated == by_jinja


# ------------------------------------------------------------------------------------------------
# The translator on its own: each construct against Jinja2, including the corners of its semantics


def both(source: str, **context: Any) -> tuple[str, str]:
    env = source_environment()
    namespace: dict[str, Any] = {}
    exec(translate(env, source, "snippet.j2"), namespace)
    return namespace["render"](dict(context)), env.from_string(source).render(**context)


class Obj:
    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


SNIPPETS: list[tuple[str, dict[str, Any]]] = [
    ("{{ a.b.c }}|{{ a.missing.deeper }}|{{ nothing }}|{{ nothing.x[3].y }}", {"a": {"b": {"c": 1}}}),
    (
        "{{ o.x }} {{ o['x'] }} {{ d.items }} {{ d['items'] }} {{ l[1] }} {{ l[9] }}",
        {"o": Obj(x=5), "d": {"items": 7}, "l": [1, 2]},
    ),
    ("{% if a %}A{% elif b %}B{% else %}C{% endif %}", {"a": 0, "b": ""}),
    ("{% if missing %}A{% elif missing.x %}B{% else %}C{% endif %}", {}),
    (
        "{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}"
        "{{ x }};{% endfor %}",
        {"xs": "abc"},
    ),
    (
        "{% for x in xs %}{{ x }}{% else %}empty{% endfor %}{% for x in nothing %}{% else %}none{% endfor %}",
        {"xs": []},
    ),
    ("{% for a, b in pairs %}{{ a }}={{ b }} {% endfor %}", {"pairs": [(1, 2), ("x", None)]}),
    ("{% for k in d %}{{ k }}{% endfor %}", {"d": {"p": 1, "q": 2}}),
    ("{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}{{ x }}", {}),
    ("{% set x = 1 %}{% if true %}{% set x = 2 %}{% endif %}{{ x }}", {}),
    ("{% for i in [1, 2] %}{% if loop.first %}{% set y = 5 %}{% endif %}{{ y }},{% endfor %}", {}),
    ("{% for i in [1] %}{% for j in [7, 8] %}{{ loop.index }}{% endfor %}{{ loop.index }}{% endfor %}", {}),
    (
        "{% macro m(a, b) %}[{{ a }}|{{ b }}|{{ g }}]{% endmacro %}{{ m(1) }}{{ m(1, 2) }}{{ m(b=3) }}",
        {"g": "G"},
    ),
    ("{% macro m(x) %}{% set y = x * 2 %}{{ y }}{% endmacro %}{{ m(2) }}{{ y }}", {}),
    (
        "{{ xs | join(', ') }}|{{ xs | join }}|{{ xs | length }}|{{ nothing | length }}"
        "|{{ nothing | join('x') }}",
        {"xs": [1, "b", None]},
    ),
    (
        "{% set f = steps | selectattr('number', 'equalto', 2) | list %}{{ f | length }}{{ f[0].name }}"
        "{{ steps | selectattr('name') | list | length }}{{ nothing | selectattr('x') | list }}",
        {"steps": [Obj(number=1, name=""), Obj(number=2, name="two"), {"number": 2, "name": "d"}]},
    ),
    ("{{ 'a' ~ 1 ~ none ~ nothing ~ x }}", {"x": 2.5}),
    (
        "{{ a == b }}{{ a != b }}{{ a > 1 }}{{ 'x' in s }}{{ 'y' not in s }}{{ nothing == nothing2 }}"
        "{{ 'x' in nothing }}{{ 2 >= 2 }}{{ 1 < 2 <= 3 }}",
        {"a": 2, "b": 2.0, "s": "xyz"},
    ),
    (
        "{{ a if c else b }}{{ (a and b) }}{{ (c or b) }}{{ not c }}{{ -a }}"
        "{{ a + 1 }}{{ a - 1 }}{{ a % 2 }}",
        {"a": 3, "b": "B", "c": 0},
    ),
    ("{{ (1, 'a') }}{{ [1, none] }}{{ {'k': 1, 2: 'v'} }}{{ true }}{{ none }}", {}),
    (
        "{{ f(1, *more, k=2, **extra) }}",
        {"f": lambda *a, **k: f"{a}{sorted(k.items())}", "more": [3], "extra": {"z": 9}},
    ),
    ("{{ stop() }}|{{ stop().x }}", {"stop": lambda: next(iter(()))}),
    ("{% set parts = [] %}{% set _ = parts.append(1) %}{% set _ = parts.append(x) %}{{ parts }}", {"x": "u"}),
    ("  {% if a %}\n    line\n  {% endif %}\n{%- if b -%}\n  trimmed\n{%- endif %}\nend\n", {"a": 1, "b": 1}),
    (
        "{{ d.get('k') }}{{ d.get('nope') }}{{ t('x', **p) }}",
        {"d": {"k": "v"}, "t": lambda k, **p: k + str(p), "p": {"n": 1}},
    ),
]


@pytest.mark.parametrize(("source", "context"), SNIPPETS, ids=[str(i) for i in range(len(SNIPPETS))])
def test_a_construct_means_what_it_means_in_jinja2(source: str, context: dict[str, Any]) -> None:
    mine, theirs = both(source, **context)
    assert mine == theirs


@pytest.mark.parametrize(
    "source",
    [
        "{% include 'x.j2' %}",
        "{{ x | upper }}",
        "{{ x | join(', ', attribute='a') }}",
        "{{ range(3) }}",
        "{{ a if b }}",
        "{% for x in y if x %}{% endfor %}",
        "{% for x in y %}{{ loop.cycle(1, 2) }}{% endfor %}",
        "{% for x in y %}{{ f(loop) }}{% endfor %}",
        "{{ x[1:2] }}",
        "{{ x is defined }}",
        "{% macro m(a=1) %}{% endmacro %}",
        "{% macro m() %}{{ caller() }}{% endmacro %}",
        "{{ xs | selectattr('a', 'odd') | list }}",
        "{% set x %}block{% endset %}",
        "{{ a / b }}",
    ],
)
def test_what_the_translation_does_not_cover_is_refused(source: str) -> None:
    with pytest.raises(Unsupported):
        translate(source_environment(), source, "snippet.j2")


def test_undefined_fails_where_jinja2_fails() -> None:
    env = source_environment()
    namespace: dict[str, Any] = {}
    exec(translate(env, "{{ nothing > 1 }}", "snippet.j2"), namespace)
    with pytest.raises(Exception, match="missing"):
        namespace["render"]({})
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ nothing > 1 }}").render()
