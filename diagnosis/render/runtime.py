"""What the translated templates call at run time, without Jinja2.

`diagnosis.render.translate` turns each reply template into a plain Python function; the functions
here give its expressions the meaning Jinja2 gives them in our environment (autoescape off,
`ChainableUndefined`): attribute access that falls back to item access, a missing value that prints
as nothing, is false and chains, `~` joining the text of its operands, and the few filters the
templates use. Importing Jinja2 costs more than rendering a reply; tests render every template both
ways and require the same text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn


class UndefinedError(Exception):
    """A missing value was used in a way that has no quiet meaning (called, compared by order)."""


class Undefined:
    """A missing value, as `jinja2.ChainableUndefined` behaves: empty, false, and every attribute or
    item of it is itself."""

    __slots__ = ()

    def __str__(self) -> str:
        return ""

    def __repr__(self) -> str:
        return "Undefined"

    def __bool__(self) -> bool:
        return False

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__":
            raise AttributeError(name)
        return self

    def __getitem__(self, key: Any) -> Any:
        return self

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(type(self))

    def _fail(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise UndefinedError("a missing value was used")

    __call__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __radd__ = __sub__ = __rsub__ = _fail
    __mul__ = __rmul__ = __truediv__ = __floordiv__ = __mod__ = __neg__ = __pos__ = __int__ = _fail
    __float__ = _fail


UNDEFINED = Undefined()


class Scope:
    """The names a part of a template sees: its own assignments, then the enclosing scope's."""

    __slots__ = ("parent", "vars")

    def __init__(self, parent: Scope | Mapping[str, Any]) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent

    def get(self, name: str) -> Any:
        scope: Scope | Mapping[str, Any] = self
        while isinstance(scope, Scope):
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        return scope.get(name, UNDEFINED)


class Loop:
    """`loop` inside a for block (the attributes the translator allows)."""

    __slots__ = ("index0", "length")

    def __init__(self, index0: int, length: int) -> None:
        self.index0 = index0
        self.length = length

    @property
    def index(self) -> int:
        return self.index0 + 1

    @property
    def first(self) -> bool:
        return self.index0 == 0

    @property
    def last(self) -> bool:
        return self.index0 == self.length - 1


def attr(obj: Any, name: str) -> Any:
    """`obj.name`: the attribute, else the item, else undefined."""
    try:
        return getattr(obj, name)
    except AttributeError:
        pass
    try:
        return obj[name]
    except (TypeError, LookupError, AttributeError):
        return UNDEFINED


def item(obj: Any, key: Any) -> Any:
    """`obj[key]`: the item, else (for a string key) the attribute, else undefined."""
    try:
        return obj[key]
    except (AttributeError, TypeError, LookupError):
        if isinstance(key, str):
            try:
                return getattr(obj, key)
            except AttributeError:
                pass
        return UNDEFINED


def call(func: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return func(*args, **kwargs)
    except StopIteration:
        return UNDEFINED


def concat(values: Iterable[Any]) -> str:
    return "".join(map(str, values))


def macro(body: Callable[[Scope], str], parent: Scope, params: tuple[str, ...]) -> Callable[..., str]:
    """A macro: its parameters bound by position or name; one not given is undefined."""

    def invoke(*args: Any, **kwargs: Any) -> str:
        if len(args) > len(params):
            raise TypeError(f"macro takes not more than {len(params)} argument(s)")
        scope = Scope(parent)
        for name, value in zip(params, args, strict=False):
            scope.vars[name] = value
        for name, value in kwargs.items():
            if name not in params or name in scope.vars:
                raise TypeError(f"macro got an unexpected or repeated argument {name!r}")
            scope.vars[name] = value
        for name in params:
            scope.vars.setdefault(name, UNDEFINED)
        return body(scope)

    return invoke


def f_join(value: Any, separator: Any = "") -> str:
    return str(separator).join(map(str, value))


def f_length(value: Any) -> int:
    return len(value)


def f_list(value: Any) -> list[Any]:
    return list(value)


_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "equalto": lambda a, b: bool(a == b),
    "eq": lambda a, b: bool(a == b),
    "==": lambda a, b: bool(a == b),
    "ne": lambda a, b: bool(a != b),
    "!=": lambda a, b: bool(a != b),
}
SELECT_TESTS = frozenset(_TESTS)


def f_selectattr(value: Any, name: str, test: str | None = None, *args: Any) -> Iterator[Any]:
    """Items whose attribute `name` (looked up as `obj[name]` first) passes the test, or is true."""
    if not value:
        return
    for element in value:
        got = element
        for part in name.split("."):
            got = item(got, int(part) if part.isdigit() else part)
        if _TESTS[test](got, *args) if test is not None else bool(got):
            yield element
