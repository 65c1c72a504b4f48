"""Records: classes declared as dataclasses are, whose methods are written once and shared.

Why not `dataclasses`: the start-up of `oomcheck check` is a benchmark figure (README), and with
dataclasses every run would import `inspect` (and with it `ast`, `dis` and `tokenize`) and generate
and compile the methods of each record class at import. A record declares its fields with
annotations and defaults, as a dataclass does; `__init__`, `__repr__` and `__eq__` are Record's own
and behave as the generated ones do (tests/test_record.py holds every record class against a
generated dataclass).

The shared `__init__` is a little slower per record than a generated one, but a diagnosis makes only
a few dozen records; compiling a class's own `__init__` on first use would cost a CLI run more than
its diagnosis gains.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, Self, TypeVar, cast, dataclass_transform

T = TypeVar("T")
R = TypeVar("R", bound="Record")

MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING", "__slots__": ()})()


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made afresh for each record (a list, a dict, a set)."""
    return cast(T, _Factory(default_factory))


class Field(NamedTuple):
    name: str
    default: Any  # MISSING when the field is required or has a factory
    default_factory: Callable[[], Any] | None


def _is_class_var(annotation: object) -> bool:
    # Annotations are strings under `from __future__ import annotations`; both spellings are taken.
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


@dataclass_transform(field_specifiers=(field,))
class Record:
    """Base of a record class: its annotated fields, in declaration order (a base class's first)."""

    __record_fields__: ClassVar[tuple[Field, ...]] = ()
    _names: ClassVar[tuple[str, ...]] = ()
    # Every field → its default, MISSING for the required ones: copied into each new record first,
    # so that its attributes come in field order, as a dataclass's do.
    _template: ClassVar[dict[str, Any]] = {}
    _factories: ClassVar[tuple[tuple[str, Callable[[], Any]], ...]] = ()
    _required: ClassVar[tuple[str, ...]] = ()
    # Given this many positional arguments, every required field was given.
    _positional_covers: ClassVar[int] = 0
    _values: ClassVar[Callable[[Any], Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, Field] = {f.name: f for f in cls.__record_fields__}
        # Not inspect.get_annotations: importing inspect is what records avoid.
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, annotation in own.items():
            if _is_class_var(annotation):
                continue
            default = cls.__dict__.get(name, MISSING)
            if isinstance(default, _Factory):
                delattr(cls, name)  # as a dataclass does: the class keeps no shared container
                found[name] = Field(name, MISSING, default.make)
            else:
                found[name] = Field(name, default, None)
        fields = tuple(found.values())
        after_default = False
        for f in fields:
            if f.default is not MISSING or f.default_factory is not None:
                after_default = True
            elif after_default:  # refused as a dataclass refuses it: no call could give it by position
                raise TypeError(f"{cls.__name__}: required field {f.name!r} follows a field with a default")
        cls.__record_fields__ = fields
        cls._names = tuple(found)
        cls._template = {f.name: f.default for f in fields}
        cls._factories = tuple((f.name, f.default_factory) for f in fields if f.default_factory is not None)
        cls._required = tuple(f.name for f in fields if f.default is MISSING and f.default_factory is None)
        cls._positional_covers = max((cls._names.index(name) + 1 for name in cls._required), default=0)
        # attrgetter of one name returns the value itself, not a 1-tuple; equality holds either way.
        cls._values = operator.attrgetter(*cls._names) if cls._names else (lambda _: ())

    def __init__(self, *args: Any, **values: Any) -> None:
        # A record is made a few dozen times per diagnosis: the common calls (all required fields by
        # position, known keywords) take no Python-level loop beyond the factories.
        cls = type(self)
        state = self.__dict__
        state.update(cls._template)
        for name, make in cls._factories:
            state[name] = make()
        if args:
            if len(args) > len(cls._names):
                raise TypeError(
                    f"{cls.__name__}.__init__() takes {len(cls._names) + 1} positional arguments "
                    f"but {len(args) + 1} were given"
                )
            if values and not values.keys().isdisjoint(cls._names[: len(args)]):
                twice = min(values.keys() & set(cls._names[: len(args)]))
                raise TypeError(f"{cls.__name__}.__init__() got multiple values for argument {twice!r}")
            state.update(zip(cls._names, args, strict=False))
        if values:
            if not values.keys() <= cls._template.keys():
                unknown = min(values.keys() - cls._template.keys())
                raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {unknown!r}")
            state.update(values)
        if len(args) < cls._positional_covers:
            missing = [name for name in cls._required if state[name] is MISSING]
            if missing:
                raise TypeError(
                    f"{cls.__name__}.__init__() missing {len(missing)} required argument(s): "
                    + ", ".join(repr(n) for n in missing)
                )

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._names)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(type(self)._values(self) == type(self)._values(other))

    __hash__ = None  # type: ignore[assignment]  # equal records are not the same key (as a dataclass)

    def copy(self) -> Self:
        """A copy whose factory-made fields (its lists, dicts and sets) are copies too, so that adding
        to one record's leaves the other's as it was."""
        clone = object.__new__(type(self))
        state = dict(self.__dict__)
        for name, _ in self._factories:
            state[name] = state[name].copy()
        clone.__dict__ = state
        return clone


def fields(record: Record | type[Record]) -> tuple[Field, ...]:
    return record.__record_fields__


def replace(record: R, /, **changes: Any) -> R:
    """A new record with `changes`, the other fields as they are (shared, as `dataclasses.replace`
    shares them)."""
    values = {name: getattr(record, name) for name in record._names}
    values.update(changes)
    return type(record)(**values)
