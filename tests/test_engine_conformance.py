"""The shared conformance cases (``../shared/conformance``), through the engine and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, SHARED_DIR

from engine.scenario import run_case

CASES = sorted((SHARED_DIR / "conformance" / "cases").glob("*.json"))
# The classic cases (C1–C31), run the same way; and the project's own classic cases.
CLASSIC_CASES = sorted((SHARED_DIR / "conformance" / "cases" / "classic").glob("*.json"))
OWN_CLASSIC = sorted((REPO_ROOT / "tests" / "cases" / "classic").glob("*.json"))


@pytest.mark.parametrize("case_file", CASES + CLASSIC_CASES + OWN_CLASSIC,
                         ids=[p.stem if p.parent.name == "cases" else f"classic/{p.stem}"
                              for p in CASES + CLASSIC_CASES + OWN_CLASSIC])
def test_conformance_case(case_file: Path, shared_dir: Path) -> None:
    case = json.loads(case_file.read_text(encoding="utf-8"))
    ok, name, message = run_case(case)
    assert ok, f"{case_file.name} ({name}): {message}"


def test_there_are_public_cases(shared_dir: Path) -> None:
    assert len(list((shared_dir / "conformance" / "cases").glob("*.json"))) >= 28


def _cli() -> list[str]:
    # The script installed beside this interpreter (not whichever `machiavelox` PATH finds
    # first: an older install elsewhere would run older rules).
    beside = Path(sys.executable).with_name("machiavelox")
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "server.cli"]


def _run_cli(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_cli(), "scenario", *map(str, files)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def test_there_are_public_classic_cases(shared_dir: Path) -> None:
    assert len(list((shared_dir / "conformance" / "cases" / "classic").glob("*.json"))) >= 32


def test_cli_passes_every_public_case(shared_dir: Path) -> None:
    cases = shared_dir / "conformance" / "cases"
    files = sorted(cases.glob("*.json")) + sorted((cases / "classic").glob("*.json")) + OWN_CLASSIC
    proc = _run_cli(*files)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(lines) == len(files)
    assert all(line.startswith("PASS ") for line in lines), proc.stdout


GOOD: dict[str, Any] = {
    "name": "a good little case",
    "rules": "machiavelox",
    "players": ["A", "B", "C"],
    "start": {"table": [["4C", "5C", "6C"]], "hands": {"A": ["7C", "KD"]},
              "drew": ["A"], "laid": ["A"]},
    "steps": [{"t": 0, "p": "A", "do": "add", "card": "7C", "meld": 1}],
    "expect": {"table": [["4C", "5C", "6C", "7C"]], "hands": {"A": ["KD"]}},
}


def _variant(**changes: Any) -> dict[str, Any]:
    case = json.loads(json.dumps(GOOD))
    case.update(changes)
    return case


MALFORMED: dict[str, tuple[str | dict[str, Any], str]] = {
    "bad_json": ('{"name": "broken", "steps": [', "malformed"),
    "unknown_command": (_variant(name="unknown command case",
                                 steps=[{"t": 0, "p": "A", "do": "fly", "card": "7C"}]),
                        "unknown command"),
    "third_copy": (_variant(name="third copy case",
                            start={"table": [["7C", "8C", "9C"]],
                                   "hands": {"A": ["7C", "7C"]}}),
                   "more than 2"),
    "unknown_rules": (_variant(name="unknown rules case", rules="poker"), "unknown rule set"),
    "not_a_card": (_variant(name="not a card case", start={"hands": {"A": ["1X"]}}), "1X"),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_cli_fails_a_malformed_case_and_says_why(kind: str, tmp_path: Path,
                                                 shared_dir: Path) -> None:
    content, why = MALFORMED[kind]
    bad = tmp_path / f"{kind}.json"
    bad.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    proc = _run_cli(good, bad)
    assert proc.returncode != 0
    lines = proc.stdout.splitlines()
    assert lines[0] == "PASS a good little case"
    fail = [line for line in lines if line.startswith("FAIL ")]
    assert len(fail) == 1, proc.stdout
    assert why.lower() in fail[0].lower(), fail[0]
    assert "Traceback" not in proc.stderr


def test_cli_fails_a_case_whose_expectation_is_wrong(tmp_path: Path) -> None:
    wrong = _variant(name="wrong expectation", expect={"hands": {"A": ["7C", "KD"]}})
    f = tmp_path / "wrong.json"
    f.write_text(json.dumps(wrong), encoding="utf-8")
    proc = _run_cli(f)
    assert proc.returncode == 1
    assert proc.stdout.startswith("FAIL wrong expectation: ")
    assert "hands of A" in proc.stdout


def test_cli_fails_a_refusal_that_was_not_expected(tmp_path: Path) -> None:
    case = _variant(name="unexpected refusal",
                    steps=[{"t": 0, "p": "A", "do": "take", "card": "4C", "meld": 1}])
    f = tmp_path / "refused.json"
    f.write_text(json.dumps(case), encoding="utf-8")
    proc = _run_cli(f)
    assert proc.returncode == 1
    assert "not_declared" in proc.stdout


def test_run_case_never_raises_on_garbage() -> None:
    for garbage in ([], "x", 3, {"players": []}, {"players": ["A"], "steps": "x"}):
        ok, _, message = run_case(garbage)
        assert not ok and message
