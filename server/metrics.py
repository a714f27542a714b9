"""Prometheus metrics (``GET /metrics``), with prometheus-client, one registry per app.

=====================================  =========  ==============================================
metric                                 type       what
=====================================  =========  ==============================================
``machiavelox_live_hands``             gauge      tables whose hand is being played (phase hand)
``machiavelox_tables``                 gauge      tables in memory, any phase
``machiavelox_connections``            gauge      open websockets (tables and agora), ``kind``
``machiavelox_agora_waiting``          gauge      players in the matchmaking queue (this server)
``machiavelox_commands_total``         counter    commands handled, by ``outcome`` (ack,
                                                  refused, internal_error): ``rate()`` of it is
                                                  commands per second
``machiavelox_command_seconds``        histogram  command-to-broadcast latency: from the moment
                                                  the socket's message was read to the moment
                                                  the table has put the resulting update (and
                                                  the ack) in every connection's queue, store
                                                  append included
``machiavelox_chain_undos_total``      counter    ``chain_undo`` events (§5.5: a play that fell
                                                  because a play it needed was undone)
``machiavelox_games_finished_total``   counter    games ended, by ``kind`` (agora, friendly)
``machiavelox_store_errors_total``     counter    store calls that failed, by ``op``
``machiavelox_cut_off_total``          counter    sockets closed for abuse, by ``reason``
                                                  (too_large, flood)
``machiavelox_store_up``               gauge      1 while the store answers, 0 while it does not
``machiavelox_unsaved_batches``        gauge      event batches played but not yet in the store
                                                  (a store outage: retried with backoff)
``machiavelox_refused_total``          counter    requests, sockets and commands refused by a
                                                  limit, by ``limit`` (server.limits)
``machiavelox_step_failures_total``    counter    inbox items a table failed on (a bug), by ``item``
=====================================  =========  ==============================================

Each app has its own :class:`~prometheus_client.CollectorRegistry`, so several apps in one
process (the tests) never share counts.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

#: Latency buckets, seconds: 0.25 ms to 2.5 s.
LATENCY_BUCKETS = (0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                   1.0, 2.5)

CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    """The server's metrics. ``live_hands`` and ``tables`` are read when scraped (see
    :meth:`watch_tables`); the rest are updated where things happen."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.live_hands = Gauge("machiavelox_live_hands", "Tables whose hand is being played",
                                registry=r)
        self.tables = Gauge("machiavelox_tables", "Tables in memory", registry=r)
        self.connections = Gauge("machiavelox_connections", "Open websockets", ["kind"],
                                 registry=r)
        self.agora_waiting = Gauge("machiavelox_agora_waiting",
                                   "Players in the agora's matchmaking queue", registry=r)
        self.commands = Counter("machiavelox_commands", "Commands handled", ["outcome"],
                                registry=r)
        self.latency = Histogram("machiavelox_command_seconds",
                                 "Command-to-broadcast latency in seconds",
                                 buckets=LATENCY_BUCKETS, registry=r)
        self.chain_undos = Counter("machiavelox_chain_undos", "chain_undo events", registry=r)
        self.games_finished = Counter("machiavelox_games_finished", "Games ended", ["kind"],
                                      registry=r)
        self.store_errors = Counter("machiavelox_store_errors", "Store calls that failed",
                                    ["op"], registry=r)
        self.cut_off = Counter("machiavelox_cut_off", "Sockets closed for abuse", ["reason"],
                               registry=r)
        self.store_up = Gauge("machiavelox_store_up", "1 while the store answers", registry=r)
        self.store_up.set(1)
        self.unsaved = Gauge("machiavelox_unsaved_batches",
                             "Event batches not yet in the store", registry=r)
        self.limited = Counter("machiavelox_refused", "Refused by a limit", ["limit"],
                               registry=r)
        self.step_failures = Counter("machiavelox_step_failures",
                                     "Inbox items a table failed on", ["item"], registry=r)
        #: The commands counter by outcome, resolved once (``labels()`` costs µs per call).
        self.command_outcomes = {o: self.commands.labels(o)
                                 for o in ("ack", "refused", "internal_error")}
        for kind in ("table", "agora"):
            self.connections.labels(kind)
        for reason in ("too_large", "flood"):
            self.cut_off.labels(reason)

    def watch_tables(self, live_hands: Callable[[], int], tables: Callable[[], int],
                     unsaved: Callable[[], int] | None = None) -> None:
        """Read the table gauges from these functions at each scrape."""
        self.live_hands.set_function(live_hands)
        self.tables.set_function(tables)
        if unsaved is not None:
            self.unsaved.set_function(unsaved)

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
