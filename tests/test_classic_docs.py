"""docs/rules-classic.md names every C number with tests that exist; docs/errors.md lists every
classic code (C29, C31) and every table refusal (C1)."""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import CLASSIC_MESSAGES
from engine.rules import OPTIONS_CODES

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "rules-classic.md").read_text(encoding="utf-8")


def test_every_classic_code_is_documented() -> None:
    text = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    missing = [c for c in [*CLASSIC_MESSAGES, *OPTIONS_CODES] if f"`{c}`" not in text]
    assert not missing, f"codes missing from docs/errors.md: {missing}"


def test_every_ruling_has_a_row() -> None:
    rows = set(re.findall(r"^\| (C\d+) \|", RULES, flags=re.M))
    assert rows == {f"C{n}" for n in range(1, 32)}


def test_the_tests_named_exist() -> None:
    named = re.findall(r"`(test_[a-z_]+\.py)::([A-Za-z_:]+)`", RULES)
    assert len(named) > 30
    for file, path in named:
        text = (ROOT / "tests" / file).read_text(encoding="utf-8")
        for part in path.split("::"):
            assert re.search(rf"(class|def) {part}\b", text), f"{file}::{path}"
    chained = re.findall(r"`::([a-z_]+)`", RULES)  # `::test_x` after a named test
    every_test = " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_*.py"))
    for name in chained:
        assert f"def {name}(" in every_test, name


def test_the_cases_named_exist() -> None:
    public = ROOT.parent / "shared" / "conformance" / "cases" / "classic"
    own = ROOT / "tests" / "cases" / "classic"
    for kind, folder, prefix in (("public", public, ""), ("own", own, ""), ("t15", own, "t15-")):
        for group in re.findall(rf"{kind} ((?:\d+(?:–\d+)?(?:, )?)+)", RULES):
            for item in re.findall(r"\d+(?:–\d+)?", group):
                lo, _, hi = item.partition("–")
                for n in range(int(lo), int(hi or lo) + 1):
                    if folder.is_dir():
                        assert list(folder.glob(f"{prefix}{n:02d}-*.json")), f"{kind} {n}"


def test_rules_md_links_here() -> None:
    assert "docs/rules-classic.md" in (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
