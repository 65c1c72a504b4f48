"""The translated reply templates: current, used, and writing exactly what Jinja2 writes.

When a template changes, `python -m diagnosis.precompile` rebuilds its module; until then Jinja2
renders that template (slower, never stale) and the first test here fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.precompile import COMPILED_DIR, module_text
from diagnosis.render import render_cli, render_discord, render_explain, render_rules, templating
from diagnosis.render.templating import TEMPLATES_DIR, module_name, source_environment
from diagnosis.render.translate import Unsupported, translate
from diagnosis.report import Report
from tests.conftest import CORPUS, EXAMPLES

TEMPLATES = sorted(Path(TEMPLATES_DIR).glob("*.j2"))
REBUILD = "out of date: run `python -m diagnosis.precompile`"
TEXTS = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*/*/input.txt"))]
TEXTS += [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.iterdir())]


def test_there_are_templates() -> None:
    assert len(TEMPLATES) >= 6
    assert all(module_name(p.name) for p in TEMPLATES)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_each_module_is_the_translation_of_the_current_template(template: Path) -> None:
    module = COMPILED_DIR / f"{module_name(template.name)}.py"
    assert module.is_file(), REBUILD
    expected = module_text(source_environment(), template.name, template.read_text(encoding="utf-8"))
    assert module.read_text(encoding="utf-8") == expected, REBUILD
    assert templating.translated(template.name) is not None, REBUILD


def test_no_module_outlives_its_template() -> None:
    stems = {module_name(p.name) for p in TEMPLATES} | {"__init__"}
    assert {p.stem for p in COMPILED_DIR.glob("*.py")} <= stems


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


def test_an_edited_template_is_rendered_by_jinja2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for template in TEMPLATES:
        text = template.read_text(encoding="utf-8")
        if template.name == "fix.j2":
            text = text.replace('{{ t("reply.config.apply") }}', "EDITED")
        (tmp_path / template.name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(templating, "TEMPLATES_DIR", tmp_path)
    templating.translated.cache_clear()
    templating.environment.cache_clear()
    try:
        assert templating.translated("fix.j2") is None
        assert templating.translated("headline.j2") is not None
        report = diagnose([(EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")])
        assert render_cli(report).rstrip().endswith("EDITED")
    finally:
        monkeypatch.undo()
        templating.translated.cache_clear()
        templating.environment.cache_clear()


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
