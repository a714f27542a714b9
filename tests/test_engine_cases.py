"""The project's own cases in the conformance format (tests/cases/): regressions and rulings
the public cases do not cover. Each is run exactly as `machiavelox scenario` runs it."""

from __future__ import annotations

import json
import re
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
    assert not ok and re.search(r"engine error: IndexError: boom \(hand\.py:\d+\)$", message)


def test_a_key_error_inside_the_engine_is_an_engine_error_not_a_malformed_case(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from engine import hand

    def boom(self: hand.Hand, ps: object, cmd: object) -> None:
        raise KeyError("lost")

    monkeypatch.setattr(hand.Hand, "_cmd_draw", boom)
    ok, _, message = run_case({"name": "x", "players": ["A", "B", "C"], "start": {},
                               "steps": [{"t": 0, "p": "A", "do": "draw"}]})
    assert not ok and message.startswith("engine error: KeyError") and "malformed" not in message


@pytest.mark.parametrize("bad, why", [
    ({"t": 5, "check": {"colour": "red"}}, "unknown check key"),
    ({"t": 5, "check": {"hands": {"Z": []}}}, "unknown player 'Z'"),
    ({"t": 5, "check": {"melds": {"1": ["1X"]}}}, "1X"),
    ({"t": 5, "p": "A", "do": "fly"}, "unknown command"),
    ({"t": 0.5, "p": "A", "do": "draw"}, "time goes back"),
])
def test_a_malformed_step_anywhere_fails_the_case_before_any_step_runs(
        bad: dict, why: str) -> None:
    """The first step would fail the case (A's hand is not empty); the malformed later step
    is reported instead, because the case is validated first."""
    case = {"name": "x", "players": ["A", "B", "C"], "start": {"hands": {"A": ["7C"]}},
            "steps": [{"t": 1, "check": {"hands": {"A": []}}}, bad]}
    ok, _, message = run_case(case)
    assert not ok and message.startswith("malformed case") and why in message, message


@pytest.mark.parametrize("step, why", [
    ({"t": 0, "p": "A", "do": "add", "card": "7C"}, "needs meld"),
    ({"t": 0, "p": "A", "do": "move", "card": "7C", "meld": 1}, "needs to"),
    ({"t": 0, "do": "draw"}, "names no player"),
    ({"t": 0, "p": "A", "do": "lay", "cards": "7C 8C 9C"}, "must be a list"),
])
def test_a_command_missing_its_fields_is_a_malformed_case(step: dict, why: str) -> None:
    ok, _, message = run_case({"name": "x", "players": ["A", "B", "C"], "start": {},
                               "steps": [step]})
    assert not ok and "malformed case" in message and why in message
