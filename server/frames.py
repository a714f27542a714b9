"""What one seat receives: events and views filtered through ``engine.view`` only.

``engine.view`` decides what a seat may see of the game (its own hand, counts of the others',
never a stock order) and of each event (private fields only for the event's player). On top of
that the server *addresses* a few notices: a ``chain_undo`` event tells one player which cards
a failed play sent back to them, so it goes to that player only (§5.5). Everything here is
pure: the table's task calls it and puts the resulting text into the connections' queues.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from engine.game import Game
from engine.hand import Event
from engine.view import event_view, game_view

from .protocol import SnapshotOut, TableSummary, UpdateOut, dump

#: A batch of events as the game drained them: ``(hand number or None, event)``.
Batch = list[tuple[int | None, Event]]

#: Notices delivered only to the player they name.
ADDRESSED_KINDS = frozenset({"chain_undo"})


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


def view_for(game: Game | None, seat: str | None) -> dict[str, Any] | None:
    """The game as ``seat`` may see it (``engine.view.GameView``), or None before the deal."""
    return None if game is None else cast(dict[str, Any], game_view(game, seat))


def update_text(version: int, batches: list[Batch], game: Game | None, seat: str | None,
                *, replay: bool = False) -> str:
    """An ``update`` frame for ``seat``."""
    return dump(UpdateOut(version=version, events=events_for(batches, seat),
                          game=view_for(game, seat), replay=replay))


def snapshot_text(version: int, game: Game | None, seat: str | None, table: TableSummary) -> str:
    """A ``snapshot`` frame for ``seat``."""
    return dump(SnapshotOut(version=version, game=view_for(game, seat), table=table))
