"""Run every module-level regex of the product against long runs of what repeated classes match.

A pattern that backtracks (an unanchored `\\d+ Killed`, nested quantifiers…) turns a 100,000-character
run into minutes of work; a linear one takes milliseconds. Each pattern is probed the way its module
uses it: with `search` when the source calls search/finditer/findall/sub/split on it, or when the use
cannot be seen (a pattern kept in a table); with `match` when it is only ever anchored.

`python -m tests.hostile.regex_probe` prints `probe <module>.<name> <method> <stress>` before each
search, so a caller that times the whole run out knows which pattern and which input hung. It prints
`done <count>` at the end.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator

from diagnosis.lazyre import LazyPattern

PACKAGES = ("diagnosis", "bot")
RUN = 250_000
# Runs of what repeated classes match (\d, \w, \s, [^…]) and of the filler users paste.
STRESSES = ("0", " ", "a", "1.", "#")
_UNANCHORED = {"search", "finditer", "findall", "sub", "subn", "split"}


def _method(source: str, attr: str) -> str:
    used = set(re.findall(rf"\b{re.escape(attr)}\.(\w+)\(", source))
    return "match" if used and not used & _UNANCHORED else "search"


def patterns() -> Iterator[tuple[str, re.Pattern[str], str]]:
    """(label, pattern, "search" | "match") for every str pattern at module level, compiled or lazy."""
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        walked = pkgutil.walk_packages(package.__path__, prefix=package_name + ".")
        for name in [package_name, *(m.name for m in walked)]:
            try:
                module = importlib.import_module(name)
                source = inspect.getsource(module)
            except Exception:  # a module that cannot be imported or read here has nothing to probe
                continue
            for attr, value in vars(module).items():
                values = value if isinstance(value, tuple | list) else (value,)
                for i, item in enumerate(values):
                    if isinstance(item, LazyPattern):
                        item = item.get()  # compiled on first use in the product; probed all the same
                    if isinstance(item, re.Pattern) and isinstance(item.pattern, str):
                        label = f"{name}.{attr}" + (f"[{i}]" if len(values) > 1 else "")
                        yield label, item, _method(source, attr)


def stresses(run: int) -> Iterator[tuple[str, str]]:
    for unit in STRESSES:
        yield f"{unit!r}*{run // len(unit)}", unit * (run // len(unit))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile.regex_probe")
    parser.add_argument("--run", type=int, default=RUN, help="length of each stress string")
    parser.add_argument("--only", action="append", default=[], help="probe only these labels")
    parser.add_argument("--skip", action="append", default=[], help="do not probe these labels")
    args = parser.parse_args(argv)
    count = 0
    seen: set[int] = set()
    for label, pattern, method in patterns():
        if id(pattern) in seen or label in args.skip or (args.only and label not in args.only):
            continue
        seen.add(id(pattern))
        run: Callable[[str], object] = pattern.search if method == "search" else pattern.match
        for stress_label, text in stresses(args.run):
            sys.stdout.write(f"probe {label} {method} {stress_label}\n")
            sys.stdout.flush()
            run(text)
            count += 1
    sys.stdout.write(f"done {count}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
