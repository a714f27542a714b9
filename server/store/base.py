"""The storage interface (STYLE 6): one :class:`Store`, a memory and a Redis implementation.

The server talks to storage only through :class:`Store`, whose methods are all coroutines, so
an implementation may do network I/O. Four things are kept:

* **Event logs.** One log per game, named by a ``log_id`` (the table code plus a random
  suffix, so that a code reused after a restart starts a new log). A single game (every agora
  game) is one hand, so its log is that hand's log. A log is a sequence of *batches*, each the
  events one engine call produced, numbered by the *version* the clients see (1, 2, 3, ...,
  strictly increasing; gaps are allowed). Events are JSON-able dicts (``engine.hand.Event``
  ``as_dict()`` with private fields, plus ``"hand"``): storage is server-side, and only
  ``engine.view`` decides what a seat sees. When a game ends its :class:`FinishedGame`
  record is kept beside the log: :meth:`Store.finished` lists them, newest first.
* **The ranking** (R22): points per player over every agora hand, with the name last used
  and the number of hands counted. :meth:`Store.add_hand_points` counts one hand once
  (idempotent on ``hand_id``); ranks are competition ranks (1 + the number of players with
  strictly more points), ties listed by player id, descending (the order of Redis
  ``ZREVRANGE``, which the memory store copies so that both list the same).
* **Each player's history:** their counted hands, newest first (:class:`HistoryEntry`).
* **The matchmaking queue:** FIFO; joining twice keeps the first place (the name is updated);
  :meth:`Store.queue_pop` takes the first ``n`` at once or nobody.
* **Table records:** a JSON-able dict per table code, for whatever the server wants to keep.

Errors: :class:`StoreConflict` (a version not after the log's head: two writers on one log, or
a log id reused) is the only error raised on purpose; a Redis that cannot be reached raises
``redis.exceptions.ConnectionError`` from the Redis store.

Times (``at``, ``finished_at``) are Unix seconds (wall clock), given by the caller.

Retention: the logs of finished games are kept (that is what survives a restart). A log that
never finishes (a table abandoned and forgotten) is dropped: in Redis ``unfinished_ttl``
seconds (7 days) after its first batch, renewed every 100 versions (the key's EXPIRE, cleared
by :meth:`Store.finish_game`), in memory when more than ``max_logs`` logs are kept (the oldest
first, finished or not: a memory store forgets anyway).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..rating import Rating

#: JSON-able event dicts of one engine call.
EventDicts = list[dict[str, Any]]

#: Hands kept per player in :meth:`Store.history` (older ones are dropped).
HISTORY_MAX = 1000

#: Seconds an unfinished log is kept in Redis after its last append.
UNFINISHED_TTL = 7 * 24 * 3600

#: Seconds a queued player's entry stays in the matchmaking queue without renewal (the process
#: holding their agora socket renews it, ``server.agora``).
QUEUE_ALIVE = 5.0

#: Seconds a player's live agora game is remembered when its hand is never counted (a table
#: abandoned or lost): after that they may join the queue again.
LIVE_TTL = 3 * 3600.0

#: Seconds a player taken out of the queue is marked as being seated (``"*"``) before their
#: table's code replaces the mark.
SEATING_TTL = 60.0

#: Logs the memory store keeps at most.
MAX_LOGS = 10000


class StoreError(Exception):
    """A storage failure the caller can name."""


class StoreConflict(StoreError):
    """An event batch whose version is not after the log's head."""


class Fenced(StoreError):
    """A write by a table's old owner: another process took the table over (its epoch moved
    on). Nothing was written; the writer must stop the table (``server.lease``)."""


@dataclass(frozen=True)
class TableRecord:
    """A durable table as the store keeps it (``server.store.owned``): ``meta`` (what a
    rebuild needs), the ownership ``epoch``, the last confirmed ``game_time`` (seconds), the
    journal as ``(version, entries)`` in version order, and the lease's ``owner`` (None: free).
    """

    code: str
    meta: dict[str, Any]
    epoch: int
    game_time: float
    entries: list[tuple[int, list[dict[str, Any]]]]
    owner: str | None


@dataclass(frozen=True)
class LoggedBatch:
    """One stored batch: its ``version`` and its ``events`` (JSON-able dicts, in order)."""

    version: int
    events: EventDicts


