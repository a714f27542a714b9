"""The classic section of the case runner (engine/scenario_classic.py): a wrong expectation,
an unexpected refusal or the wrong code fails saying what differed; a malformed classic case
fails saying why; a table C1 refuses passes only when the case expects it."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

from engine.scenario import run_case

GOOD: dict[str, Any] = {
    "name": "a good classic case", "rules": "classic", "players": ["A", "B"],
    "start": {"table": [["5H", "JK=6H", "7H"]], "hands": {"A": ["6H", "9C", "9D", "2S"],
                                                         "B": ["4D"]}, "stock": ["9H"]},
    "steps": [{"p": "A", "do": "free", "card": "6H", "meld": 1},
              {"p": "A", "do": "end", "refused": True, "error": "loose_joker"},
              {"p": "A", "do": "lay", "cards": ["9C", "9D"]},
              {"p": "A", "do": "move", "card": "JK", "meld": "loose", "to": 2},
              {"p": "A", "do": "end"}],
    "expect": {"melds": {"1": ["5H", "6H", "7H"], "2": ["9C", "9D", "JK"]}, "turn": "B"},
}


def variant(**changes: Any) -> dict[str, Any]:
    case = copy.deepcopy(GOOD)
    case.update(changes)
    return case


def test_the_good_case_passes() -> None:
    assert run_case(GOOD) == (True, "a good classic case", "")


@pytest.mark.parametrize("changes, why", [
    ({"expect": {"melds": {"2": ["9C", "9D", "JK=9H"]}}}, "meld 2 is [9C 9D JK]"),
    ({"expect": {"turn": "A"}}, "turn is B, expected A"),
    ({"expect": {"hands": {"A": ["2S", "9H"]}}}, "hands of A"),
    ({"expect": {"deadline": 120}}, "deadline is None"),
    # Nothing changed yet: end is refused, but with C16's third code, not the first.
    ({"steps": [{"p": "A", "do": "end", "error": "loose_joker", "refused": True}]},
     "refused with no_card_from_hand, expected loose_joker"),
    ({"steps": [{"p": "A", "do": "draw", "refused": True}]}, "was accepted, expected a refusal"),
    ({"steps": [{"p": "B", "do": "draw"}]}, "B draw refused: not_your_turn"),
])
def test_a_wrong_expectation_fails_and_says_what(changes: dict[str, Any], why: str) -> None:
    ok, _, message = run_case(variant(**changes))
    assert not ok and why in message, message


@pytest.mark.parametrize("changes, why", [
    ({"options": {"lunch": 1}}, "no table option 'lunch'"),
    ({"start": {"hands": {"A": ["6H", "6H", "6H"]}}}, "more than 2 times"),
    ({"steps": [{"p": "A", "do": "fly"}]}, "unknown command 'fly'"),
    ({"steps": [{"p": "A", "do": "add", "card": "6H"}]}, "needs meld"),
    ({"steps": [{"p": "A", "do": "add", "card": "6H", "meld": 1, "as": "7H"}]}, "does not take"),
    ({"expect": {"weather": 1}}, "unknown check key 'weather'"),
    ({"start": {"table": [["KH", "AH", "2H"]]}}, "not valid"),
    ({"start": {"hands": {"A": ["1X"]}}}, "1X"),
    ({"steps": [{"t": 5, "check": {}}, {"t": 4, "check": {}}]}, "never go back"),
    ({"start": {"hands": {"A": "6H"}}}, "lists of cards, not text"),
    ({"expect": {"hands": ["6H"]}}, "'hands' has the wrong shape"),
    ({"expect": {"melds": {"one": []}}}, "maps meld ids"),
    ({"expect": {"match": {"totals": 3}}}, "totals"),
    ({"steps": [{"check": {"turn": 3}}]}, "step 1's check: 'turn' has the wrong shape"),
    ({"match": {"hand": "x"}}, "match 'hand' must be a whole number from 1"),
    ({"match": {"hand": 0}}, "match 'hand' must be a whole number from 1"),
    ({"match": {"totals": {"A": "lots"}}}, "maps players to whole numbers"),
    ({"seed": "x"}, "'seed' must be a whole number"),
    ({"start": {"hands": {"A": ["JK=ZZ"]}}}, "'ZZ' has no suit"),  # the quote kept (t15)
])
def test_a_malformed_case_fails_and_says_why(changes: dict[str, Any], why: str) -> None:
    ok, _, message = run_case(variant(**changes))
    assert not ok and message.startswith("malformed case") and why in message, message


def test_a_refused_table() -> None:
    refused = {"name": "six Dutch", "rules": "classic_dutch", "players": list("ABCDEF"),
               "seed": 1, "steps": [], "expect": {"options_refused": True}}
    assert run_case(refused)[0]
    accepted = dict(refused, rules="classic")
    ok, _, message = run_case(accepted)
    assert not ok and "expected it refused" in message
    unexpected = dict(refused, expect={})
    ok, _, message = run_case(unexpected)
    assert not ok and "too_many_players" in message


def test_the_cli_runs_classic_and_machiavelox_cases_side_by_side(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(variant(name="bad one", expect={"turn": "A"})), encoding="utf-8")
    mach = REPO_ROOT.parent / "shared" / "conformance" / "cases" / "01-lay-validity.json"
    files = [good, bad] + ([mach] if mach.exists() else [])
    proc = subprocess.run([sys.executable, "-m", "server.cli", "scenario", *map(str, files)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and lines[0] == "PASS a good classic case"
    assert lines[1].startswith("FAIL bad one: at the end: turn is B, expected A")
    assert all(line.startswith("PASS") for line in lines[2:]) and len(lines) == len(files)
