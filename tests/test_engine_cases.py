"""The project's own cases in the conformance format (tests/cases/): regressions and rulings
the public cases do not cover. Each is run exactly as `machiavelox scenario` runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.scenario import run_case

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    ok, name, message = run_case(json.loads(path.read_text()))
    assert ok, f"{name}: {message}"


def test_an_engine_fault_is_a_failure_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine import hand

    def boom(self: hand.Hand, ps: object, cmd: object) -> None:
        raise IndexError("boom")

    monkeypatch.setattr(hand.Hand, "_cmd_draw", boom)
    ok, _, message = run_case({"name": "x", "players": ["A", "B", "C"], "start": {},
                               "steps": [{"t": 0, "p": "A", "do": "draw"}]})
    assert not ok and "engine error: IndexError" in message
