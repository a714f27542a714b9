"""The engine is sans-I/O (STYLE 1–3) and type-checked strictly (STYLE 15)."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "engine"
FORBIDDEN = {"asyncio", "fastapi", "starlette", "redis", "json", "socket", "time", "datetime",
             "os", "threading", "uvicorn", "websockets"}
ALLOWED: set[tuple[str, str]] = set()  # the solver, which reads a clock, is its own package


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_engine_does_no_io() -> None:
    bad = {}
    for f in ENGINE.rglob("*.py"):
        hit = {m for m in imports(f) & FORBIDDEN if (f.name, m) not in ALLOWED}
        if hit:
            bad[f.name] = sorted(hit)
    assert not bad, f"engine modules importing I/O or clocks: {bad}"


def test_engine_uses_no_global_random() -> None:
    for f in ENGINE.rglob("*.py"):
        text = f.read_text()
        for call in ("random.shuffle(", "random.random(", "random.choice(", "random.randint("):
            assert call not in text, f"{f.name} uses the global random generator ({call})"

# mypy --strict on engine/ and solver/ (recursively) is the lint step of scripts/test.sh
# (pyproject.toml [tool.mypy]); it is not repeated here.
