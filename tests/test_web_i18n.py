"""The client's strings: English, Italian and Dutch are complete (same keys, same
placeholders), every key the code asks for exists, and every refusal code the engine or the
server can send has a sentence in each language. Reads the source; no browser needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.errors import MESSAGES

WEB = Path(__file__).resolve().parents[1] / "web"
LANGS = ("en", "it", "nl")


def dictionaries() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        src = (WEB / "lang" / f"{lang}.js").read_text(encoding="utf-8")
        m = re.search(rf"^const {lang} = \{{\n(.*?)^\}};", src, re.DOTALL | re.MULTILINE)
        assert m, f"no dictionary for {lang}"
        pairs = re.findall(r'"([A-Za-z0-9_.]+)":\s*"((?:[^"\\]|\\.)*)"', m.group(1))
        d = dict(pairs)
        assert len(d) == len(pairs), f"{lang}: a key appears twice"
        out[lang] = d
    return out


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    d = dictionaries()
    for lang in ("it", "nl"):
        assert set(d[lang]) == set(d["en"]), (
            f"{lang} lacks {sorted(set(d['en']) - set(d[lang]))}, has extra {sorted(set(d[lang]) - set(d['en']))}")
        for key, text in d["en"].items():
            assert d[lang][key].strip(), f"{lang}: {key} is empty"
            assert set(re.findall(r"\{(\w+)\}", d[lang][key])) == set(re.findall(r"\{(\w+)\}", text)), (
                f"{lang}: {key} has other placeholders than English")


def test_every_key_the_code_asks_for_exists() -> None:
    keys = set(dictionaries()["en"])
    spaces = {k.split(".")[0] for k in keys}
    asked: set[str] = set()
    for path in WEB.glob("*.js"):
        if path.name == "i18n.js":
            continue
        for lit in re.findall(r'"([a-z0-9_]+\.[A-Za-z0-9_.]*)"', path.read_text(encoding="utf-8")):
            if lit.split(".")[0] in spaces:
                asked.add(lit)
    assert len(asked) > 150
    # tm(key, mine, ...) picks key + ".me" for sentences about the player themself.
    notices = (WEB / "notices.js").read_text(encoding="utf-8")
    for base in re.findall(r'tm\("([a-z0-9_.]+)"', notices):
        if base.endswith("."):
            assert any(k.startswith(base) and k.endswith(".me") for k in keys), base
        else:
            assert base + ".me" in keys, base + ".me"
    for lit in sorted(asked):
        if lit.endswith("."):  # a prefix completed at run time ("end." + kind)
            assert any(k.startswith(lit) for k in keys), lit
        else:
            assert lit in keys, f"{lit} is used but has no string"


@pytest.mark.parametrize("lang", LANGS)
def test_every_refusal_and_outcome_has_words(lang: str) -> None:
    d = dictionaries()[lang]
    from server.tables import SERVER_REFUSALS

    for code in list(MESSAGES) + list(SERVER_REFUSALS) + ["bad_json", "unknown_type", "bad_field", "too_large"]:
        assert f"ref.{code}" in d, code
    for end in ("out", "silence", "tiebreak", "draw", "survivor", "abandoned"):
        assert f"end.{end}" in d
    for reason in ("staging_empty", "end", "cancel", "timeout", "auto", "left", "hand_end", "eliminated"):
        assert f"reason.play.{reason}" in d
    for reason in ("target", "single", "left", "abandoned"):
        assert f"result.reason.{reason}" in d
    for rank in ["A", "J", "Q", "K"] + [str(n) for n in range(2, 11)]:
        assert f"rank.{rank}" in d
