"""Regular expressions compiled on first use.

A few patterns are costly to compile (a long case-insensitive table of GPU names, a wide Unicode
class) and are needed only by some inputs: compiling them when a module is imported would make every
command-line run pay for them, and its start-up is a benchmark figure (README). A `LazyPattern`
stands at module level like a compiled pattern (so the hostile-input regex probe finds and
stress-tests it) and compiles itself the first time it is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    def get(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled now if this is its first use)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: AnyStr, pos: int = 0, endpos: int | None = None) -> re.Match[AnyStr] | None:
        return self.get().search(string, pos, len(string) if endpos is None else endpos)

    def match(self, string: AnyStr, pos: int = 0, endpos: int | None = None) -> re.Match[AnyStr] | None:
        return self.get().match(string, pos, len(string) if endpos is None else endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[AnyStr]]:
        return self.get().finditer(string, pos, len(string) if endpos is None else endpos)

    def sub(
        self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0
    ) -> AnyStr:
        return self.get().sub(repl, string, count)