@dataclass(frozen=True)
class HandScore:
    """One player's outcome of a counted hand: ``points`` (may be negative, R20) and
    ``result``: ``won``, ``lost``, ``draw``, ``eliminated`` or ``left``."""

    player_id: str
    name: str
    points: int
    result: str


@dataclass(frozen=True)
class RankEntry:
    """A player in the ranking. ``rank`` is 1 + the number of players with more points."""

    rank: int
    player_id: str
    name: str
    points: int
    hands: int


@dataclass(frozen=True)
class HistoryEntry:
    """One of a player's counted hands: when (``at``, Unix seconds), the points it gave, the
    result (see :class:`HandScore`), the table code and everyone's names at that table."""

    hand_id: str
    at: float
    points: int
    result: str
    code: str
    players: list[str]
    #: The player's rating after this hand (None: a hand counted before ratings existed).
    mu: float | None = None
    sigma: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HistoryEntry:
        mu, sigma = d.get("mu"), d.get("sigma")
        return cls(hand_id=str(d["hand_id"]), at=float(d["at"]), points=int(d["points"]),
                   result=str(d["result"]), code=str(d["code"]),
                   players=[str(p) for p in d["players"]],
                   mu=None if mu is None else float(mu),
                   sigma=None if sigma is None else float(sigma))


@dataclass(frozen=True)
class QueueEntry:
    """A player waiting in the matchmaking queue, since ``since`` (Unix seconds, as given to
    :meth:`Store.queue_join`; 0 when not given)."""

    player_id: str
    name: str
    since: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class RatedEntry:
    """A player in the rated ranking (``server.rating``): ``rank`` is 1 + the number of
    players with a strictly higher conservative rating; ``points`` the total points of every
    counted agora hand (legacy points included), ``hands`` the hands counted."""

    rank: int
    player_id: str
    name: str
    rating: Rating
    points: int
    hands: int


@dataclass(frozen=True)
class AgoraState:
    """What the agora keeps of a player: the code of their live agora game (``"*"`` while
    being seated; None: none), the sorted player ids of their last group joined by ``,``, and
    the ``matched`` message of that live game (for every process holding one of their
    sockets to send once)."""

    live: str | None
    last: str | None
    matched: str | None = None


@dataclass(frozen=True)
class FinishedGame:
    """What is kept of a finished game beside its event log.

    ``players`` are seat names in seat order, ``player_ids`` the same players' ids; ``scores``
    the last hand's points by seat name; ``winner`` a seat name or None; ``end`` the last
    hand's end (``out``, ``draw``, ...); ``head`` the log's last version; ``finished_at`` Unix
    seconds; ``agora`` whether the points went to the ranking."""

    log_id: str
    code: str
    mode: str
    players: list[str]
    player_ids: list[str]
    scores: dict[str, int]
    winner: str | None
    end: str
    head: int
    finished_at: float
    agora: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FinishedGame:
        return cls(log_id=str(d["log_id"]), code=str(d["code"]), mode=str(d["mode"]),
                   players=list(d["players"]), player_ids=list(d["player_ids"]),
                   scores={str(k): int(v) for k, v in d["scores"].items()},
                   winner=d.get("winner"), end=str(d["end"]), head=int(d["head"]),
                   finished_at=float(d["finished_at"]), agora=bool(d.get("agora", False)),
                   extra=dict(d.get("extra") or {}))


