"""The command schema (R6, §13): every command and the fields it needs, defined once.

The engine dispatches on it, the scenario runner and the server's protocol validate with it,
and the docs' table is checked against it. Field names are the conformance format's:

* ``card``: one card in R1 notation (``10H``);
* ``cards``: a list of cards (``lay``);
* ``meld``: a meld id, where a card goes (``add``, ``place``) or where it is (``take``,
  ``move``);
* ``to``: a meld id or ``"new"`` (``drop``, ``move``).

Adding a command: one entry here, one handler (``_cmd_<name>`` on the flow), its docs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommandSpec:
    """One command: its name, the fields it needs, who may send it, and the rule it follows.

    ``by_client``: a client may send it over the protocol (connection events are the
    server's own); ``game``: a command of the game around the hands (§13, R21)."""

    name: str
    fields: tuple[str, ...]
    rule: str
    by_client: bool = True
    game: bool = False


FIELDS: dict[str, str] = {
    "card": "a card, like 10H or QS",
    "cards": "a list of cards, like [\"7C\", \"8C\", \"9C\"]",
    "meld": "a meld id (an integer)",
    "to": "a meld id or \"new\"",
    # Classic only (C8, C11): a joker's face, and the meld a freeing card leaves.
    "as": "a face for a joker, like 7H (optional)",
    "from": "a meld id the card leaves (optional; default the hand)",
}

SPECS: dict[str, CommandSpec] = {s.name: s for s in (
    CommandSpec("draw", (), "§4, R6"),
    CommandSpec("stage", ("card",), "§5.2, R6"),
    CommandSpec("unstage", ("card",), "§5.2, R6"),
    CommandSpec("lay", ("cards",), "§5.2, R6"),
    CommandSpec("add", ("card", "meld"), "§5.1, R6"),
    CommandSpec("take", ("card", "meld"), "§6, R6, R12"),
    CommandSpec("drop", ("to",), "§6, R6, R12"),
    CommandSpec("move", ("card", "meld", "to"), "§5.2, R6"),
    CommandSpec("place", ("card", "meld"), "§5.2, R6"),
    CommandSpec("end", (), "R7"),
    CommandSpec("cancel", (), "R9"),
    CommandSpec("stop", (), "§9, R16"),
    CommandSpec("give_up", (), "§9, R16"),
    CommandSpec("leave", (), "§11, R18"),
    CommandSpec("disconnect", (), "§11, R18", by_client=False),
    CommandSpec("reconnect", (), "§11, R18", by_client=False),
    CommandSpec("ready", (), "§13, R21", game=True),
    CommandSpec("leave_game", (), "§13, R21", game=True),
)}

#: The commands of one hand (what :meth:`engine.hand.Hand.apply` takes), in schema order.
COMMANDS: tuple[str, ...] = tuple(n for n, s in SPECS.items() if not s.game)
#: What a client may send over the protocol (hand and game commands).
CLIENT_COMMANDS: tuple[str, ...] = tuple(n for n, s in SPECS.items() if s.by_client)


def needs(name: str) -> tuple[str, ...]:
    """The fields command ``name`` needs (``()`` for an unknown one)."""
    spec = SPECS.get(name)
    return spec.fields if spec else ()


#: The classic, turn-based flow's commands (C13–C20, C31; ``engine.classic``), in the same
#: shape. ``meld`` may also be ``"loose"`` in ``move`` (a loose joker, C11); ``as`` and
#: ``from`` are optional fields, so they are not in ``fields``; ``deal`` starts the next hand
#: (the scenario's ``{"deal": true}``); ``ready``, ``leave_game`` and ``deal`` are the match's.
CLASSIC_SPECS: dict[str, CommandSpec] = {s.name: s for s in (
    CommandSpec("lay", ("cards",), "C13"),
    CommandSpec("add", ("card", "meld"), "C13"),
    CommandSpec("move", ("card", "meld", "to"), "C10, C13"),
    CommandSpec("free", ("card", "meld"), "C11"),
    CommandSpec("swap", ("card", "meld"), "C12"),
    CommandSpec("reset", (), "C18"),
    CommandSpec("end", (), "C16"),
    CommandSpec("draw", (), "C14"),
    CommandSpec("pass", (), "C15"),
    CommandSpec("leave", (), "C31"),
    CommandSpec("disconnect", (), "C31", by_client=False),
    CommandSpec("reconnect", (), "C31", by_client=False),
    CommandSpec("ready", (), "C31", game=True),
    CommandSpec("leave_game", (), "C31", game=True),
    CommandSpec("deal", (), "C21", by_client=False, game=True),
)}
#: Optional fields a classic command may carry, by command.
CLASSIC_OPTIONAL: dict[str, tuple[str, ...]] = {"move": ("as",), "free": ("from",)}
