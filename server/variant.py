"""The one place where a table's variant matters to the server (issue 16): which view feed
sends its frames, which commands it takes and how they become engine commands, and what its
summary says of its rules. The game itself is chosen by the deal (``server.journal.DealSpec``).

* Machiavelox: :class:`server.frames.ViewFeed` (views as changes), the real-time commands
  (``engine.commands.SPECS``).
* Classic presets: :class:`ClassicFeed`, whose ``snapshot.game`` and every ``update.game``
  are the seat's whole classic view (``engine.classic.view.classic_view``) and whose events
  go through ``classic_event_view`` with their ``hand``; the classic commands
  (``engine.commands.CLASSIC_SPECS``: ``as`` for a joker's face in ``move``, ``from`` for the
  meld a freeing card leaves, ``meld: "loose"`` for a loose joker).

A command of the other variant is refused ``unknown_command``, a field the command does not
take ``bad_field`` (:class:`~engine.errors.InvalidCommand`, answered as ``refused``; nothing changes).
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from engine.classic.game import ClassicGame
from engine.classic.model import Play
from engine.classic.view import classic_event_view, classic_view, options_of
from engine.commands import CLASSIC_OPTIONAL, CLASSIC_SPECS, SPECS
from engine.errors import InvalidCommand
from engine.hand import Command

from .frames import ADDRESSED_KINDS, Batch, ViewFeed, dumps
from .journal import AnyCommand, DealOptions, is_classic
from .protocol import CommandIn, SnapshotOut, TableSummary, dump

#: What a client may send at a classic table (``engine.commands.CLASSIC_SPECS``).
CLASSIC_CLIENT = frozenset(n for n, s in CLASSIC_SPECS.items() if s.by_client)
#: What a client may send at a Machiavelox table.
MACHIAVELOX_CLIENT = frozenset(n for n, s in SPECS.items() if s.by_client)


class Feed(Protocol):
    """A table's frames (``server.frames.ViewFeed``, :class:`ClassicFeed`)."""

    def snapshot(self, version: int, game: Any, seat: str | None,
                 table: TableSummary) -> str: ...

    def updates(self, version: int, batch: Batch, game: Any, seats: set[str | None]
                ) -> dict[str | None, str]: ...


class ClassicFeed:
    """Frames of a classic table: whole views (a classic view is small: a dozen melds, one
    hand), events filtered per seat. Pure, like :class:`~server.frames.ViewFeed`."""

    def snapshot(self, version: int, game: ClassicGame | None, seat: str | None,
                 table: TableSummary) -> str:
        view = None if game is None else classic_view(game.match, _seat_in(game, seat))
        return dump(SnapshotOut(version=version, game=view, table=table))

    def updates(self, version: int, batch: Batch, game: ClassicGame, seats: set[str | None]
                ) -> dict[str | None, str]:
        out: dict[str | None, str] = {}
        for seat in seats:
            events = []
            for hand_no, event in batch:
                if event.kind in ADDRESSED_KINDS and event.player != seat:
                    continue
                d = classic_event_view(event, seat)
                d.setdefault("hand", hand_no)
                events.append(d)
            view = classic_view(game.match, _seat_in(game, seat))
            out[seat] = (f'{{"type":"update","version":{version},"events":{dumps(events)},'
                         f'"game":{dumps(view)}}}')
        return out


def _seat_in(game: ClassicGame, seat: str | None) -> str | None:
    return seat if seat in game.seats else None


def feed_for(options: DealOptions) -> Feed:
    """The view feed of a table dealing ``options``."""
    return ClassicFeed() if is_classic(options.variant) else cast(Feed, ViewFeed())


def rules_summary(options: DealOptions) -> dict[str, Any]:
    """The summary's ``rules``: the C1 options by name plus ``preset`` (``{}`` for
    Machiavelox)."""
    if not is_classic(options.variant):
        return {}
    return {**options_of(options.rules), "preset": options.variant}


def _refuse_field(name: str, do: str) -> InvalidCommand:
    return InvalidCommand("bad_field", f"The field \"{name}\" does not go with '{do}'.")


def command_for(options: DealOptions, seat: str, msg: CommandIn) -> AnyCommand:
    """The engine command of ``msg`` from ``seat`` at a table dealing ``options``. Raises
    :class:`~engine.errors.InvalidCommand` (a malformed command): ``unknown_command`` for a
    command of the other variant, ``bad_field``
    for ``as``/``from``/``"loose"`` where the command takes none."""
    cards = tuple(msg.cards) if msg.cards is not None else None
    if is_classic(options.variant):
        if msg.do not in CLASSIC_CLIENT:
            raise InvalidCommand("unknown_command", f"'{msg.do}' is a Machiavelox command: a classic "
                                 "table plays lay, add, move, free, swap, reset, end, draw, pass, "
                                 "leave, ready and leave_game.")
        optional = CLASSIC_OPTIONAL.get(msg.do, ())
        if msg.as_ is not None and "as" not in optional:
            raise _refuse_field("as", msg.do)
        if msg.from_ is not None and "from" not in optional:
            raise _refuse_field("from", msg.do)
        if msg.meld == "loose" and msg.do != "move":
            raise InvalidCommand("bad_field", "Only move takes a loose joker (meld \"loose\").")
        return Play(seat, msg.do, card=msg.card, cards=cards, meld=msg.meld, to=msg.to,
                    as_=msg.as_, source=msg.from_)
    if msg.do not in MACHIAVELOX_CLIENT:
        raise InvalidCommand("unknown_command", f"'{msg.do}' is a command of classic tables: this "
                             "table plays Machiavelox.")
    for name, value in (("as", msg.as_), ("from", msg.from_)):
        if value is not None:
            raise InvalidCommand("bad_field", f"The field \"{name}\" is for classic tables only.")
    if isinstance(msg.meld, str):
        raise InvalidCommand("bad_field", "A loose joker (meld \"loose\") is for classic tables only.")
    return Command(seat, msg.do, card=msg.card, cards=cards, meld=msg.meld, to=msg.to)
