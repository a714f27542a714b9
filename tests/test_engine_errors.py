"""Errors by cause (issue 26, item 3): a malformed command raises ``InvalidCommand``, a
well-formed one the rules refuse raises ``IllegalCommand``; both are ``Refused`` with the same
stable code as before, in the real-time hand, the game and the classic match."""

from __future__ import annotations

import pytest
from classichelpers import position as classic_position
from enginehelpers import position

from engine.classic.model import Play
from engine.errors import (
    CLASSIC_MESSAGES,
    ILLEGAL_CODES,
    INVALID_CODES,
    MESSAGES,
    EngineFault,
    IllegalCommand,
    InvalidCommand,
    Refused,
)
from engine.hand import Command

# (command, code, cause) on the hand below: A holds 7C 2S, meld 1 is 4C 5C 6C
HAND_CASES: list[tuple[Command, str, type[Refused]]] = [
    (Command("A", "dance"), "bad_command", InvalidCommand),
    (Command("Z", "draw"), "unknown_player", InvalidCommand),
    (Command("A", "stage", card="7X"), "bad_card", InvalidCommand),
    (Command("A", "stage"), "bad_card", InvalidCommand),
    (Command("A", "add", card="7C", meld="one"), "no_such_meld", InvalidCommand),
    (Command("A", "add", card="7C", meld=True), "no_such_meld", InvalidCommand),
    (Command("A", "add", card="7C", meld=9), "no_such_meld", IllegalCommand),
    (Command("A", "stage", card="9D"), "card_not_in_hand", IllegalCommand),
    (Command("A", "cancel"), "no_open_play", IllegalCommand),
    (Command("A", "move", card="4C", meld=1, to="new"), "not_declared", IllegalCommand),
    (Command("A", "drop", to=1), "not_holding", IllegalCommand),
]


@pytest.mark.parametrize(("cmd", "code", "cause"), HAND_CASES,
                         ids=[f"{c.do}-{code}" for c, code, _ in HAND_CASES])
def test_real_time_refusal_by_cause(cmd: Command, code: str, cause: type[Refused]) -> None:
    h = position("4C 5C 6C | 9H 10H JH", A="7C 2S", B="8C")
    with pytest.raises(Refused) as e:
        h.apply(cmd, 1.0)
    assert type(e.value) is cause
    assert e.value.code == code


def test_real_time_drop_on_a_malformed_meld_is_invalid() -> None:
    h = position("4C 5C 6C | 9H 10H JH", A="7C 2S", B="8C")
    h.apply(Command("A", "stage", card="2S"), 1.0)
    h.apply(Command("A", "take", card="6C", meld=1), 1.1)
    with pytest.raises(InvalidCommand) as e:
        h.apply(Command("A", "drop", to="two"), 1.2)
    assert e.value.code == "no_such_meld"
    h.apply(Command("A", "take", card="6C", meld=1), 1.3)  # the refused drop ended the hold
    with pytest.raises(IllegalCommand) as e2:
        h.apply(Command("A", "drop", to=7), 1.4)
    assert e2.value.code == "no_such_meld"


CLASSIC_CASES: list[tuple[Play, str, type[Refused]]] = [
    (Play("A", "dance"), "bad_command", InvalidCommand),
    (Play("Z", "draw"), "unknown_player", InvalidCommand),
    (Play("A", "lay", cards=("6H", "7X", "8H")), "bad_card", InvalidCommand),
    (Play("A", "add", card="6H", meld="one"), "no_such_meld", InvalidCommand),
    (Play("A", "add", card="6H", meld=9), "no_such_meld", IllegalCommand),
    (Play("B", "draw"), "not_your_turn", IllegalCommand),
    (Play("A", "add", card="9D", meld=1), "card_not_in_hand", IllegalCommand),
]


@pytest.mark.parametrize(("cmd", "code", "cause"), CLASSIC_CASES,
                         ids=[f"{c.do}-{code}" for c, code, _ in CLASSIC_CASES])
def test_classic_refusal_by_cause(cmd: Play, code: str, cause: type[Refused]) -> None:
    m = classic_position(["3H 4H 5H"], A="6H 2S", B="8C", stock="9C 9S", rules="classic",
                         unopened="")
    with pytest.raises(Refused) as e:
        m.apply(cmd, 0)
    assert type(e.value) is cause
    assert e.value.code == code


def test_every_code_has_a_cause_and_only_no_such_meld_has_two() -> None:
    every = set(MESSAGES) | set(CLASSIC_MESSAGES)
    assert every <= INVALID_CODES | ILLEGAL_CODES
    assert INVALID_CODES & ILLEGAL_CODES == {"no_such_meld"}


def test_a_code_of_the_other_cause_is_an_engine_fault() -> None:
    with pytest.raises(EngineFault):
        IllegalCommand("bad_card")
    with pytest.raises(EngineFault):
        InvalidCommand("held")
    e = InvalidCommand("bad_card")
    assert isinstance(e, Refused) and e.message == MESSAGES["bad_card"]
    assert Refused("bad_field", "x").code == "bad_field"  # the server's own checks: any code


@pytest.mark.parametrize(("variant", "frame", "code"), [
    ("machiavelox", {"type": "command", "id": 1, "do": "free", "card": "JK", "meld": 1}, "unknown_command"),
    ("machiavelox", {"type": "command", "id": 1, "do": "move", "card": "7C", "meld": 1, "to": 2, "as": "7H"}, "bad_field"),
    ("italian", {"type": "command", "id": 1, "do": "stage", "card": "7C"}, "unknown_command"),
])
def test_the_servers_field_checks_are_malformed_commands(variant: str, frame: dict[str, object], code: str) -> None:
    """server/variant.py's refusals are of the malformed cause, as the engine's bad_card is."""
    from types import SimpleNamespace

    from server.protocol import CommandIn
    from server.variant import command_for

    with pytest.raises(InvalidCommand) as got:
        command_for(SimpleNamespace(variant=variant), "A", CommandIn.model_validate(frame))  # type: ignore[arg-type]
    assert got.value.code == code
