"""No import circles in the engine, the solver and the bots (issue 26, item 5; the brief's "no
import cycles"): every import counts, type-only (``if TYPE_CHECKING:``) and function-local ones
included, since either is a circle a reader must follow. The server is not held to it yet (its
table modules import each other inside functions; see the closing note)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def module_imports(packages: list[str]) -> dict[str, set[str]]:
    """``{module: modules of these packages it imports}``, by dotted name, any import."""
    mods: dict[str, Path] = {}
    for pkg in packages:
        for f in (ROOT / pkg).rglob("*.py"):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = f
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        base = m.split(".") if f.name == "__init__.py" else m.split(".")[:-1]
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    mod = ".".join(base[: len(base) - node.level + 1] + ([mod] if mod else []))
                names = [mod, *(f"{mod}.{a.name}" for a in node.names)]
            for name in names:
                while name and name not in mods:
                    name = name.rpartition(".")[0]
                if name and name != m and not m.startswith(name + "."):  # not its own package
                    edges[m].add(name)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_finder_sees_a_circle_and_not_a_mere_dependency() -> None:
    a = {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}}
    assert circles(a) == [["pkg.a", "pkg.b"]]


@pytest.mark.parametrize("packages", [["engine"], ["engine", "solver", "bots"]])
def test_no_import_circles(packages: list[str]) -> None:
    assert circles(module_imports(packages)) == []