def competition_ranks(scored: Sequence[tuple[str, float]], offset: int = 0,
                      first_rank: int | None = None) -> list[int]:
    """Ranks for a page of ``(member, score)`` pairs listed best first, the page starting at
    place ``offset`` (0: the top): equal scores share a rank, the next score's rank is its
    place. ``first_rank`` is the first member's rank when the page starts inside a tie
    (default ``offset + 1``)."""
    ranks: list[int] = []
    for i, (_, score) in enumerate(scored):
        if i == 0:
            ranks.append(offset + 1 if first_rank is None else first_rank)
        elif score == scored[i - 1][1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(offset + i + 1)
    return ranks


class Store(ABC):
    """Storage for event logs, the ranking, histories, the matchmaking queue and tables."""

    #: A short name for logs and metrics: ``memory`` or ``redis``.
    kind: str = "?"

    # ------------------------------------------------------------ event logs

    @abstractmethod
    async def append_batches(self, log_id: str, batches: Sequence[tuple[int, EventDicts]]) -> None:
        """Append ``(version, events)`` batches to the log, in order, as one write.

        Versions must rise strictly and start after the log's head; otherwise
        :class:`StoreConflict` is raised (batches before the bad one may have been stored).
        """

    async def append(self, log_id: str, version: int, events: EventDicts) -> None:
        """Append one batch (see :meth:`append_batches`)."""
        await self.append_batches(log_id, [(version, events)])

    @abstractmethod
    async def read_after(self, log_id: str, version: int = 0,
                         limit: int | None = None) -> list[LoggedBatch]:
        """The batches with a version greater than ``version``, oldest first (at most
        ``limit``; None: all). An unknown log reads as empty."""

    @abstractmethod
    async def log_head(self, log_id: str) -> int:
        """The newest version in the log; 0 for an empty or unknown log."""

    @abstractmethod
    async def finish_game(self, record: FinishedGame) -> None:
        """Keep ``record`` beside its log (``record.log_id``); again for the same log replaces."""

    @abstractmethod
    async def finished(self, limit: int = 50) -> list[FinishedGame]:
        """The newest ``limit`` finished games, newest first."""

    @abstractmethod
    async def finished_game(self, log_id: str) -> FinishedGame | None:
        """The record of one finished game, or None."""

    # ------------------------------------------------------------ ranking and history

    @abstractmethod
    async def add_hand_points(self, hand_id: str, scores: Sequence[HandScore], at: float,
                              code: str = "") -> bool:
        """Count one hand: add each player's points to the ranking, remember the name, count
        the hand, update the ratings (``server.rating``: places from the results, the
        library's update), put it first in each player's history with the rating after it,
        and clear the players' live agora game when it is ``code``. Atomic (in Redis a
        compare-and-set on the ratings read, tried again when another process rated one of
        these players meanwhile). Returns False, and changes nothing, when ``hand_id`` was
        counted before."""

    @abstractmethod
    async def top(self, n: int = 20, offset: int = 0) -> list[RankEntry]:
        """The ranking from place ``offset`` (0: the top), ``n`` players at most."""

    @abstractmethod
    async def rank_of(self, player_id: str) -> RankEntry | None:
        """One player's place, or None when none of their hands was counted."""

    @abstractmethod
    async def ranked_players(self) -> int:
        """How many players are in the ranking."""

    @abstractmethod
    async def history(self, player_id: str, limit: int = 50) -> list[HistoryEntry]:
        """A player's counted hands, newest first (empty for an unknown player)."""

    # ------------------------------------------------------------ ratings (server.rating)

    @abstractmethod
    async def rating_top(self, n: int = 20, offset: int = 0) -> list[RatedEntry]:
        """The rated ranking from place ``offset``: conservative rating descending, ties by
        player id descending (Redis ``ZREVRANGE``), competition ranks."""

    @abstractmethod
    async def rating_of(self, player_id: str) -> RatedEntry | None:
        """One player's place in the rated ranking, or None when never rated (a guest-era
        player keeps only their legacy points, :meth:`rank_of`)."""

    @abstractmethod
    async def rated_players(self) -> int:
        """How many players have a rating."""

    @abstractmethod
    async def ratings(self, player_ids: Sequence[str]) -> dict[str, Rating]:
        """The ratings of those of these players who have one."""

    # ------------------------------------------------------------ agora bookkeeping

    @abstractmethod
    async def queue_take(self, player_ids: Sequence[str]) -> list[QueueEntry] | None:
        """Take exactly these players out of the queue at once, in the order given, and mark
        each as being seated (live game ``"*"``); None, and nobody taken, when one of them is
        not (or no longer) queued. The mark lasts ``SEATING_TTL`` seconds."""

    @abstractmethod
    async def agora_seated(self, player_ids: Sequence[str], code: str | None,
                           matched: Mapping[str, str] | None = None) -> None:
        """These players were seated together at agora table ``code``: their live game, its
        ``matched`` message by player id, and their last group (``code`` None: the seating
        failed, the live marks are cleared)."""

    @abstractmethod
    async def agora_state(self, player_ids: Sequence[str]) -> dict[str, AgoraState]:
        """The live game and last group of each of these players."""

    # ------------------------------------------------------------ matchmaking queue

    @abstractmethod
    async def queue_join(self, player_id: str, name: str, alive: float = QUEUE_ALIVE,
                         since: float = 0.0) -> bool:
        """Put a player at the end of the queue. False when already queued (the place and
        ``since`` are kept, the name updated). The entry lives ``alive`` seconds unless renewed
        (:meth:`queue_touch`); a stale entry is dropped before any pop or listing. ``since``
        (Unix seconds) is when they began waiting (:attr:`QueueEntry.since`)."""

    async def queue_touch(self, player_ids: Sequence[str], alive: float = QUEUE_ALIVE) -> None:
        """Renew the liveness of these queued players (their sockets are held here)."""
        return None

    async def agora_post(self, player_id: str, text: str) -> None:
        """Leave a message for a player, taken by whichever process holds their socket."""
        raise NotImplementedError

    async def agora_take(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The messages left for these players, by player id, taken out."""
        raise NotImplementedError

    @abstractmethod
    async def queue_leave(self, player_id: str) -> bool:
        """Take a player out of the queue. False when not queued."""

    @abstractmethod
    async def queue_pop(self, n: int = 3) -> list[QueueEntry] | None:
        """Take the first ``n`` players out of the queue at once, first come first; None (and
        nobody taken) when fewer than ``n`` wait."""

    @abstractmethod
    async def queue_members(self) -> list[QueueEntry]:
        """Everyone waiting, first come first."""

    @abstractmethod
    async def queue_position(self, player_id: str) -> int | None:
        """A queued player's place (1: next), or None."""

    @abstractmethod
    async def queue_clear(self) -> None:
        """Empty the queue (tests and operators: no server start does, other processes share it)."""

    # ------------------------------------------------------------ table records

    @abstractmethod
    async def put_table(self, code: str, record: dict[str, Any]) -> None:
        """Keep a JSON-able record for a table code (replacing any)."""

    @abstractmethod
    async def get_table(self, code: str) -> dict[str, Any] | None:
        """The record kept for a table code, or None."""

    @abstractmethod
    async def delete_table(self, code: str) -> None:
        """Forget a table's record (no error when there is none)."""

    # ------------------------------------------------------------ durable tables (Redis)

    #: True when tables live in the store and survive their process (``server.store.owned``).
    durable: bool = False

    async def table_create(self, code: str, owner: str, meta: dict[str, Any],
                           ttl: float) -> int:
        """Record a new table owned by ``owner`` for ``ttl`` seconds: its epoch (1), or 0
        when the code is taken."""
        raise NotImplementedError

    async def table_acquire(self, code: str, owner: str, ttl: float) -> int | None:
        """Take a table's lease when it is free: the new epoch; 0 when another process holds
        it; None when there is no such table."""
        raise NotImplementedError

    async def table_renew(self, owner: str, ttl: float,
                          leases: Sequence[tuple[str, int, float]]) -> list[int]:
        """Renew ``(code, epoch, game time)`` leases at once: per lease 0 (lost), 1 (renewed)
        or 2 (renewed, and another process asks for the table)."""
        raise NotImplementedError

    async def table_append(self, code: str, epoch: int, log_id: str,
                           meta: dict[str, Any] | None, game_time: float,
                           batches: Sequence[tuple[int, EventDicts, list[dict[str, Any]]]]
                           ) -> None:
        """Append ``(version, events, journal entries)`` batches (and replace the meta when
        given) as one fenced write; raises :class:`Fenced` when ``epoch`` is not the table's."""
        raise NotImplementedError

    async def table_load(self, code: str) -> TableRecord | None:
        """A durable table's record and journal, or None."""
        raise NotImplementedError

    async def table_release(self, code: str, owner: str, epoch: int) -> None:
        """Give the lease up (a handover or a shutdown), when still ours."""
        raise NotImplementedError

    async def table_want(self, code: str, owner: str) -> None:
        """Ask the table's owner to hand it over (its next renewal sees it)."""
        raise NotImplementedError

    async def table_end(self, code: str) -> None:
        """The table's game is over: off the sweeper's list."""
        raise NotImplementedError

    async def tables_live(self) -> list[tuple[str, str | None]]:
        """``(code, lease owner or None)`` of every durable table not over."""
        raise NotImplementedError

    # ------------------------------------------------------------ lifecycle

    async def ping(self) -> bool:
        """True when the store answers."""
        return True

    async def close(self) -> None:  # noqa: B027 (a no-op unless the store holds connections)
        """Release connections. The store is not used afterwards."""
