"""Every `tests/test_bot*.py` module holds tests: a helper module named like a test file is
collected by pytest for nothing and reads as if it were tested."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_every_bot_test_module_defines_a_test() -> None:
    modules = sorted(HERE.glob("test_bot*.py"))
    assert len(modules) > 1
    empty = []
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
        ]
        if not names:
            empty.append(path.name)
    assert empty == []
