"""Refusals: every refused command carries a stable code and a sentence (R6).

A refused command is refused for one of two causes, as python-chess tells an invalid move from
an illegal one (issue 26): :class:`InvalidCommand`, the command is malformed (no such command,
a card that is no card, a field of the wrong kind, a player not at the table), and
:class:`IllegalCommand`, the command is well formed but the rules say no. Both are
:class:`Refused`, which callers catch for either; both change nothing, and a client sees the
same ``refused`` frame for both (docs/protocol.md): only the code tells them apart.

Error tree (the codes by where the refusal comes from)::

    Refused                      a refused command; nothing changed
    ├── InvalidCommand           malformed: bad_card, bad_command, unknown_player,
    │                            no_such_meld (a meld field that is no meld id);
    │                            the server's bad_field, unknown_command
    └── IllegalCommand           the rules say no: every other code below
    ├── by who sends it          unknown_player, out_of_hand, disconnected, connected,
    │                            not_in_tiebreak
    ├── by the phase             hand_over, frozen, tiebreak, not_stop_caller,
    │                            stop_used, no_stop_now
    ├── by the play              no_open_play, not_declared, staging_not_empty,
    │                            too_few_cards, invalid_meld
    ├── by the cards             bad_card, card_not_in_hand, card_not_staged,
    │                            card_not_in_meld, no_such_meld, stock_empty,
    │                            place_needs_meld
    ├── by holds (§6, R12, R13)  held, reserved, already_holding, not_holding,
    │                            same_meld
    ├── by the game (R21)        game_over, not_in_pause, not_in_hand
    ├── by the input             bad_command
    └── classic (C29, C31)       :data:`CLASSIC_MESSAGES`: not_your_turn, turn_changed,
                                 stock_not_empty, not_opened, not_joker_place,
                                 swap_not_allowed, no_loose_joker, loose_joker,
                                 no_card_from_hand, opening_minimum, first_turn_out,
                                 hand_not_over, already_disconnected, not_disconnected,
                                 not_in_game (besides shared codes such as hand_over)

The code list with sentences lives in :data:`MESSAGES` (and the classic flow's own codes in
:data:`CLASSIC_MESSAGES`) and in ``docs/errors.md``.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "unknown_player": "There is no such player at this table.",
    "out_of_hand": "You are out of this hand: you can only watch now.",
    "disconnected": "You are disconnected: reconnect first.",
    "connected": "You are already connected.",
    "not_in_tiebreak": "Only the tied players play the tie-break.",
    "hand_over": "This hand is over.",
    "frozen": "The game is frozen by a Stop!: wait for it to end.",
    "tiebreak": "There is no Stop! during a tie-break.",
    "not_stop_caller": "Only the player who called Stop! can give up, during their freeze.",
    "stop_used": "You have already called Stop! in this hand.",
    "no_stop_now": "Stop! cannot be called now.",
    "no_open_play": "You have no open play.",
    "not_declared": "Declare first: put cards in your staging area before touching the table.",
    "staging_not_empty": "Your staging area holds cards: finish or cancel that play first.",
    "too_few_cards": "A new meld needs at least 3 cards.",
    "invalid_meld": "Those cards do not form a valid run or set.",
    "bad_card": "That is not a card: write rank then suit, like 10H or QS.",
    "card_not_in_hand": "That card is not in your hand.",
    "card_not_staged": "That card is not in your staging area.",
    "card_not_in_meld": "That card is not in that meld.",
    "no_such_meld": "There is no such meld on the table.",
    "stock_empty": "Your stock is empty: there is nothing left to draw.",
    "place_needs_meld": "A staged card goes into an existing meld; lay 3 or more to open a new one.",
    "held": "Another player is holding that card.",
    "reserved": "That card is reserved for another player after going back and forth (ping-pong).",
    "already_holding": "You are already holding a card: drop it first.",
    "not_holding": "You are not holding any card.",
    "same_meld": "The card is already in that meld.",
    "bad_command": "That command is not understood.",
    "game_over": "This game is over.",
    "not_in_pause": "That is for the pause between hands.",
    "not_in_hand": "No hand is being played: wait for the next one.",
}

#: The codes only the classic, turn-based flow gives (C29, C31; ``docs/errors.md`` "Classic").
#: Kept apart from :data:`MESSAGES`, whose codes every client translates today.
CLASSIC_MESSAGES: dict[str, str] = {
    "not_your_turn": "It is not your turn.",
    "turn_changed": "You have changed the table this turn: reset first.",
    "stock_not_empty": "The stock still has cards: draw instead of passing.",
    "not_opened": "Until you have opened you may only lay new melds and work on them.",
    "not_joker_place": "That card cannot take the place of a joker there.",
    "swap_not_allowed": "At this table a joker is never taken into the hand.",
    "no_loose_joker": "There is no loose joker.",
    "loose_joker": "A freed joker must go back down this turn.",
    "no_card_from_hand": "Rearranging alone is not a turn: put down a card from your hand.",
    "opening_minimum": "Your first melds do not reach the opening minimum.",
    "first_turn_out": "Nobody may go out on their first turn.",
    "hand_not_over": "The hand is still being played.",
    "already_disconnected": "That player is already disconnected.",
    "not_disconnected": "That player is connected.",
    "not_in_game": "That player has left the match.",
}


#: The codes of malformed commands (:class:`InvalidCommand`); ``bad_field`` and
#: ``unknown_command`` are the server's (``server/variant.py``, docs/errors.md).
INVALID_CODES: frozenset[str] = frozenset(
    {"bad_card", "bad_command", "unknown_player", "no_such_meld", "bad_field", "unknown_command"})

#: The codes of well-formed commands the rules refuse (:class:`IllegalCommand`).
#: ``no_such_meld`` is in both: a meld id that is no number is malformed, a number that names
#: no meld on the table (gone a moment ago, merged, emptied) is the table's state saying no.
ILLEGAL_CODES: frozenset[str] = frozenset(
    (set(MESSAGES) | set(CLASSIC_MESSAGES)) - (INVALID_CODES - {"no_such_meld"}))


class Refused(Exception):
    """A refused command; the hand is unchanged (R6). The base of both causes.

    ``code`` is a stable snake_case word from :data:`MESSAGES` (or :data:`CLASSIC_MESSAGES`);
    ``message`` a sentence a player understands, naming the input where it helps. The engine
    raises only the two subclasses, and so do the server's own field checks
    (``server/variant.py``: :class:`InvalidCommand`); ``Refused`` itself is what callers catch.
    """

    #: The codes this class may carry (``None``: any).
    codes: frozenset[str] | None = None

    def __init__(self, code: str, detail: str | None = None) -> None:
        if self.codes is not None and code not in self.codes:
            raise EngineFault(f"{type(self).__name__} with code {code!r}, not one of its cause")
        self.code = code
        if detail is None:
            detail = MESSAGES.get(code) or CLASSIC_MESSAGES.get(code, code)
        self.message = detail
        super().__init__(f"{code}: {self.message}")


class InvalidCommand(Refused):
    """A malformed command: an unknown command or player, a card that is no card, a field of
    the wrong kind. ``code`` is one of :data:`INVALID_CODES`; raising another is an
    :class:`EngineFault`."""

    codes = INVALID_CODES


class IllegalCommand(Refused):
    """A well-formed command the rules do not allow now (the phase, the play, the cards,
    holds, the game, the turn: R6, C29). ``code`` is one of :data:`ILLEGAL_CODES`; raising
    another is an :class:`EngineFault`."""

    codes = ILLEGAL_CODES


class EngineFault(Exception):
    """A broken invariant inside the engine: a bug, never a rule (no code for players).

    Raised instead of ``assert`` (which ``python -O`` strips) where the engine
    would otherwise go on from an inconsistent state; the property tests look for it.
    """
