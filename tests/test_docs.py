"""The docs list what the code does: every refusal code, every rules choice's test class."""

from pathlib import Path

from engine.errors import MESSAGES

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_refusal_code_is_documented() -> None:
    text = (DOCS / "errors.md").read_text()
    missing = [code for code in MESSAGES if f"`{code}`" not in text]
    assert not missing, f"codes missing from docs/errors.md: {missing}"


def test_rules_document_names_rulings() -> None:
    text = (DOCS / "rules.md").read_text()
    for r in ("R4", "R8", "R10", "R11", "R12", "R13", "R14", "R15", "R16", "R18", "R19", "R20", "R21", "R23"):
        assert r in text, f"{r} not mentioned in docs/rules.md"
