"""Every record class behaves as the dataclass of the same fields would (diagnosis/record.py).

Oracle: for each `Record` subclass of the engine, a dataclass is generated from the same fields and
defaults; both are built from the same arguments (by keyword and by position) and must agree on the
repr, equality, `replace`, fresh containers, attribute order and which calls are errors.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diagnosis
import diagnosis.engine  # imports every module that declares a record
from diagnosis import record
from diagnosis.record import Record


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def _engine_records() -> list[type[Record]]:
    for info in pkgutil.walk_packages(diagnosis.__path__, "diagnosis."):
        importlib.import_module(info.name)
    return sorted(
        (c for c in _subclasses(Record) if c.__module__.startswith("diagnosis.")),
        key=lambda c: (c.__module__, c.__qualname__),
    )


RECORDS = _engine_records()
EXPECTED = {
    "Intake", "ConfigDoc", "OomEvent", "LogFacts", "Finding", "LadderStep", "Note", "Report",
    "Facts", "DatasetFacts", "ProseHints", "ParsedOom",
}  # fmt: skip


def test_the_engine_records_are_found() -> None:
    # Guards the oracle below against running over nothing.
    assert {c.__name__ for c in RECORDS} >= EXPECTED


def _reference(cls: type[Record]) -> type:
    specs: list[tuple[str, Any, Any]] = []
    for f in record.fields(cls):
        if f.default_factory is not None:
            specs.append((f.name, Any, dataclasses.field(default_factory=f.default_factory)))
        elif f.default is record.MISSING:
            specs.append((f.name, Any))  # type: ignore[arg-type]
        else:
            specs.append((f.name, Any, dataclasses.field(default=f.default)))
    reference = dataclasses.make_dataclass(cls.__name__, specs)
    reference.__qualname__ = cls.__qualname__
    return reference


REFERENCES = {cls: _reference(cls) for cls in RECORDS}
values = st.none() | st.integers(-2, 2) | st.text(max_size=2) | st.lists(st.integers(0, 2), max_size=2)


def _call(make: Any, args: list[Any], kwargs: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "ok", make(*args, **kwargs)
    except TypeError:
        return "TypeError", None


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_record_behaves_as_a_generated_dataclass(cls: type[Record], data: st.DataObject) -> None:
    reference = REFERENCES[cls]
    names = [f.name for f in record.fields(cls)]
    positional = data.draw(st.integers(0, len(names) + 1), label="positional")
    args = [data.draw(values, label=f"arg {i}") for i in range(positional)]
    # Keywords: any fields (some may repeat a positional one, or be missing), sometimes an unknown one.
    keys = data.draw(st.sets(st.sampled_from([*names, "not_a_field"]), max_size=4), label="keywords")
    kwargs = {key: data.draw(values, label=key) for key in sorted(keys)}

    outcome, made = _call(cls, args, kwargs)
    expected, ref = _call(reference, args, kwargs)
    assert outcome == expected
    if made is None:
        return
    assert repr(made) == repr(ref)
    assert list(vars(made)) == names  # attributes in field order, as a dataclass sets them
    again = cls(*args, **kwargs)
    assert (made == again) == (ref == reference(*args, **kwargs))
    assert (made == "x") is False and cls.__hash__ is None

    changes = {
        key: data.draw(values, label=f"change {key}") for key in data.draw(st.sets(st.sampled_from(names)))
    }
    assert repr(record.replace(made, **changes)) == repr(dataclasses.replace(ref, **changes))
    assert (record.replace(made, **changes) == made) == (dataclasses.replace(ref, **changes) == ref)
    with pytest.raises(TypeError):
        record.replace(made, not_a_field=1)

    made_by_factory = [f.name for f in record.fields(cls) if f.default_factory is not None]
    if all(isinstance(getattr(made, name), list | dict | set) for name in made_by_factory):
        # `copy` copies the containers a factory makes (a field given another value is a type error).
        copy = made.copy()
        assert type(copy) is cls and copy == made and repr(copy) == repr(made)
        for name in made_by_factory:
            assert getattr(copy, name) is not getattr(made, name), name


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_each_record_gets_fresh_containers(cls: type[Record]) -> None:
    required = {
        f.name: None for f in record.fields(cls) if f.default is record.MISSING and f.default_factory is None
    }
    for f in record.fields(cls):
        if f.default_factory is not None:
            assert getattr(cls(**required), f.name) is not getattr(cls(**required), f.name), f.name
            assert f.name not in vars(cls)  # no shared container left on the class


def test_class_variables_and_inherited_fields() -> None:
    from typing import ClassVar

    class Base(Record):
        kind: ClassVar[str] = "base"
        a: int
        b: list[int] = record.field(default_factory=list)

    class Child(Base):
        c: str = "x"

    assert [f.name for f in record.fields(Child)] == ["a", "b", "c"]
    assert Base(1).b == []
    assert (
        repr(Child(1, c="y")) == "test_class_variables_and_inherited_fields.<locals>.Child(a=1, b=[], c='y')"
    )
    assert Child.kind == "base" and Child(1) != Base(1)
    with pytest.raises(TypeError, match="missing 1 required"):
        Child()
    with pytest.raises(TypeError, match="multiple values"):
        Child(1, a=2)


def test_a_required_field_after_a_default_is_refused_at_once() -> None:
    # As a dataclass: no __init__ could take it by position.
    with pytest.raises(TypeError, match="'b' follows a field with a default"):

        class Bad(Record):
            a: int = 0
            b: int
