"""What one seat receives: events and views filtered through ``engine.view`` only.

``engine.view`` decides what a seat may see of the game (its own hand, counts of the others',
never a stock order) and of each event (private fields only for the event's player). On top of
that the server *addresses* a few notices: a ``chain_undo`` event tells one player which cards
a failed play sent back to them, so it goes to that player only (§5.5).

Per batch a table builds the **shared** view (``engine.view.shared_game_view``: the
spectator's, with nothing of any seat) once, diffs it against the one it sent before
(``server.changes``: the same ``set`` and ``hand`` texts for every seat), and adds each seat's own part
(``mine``: its hand) and its events: :class:`ViewFeed`. An update's events leave out what
its view says (``t`` when it is the hand view's, ``hand`` when it is the view's ``hand_no``:
about 20 bytes an event; ``server.changes.full_events`` puts them back); a replay's are whole.
Snapshots carry the whole view. The
texts are put together here, each part serialised once (:func:`dumps`, orjson). Everything here is
pure: the table's task calls it and puts the texts into the connections' queues.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import orjson

from engine.game import Game
from engine.hand import Event
from engine.view import GameView, event_view, game_view, own_hand, seat_game_view, shared_game_view

from .changes import diff, replaces_hand
from .protocol import SnapshotOut, TableSummary, dump

#: A batch of events as the game drained them: ``(hand number or None, event)``.
Batch = list[tuple[int | None, Event]]

#: Notices delivered only to the player they name.
ADDRESSED_KINDS = frozenset({"chain_undo"})

def dumps(obj: Any) -> str:
    """Compact JSON text (UTF-8 characters as they are, like ``protocol.dump``), by orjson:
    about 15 times as fast as the standard library's encoder on these small objects (a
    hand's changes: 1.1 µs against 19 µs on the project machine), and each batch writes
    several. Raises ``orjson.JSONEncodeError`` on what JSON cannot carry (a lone surrogate:
    names and cards are printable, ``server.protocol``)."""
    return orjson.dumps(obj).decode()


def events_for(batches: Iterable[Batch], seat: str | None) -> list[dict[str, Any]]:
    """The events of ``batches`` that ``seat`` may see, each with its ``hand`` number."""
    out: list[dict[str, Any]] = []
    for batch in batches:
        for hand_no, event in batch:
            if event.kind in ADDRESSED_KINDS and event.player != seat:
                continue
            d = event_view(event, seat)
            d.setdefault("hand", hand_no)  # hand_dealt names the hand it deals itself
            out.append(d)
    return out


def _compact(d: dict[str, Any], view: GameView | None) -> dict[str, Any]:
    """Event ``d`` without the fields the update's view already says
    (``server.changes.full_events`` puts them back): ``t`` when it is the hand view's ``t``
    (the batch's time), ``hand`` when it is the view's ``hand_no``."""
    if view is None:
        return d
    hv = view["hand"]
    if hv is not None and d["t"] == hv["t"]:
        del d["t"]
    if d["hand"] == view["hand_no"]:
        del d["hand"]
    return d


class _EventTexts:
    """The JSON text of each event of some batches, public once and private for its player.
    ``view``: the shared view the update gives (events are then sent compact, see
    :func:`_compact`); None for a replay, whose events are whole (no view comes with it)."""

    def __init__(self, batches: Iterable[Batch], view: GameView | None = None) -> None:
        self.items: list[tuple[Event, str, str | None]] = []
        for batch in batches:
            for hand_no, event in batch:
                public = event_view(event, None)
                public.setdefault("hand", hand_no)
                private = None
                if event.private and event.player is not None:
                    d = event_view(event, event.player)
                    d.setdefault("hand", hand_no)
                    private = dumps(_compact(d, view))
                self.items.append((event, dumps(_compact(public, view)), private))

    def text(self, seat: str | None) -> str:
        parts = []
        for event, public, private in self.items:
            if event.kind in ADDRESSED_KINDS and event.player != seat:
                continue
            parts.append(private if private is not None and seat == event.player else public)
        return "[" + ",".join(parts) + "]"


def view_for(game: Game | None, seat: str | None) -> dict[str, Any] | None:
    """The game as ``seat`` may see it (``engine.view.GameView``), or None before the deal."""
    return None if game is None else cast(dict[str, Any], game_view(game, seat))


def replay_text(version: int, batches: list[Batch], seat: str | None) -> str:
    """The ``update`` with ``"replay": true``: the missed events for ``seat``, no view (the
    snapshot that follows carries it)."""
    return (f'{{"type":"update","version":{version},"events":{_EventTexts(batches).text(seat)},'
            f'"replay":true}}')


class ViewFeed:
    """One table's views as it last sent them: the shared view, and each seat's own hand.

    :meth:`updates` makes the ``update`` texts of a batch, :meth:`snapshot` a snapshot; both
    keep what they sent, so that the next update carries only changes (``server.changes``).
    """

    def __init__(self) -> None:
        #: The shared view at the last version sent (None: send whole views next).
        self.shared: GameView | None = None
        #: Per seat, its own hand as last sent (absent: send it whole next).
        self.own: dict[str, list[str] | None] = {}

    def snapshot(self, version: int, game: Game | None, seat: str | None,
                 table: TableSummary) -> str:
        """A ``snapshot`` frame for ``seat``: the whole view, now."""
        view: dict[str, Any] | None = None
        if game is not None:
            shared = shared_game_view(game)
            # A fresh view differs from the last batch's in its clocks (t, game_t) only, and
            # every update sets both: the others' next changes hold against it too.
            self.shared = shared
            if seat is not None:
                self.own[seat] = own_hand(game.hand, seat) if game.hand is not None else None
            view = cast(dict[str, Any], seat_game_view(shared, game, seat))
        return dump(SnapshotOut(version=version, game=view, table=table))

    def updates(self, version: int, batch: Batch, game: Game, seats: set[str | None]
                ) -> dict[str | None, str]:
        """The ``update`` text of this batch for each of ``seats`` (those with a connection)."""
        if not seats:
            self.shared = None  # nobody has this version: whoever comes gets a snapshot
            self.own.clear()
            return {}
        new = shared_game_view(game)
        events = _EventTexts([batch], new)
        old = self.shared
        hand = game.hand
        texts: dict[str | None, str] = {}
        if old is None:
            for seat in seats:
                full = dumps(seat_game_view(new, game, seat))
                texts[seat] = (f'{{"type":"update","version":{version},'
                               f'"events":{events.text(seat)},"game":{full}}}')
                if seat is not None:
                    self.own[seat] = own_hand(hand, seat) if hand is not None else None
        else:
            changes = diff(cast(dict[str, Any], old), cast(dict[str, Any], new),
                           new_hand=old["hand_no"] != new["hand_no"])
            whole = replaces_hand(changes)
            parts = [f'{{"type":"update","version":{version},"set":{dumps(changes["set"])}']
            if "hand" in changes:
                parts.append(f',"hand":{dumps(changes["hand"])}')
            head = "".join(parts) + ',"events":'
            for seat in seats:
                mine = ""
                if seat is not None:
                    own = own_hand(hand, seat) if hand is not None else None
                    if new["hand"] is not None:
                        if whole or seat not in self.own:
                            mine = dumps({"you": seat, "hand": own})
                        elif self.own[seat] != own:
                            mine = dumps({"hand": own})
                    self.own[seat] = own
                texts[seat] = (head + events.text(seat)
                               + (f',"mine":{mine}}}' if mine else "}"))
        for seat in [s for s in self.own if s not in seats]:
            del self.own[seat]  # not sent this version: whole at its next snapshot
        self.shared = new
        return texts
