"""Helpers for the classic rulebook tests: positions and commands in a short notation.

``play(m, "A move JK 1 new as=8H", t=3)`` carries out one command; ``refused(m, "A end",
"loose_joker")`` checks a refusal and that it changed nothing (C29). Melds are compared as
:func:`engine.classic.jokers.display` shows them (runs in order, jokers ``JK=7H``).
"""

from __future__ import annotations

import copy
from typing import Any

from engine import cards as C
from engine.classic.jokers import display
from engine.classic.match import ClassicMatch
from engine.classic.model import Play
from engine.errors import Refused
from engine.rules import table_rules


def position(table: list[str] | tuple[str, ...] = (), *, rules: str = "classic",
             players: str = "AB", options: dict[str, Any] | None = None,
             stock: str = "", hand_no: int = 1, totals: dict[str, int] | None = None,
             **kw: Any) -> ClassicMatch:
    """A match at a position: ``table`` melds as strings (``"5H JK=6H 7H"``), hands as
    keyword strings named by player (``A="6H 2S"``), the other keywords as
    :meth:`ClassicMatch.from_position` takes them."""
    names = list(players)
    hands = {p: kw.pop(p).split() for p in names if p in kw}
    r = table_rules(rules, len(names), options or {})
    return ClassicMatch.from_position(names, r, table=[m.split() for m in table], hands=hands,
                                      stock=stock.split(), hand_no=hand_no, totals=totals, **kw)


def parse(text: str) -> Play:
    """``"A lay 5H 6H JK"``, ``"A add 7C 1"``, ``"A move JK loose 2 as=8H"``,
    ``"A free 6H 1 from=2"``, ``"A swap 6H 1"``, ``"A end"``."""
    words = text.split()
    p, do, rest = words[0], words[1], words[2:]
    opts = dict(w.split("=", 1) for w in rest if w.startswith(("as=", "from=")))
    rest = [w for w in rest if not w.startswith(("as=", "from="))]

    def mid(w: str) -> int | str:
        return int(w) if w.lstrip("-").isdigit() else w

    if do == "lay":
        return Play(p, do, cards=tuple(rest))
    if do in ("add", "swap", "free"):
        return Play(p, do, card=rest[0], meld=mid(rest[1]),
                    source=int(opts["from"]) if "from" in opts else None)
    if do == "move":
        return Play(p, do, card=rest[0], meld=mid(rest[1]), to=mid(rest[2]), as_=opts.get("as"))
    return Play(p, do)


def play(m: ClassicMatch, text: str, t: float = 0.0) -> dict[str, int]:
    return m.apply(parse(text), t)


def state(m: ClassicMatch) -> Any:
    """Everything a command could change, for comparing before and after."""
    h = m.hand
    return copy.deepcopy((None if h is None else (
        h.melds, h.faces, h.hands, h.stock, h.loose, h.next_meld, h.turn, h.pass_row,
        h.first_turn, h.unopened, h.status, h.touched, h.swaps, h.turn_deadline_ms, h.result),
        m.totals, m.hand_no, m.over, m.connected, m.in_match))


def refused(m: ClassicMatch, text: str, code: str, t: float = 0.0) -> None:
    """``text`` is refused with ``code`` and changes nothing (C29)."""
    m.tick(t)
    before = state(m)
    try:
        play(m, text, t)
    except Refused as e:
        assert e.code == code, f"{text}: refused {e.code}, expected {code}"
        assert state(m) == before, f"{text}: a refusal changed the match"
        return
    raise AssertionError(f"{text}: accepted, expected {code}")


def meld(m: ClassicMatch, mid: int) -> str:
    h = m.hand
    assert h is not None
    cards = h.melds.get(mid, [])
    return " ".join(display(cards, h.faces, m.rules))


def hand_of(m: ClassicMatch, p: str) -> list[str]:
    h = m.hand
    assert h is not None
    return sorted(C.names(h.hands[p]))


def F(text: str) -> list[str]:
    """Faces sorted, to compare with :func:`hand_of`."""
    return sorted(text.split())
