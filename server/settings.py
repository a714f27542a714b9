"""Server settings: one pydantic ``BaseSettings``, read from ``MACHIAVELOX_*`` environment variables.

Every field can also be passed to :class:`Settings` directly (tests do). Durations are seconds.

=====================  ==========================  ===============================================
variable               default                     meaning
=====================  ==========================  ===============================================
MACHIAVELOX_HOST       127.0.0.1                   address to listen on (Docker sets 0.0.0.0)
MACHIAVELOX_PORT       8000                        port to listen on
MACHIAVELOX_SECRET     random per start            key that signs session tokens
MACHIAVELOX_REDIS_URL  unset: in memory            Redis (``redis://host:port/db``) for event logs,
                                                   the agora queue and the ranking (server.store);
                                                   tables then survive their process
MACHIAVELOX_REPLICAS   1                           server processes on that Redis (> 1: the
                                                   secret must be set)
MACHIAVELOX_TEST_DEALS false                       allow seeds, stacked positions and timers in
                                                   ``POST /api/tables`` (tests only)
MACHIAVELOX_PLAY ...   the rule set's durations    clock overrides in seconds: PLAY, HOLD,
                                                   INACTIVITY, FREEZE, ABSENCE, TIEBREAK, PAUSE
=====================  ==========================  ===============================================

The rest (queue sizes, log length, the ``web/`` folder, ...) are documented on their fields.
"""

from __future__ import annotations

import importlib.resources
import secrets
from pathlib import Path
from typing import Literal

from pydantic import (
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from engine.rules import MACHIAVELOX, RuleSet

#: The rule-set durations the settings may override (R23), in seconds.
TIMER_NAMES = ("play", "hold", "inactivity", "freeze", "absence", "tiebreak", "pause")

DEFAULT_WEB_DIR = Path(str(importlib.resources.files("machiavelox_web")))


class Settings(BaseSettings):
    """Everything the server reads from its environment."""

    model_config = SettingsConfigDict(env_prefix="MACHIAVELOX_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    secret: str | None = Field(default=None, min_length=1,
                               description="signs session tokens; random if unset")
    redis_url: str | None = None
    test_deals: bool = False
    log_level: str = "INFO"

    # Rule-set clock overrides (R23): None keeps the rule set's duration.
    play: PositiveFloat | None = None
    hold: PositiveFloat | None = None
    inactivity: PositiveFloat | None = None
    freeze: PositiveFloat | None = None
    absence: PositiveFloat | None = None
    tiebreak: PositiveFloat | None = None
    pause: PositiveFloat | None = None

    agora_no_show: PositiveFloat = Field(
        default=20.0, description="seconds after an agora deal within which a matched player must "
                                  "open the table; one who has not left the hand (-15, last place)")
    outbound_queue: PositiveInt = Field(
        default=256, description="frames waiting for one connection; a connection that fills it is dropped")
    inbox_size: PositiveInt = Field(default=1024, description="items waiting for one table's task")
    log_size: PositiveInt = Field(
        default=2000, description="event batches kept per table for replay on reconnection")
    replies_kept: PositiveInt = Field(default=512,
                                      description="command replies kept per seat for dedup")
    resume_wait: float = Field(
        default=0.5, ge=0, description="seconds to wait for a first `resume` message before the snapshot")
    message_rate: PositiveFloat = Field(
        default=50.0, description="messages per second one socket may send on average; above it "
                                  "the server reads that socket more slowly (backpressure)")
    message_burst: PositiveInt = Field(default=100, description="messages a socket may send at once")
    max_message_bytes: PositiveInt = Field(default=16384,
                                           description="larger client messages are refused")
    # Abuse (server.abuse): cut off with close code 1008.
    max_frame_bytes: PositiveInt = Field(
        default=65536, description="a larger message closes the socket (1008) unread")
    flood_seconds: PositiveFloat = Field(
        default=5.0, description="seconds a socket may keep sending over its rate limit "
                                 "(message_rate) without a break before it is closed (1008)")
    ws_deflate: bool = Field(
        default=False, description="offer permessage-deflate on websockets (machiavelox serve). "
                                   "Off: a compressed frame of a few bytes can inflate to the "
                                   "frame limit, and uvicorn inflates every frame a read holds "
                                   "at once, before the per-socket throttle: a fuzzer from 8 "
                                   "sockets stalled the event loop 300-500 ms at a time")
    ws_max_size: PositiveInt = Field(
        default=1 << 20, description="uvicorn's websocket frame limit (machiavelox serve); "
                                     "larger frames close with 1009 before the app sees them")
    # Garbage-collector pacing (server.gctune).
    gc_mode: Literal["manual", "paced", "cpython"] = Field(
        default="manual", description="manual: no automatic collection, a full one every "
                                      "gc_full_seconds; paced: freeze survivors; cpython: as is")
    gc_freeze_seconds: float = Field(
        default=5.0, ge=0, description="seconds between gc.freeze() of the surviving objects")
    gc_full_seconds: float = Field(
        default=600.0, ge=0, description="seconds between full collections (unfreeze first)")
    gc_manual_limit: PositiveInt = Field(
        default=1_000_000, description="manual: a full collection as soon as this many tracked "
                                       "objects were allocated (net) since the last one")
    # Storage (server.store) and logs.
    redis_prefix: str = Field(default="mvx:", description="prefix of every Redis key")
    log_format: Literal["text", "json"] = Field(
        default="text", description="`json`: one JSON object per log line (machiavelox serve)")
    max_tables: PositiveInt = 10000
    #: Friendly tables one player may have waiting for players at once (abuse: a single
    #: token filling the server with empty tables).
    max_waiting_tables_per_player: PositiveInt = 5
    # Limits (server.limits): sized for people; every refusal has a code and a sentence.
    sessions_per_ip_per_minute: PositiveInt = Field(
        default=30, description="new sessions (POST /api/session) one client address may get "
                                "in a minute (429 too_many_sessions); shared through Redis when "
                                "it is configured")
    tables_per_session: PositiveInt = Field(
        default=10, description="tables one session may have created that are waiting or being "
                                "played, dealt tables with bots included (429 too_many_tables_open)")
    tables_per_ip: PositiveInt = Field(
        default=40, description="the same, for all the sessions of one client address")
    max_bot_seats: PositiveInt = Field(
        default=60, description="bot seats the whole server runs at once (429 too_many_bots)")
    sockets_per_seat: PositiveInt = Field(
        default=2, description="sockets one seat may hold at once; a new one replaces the "
                               "oldest, which is closed with 4409 (replaced)")
    sockets_per_ip: PositiveInt = Field(
        default=64, description="open websockets (tables and agora, spectators included) from one "
                                "client address; more are closed with 4429 (too_many_sockets)")
    sockets_per_ip_per_minute: PositiveInt = Field(
        default=120, description="websockets one client address may open in a minute; past it the "
                                 "handshake is refused (HTTP 403) before anything is read")
    commands_per_second: PositiveInt = Field(
        default=20, description="commands one seat may send in a second, over all its sockets "
                                "and bots; more are refused (too_fast)")
    max_body_bytes: PositiveInt = Field(
        default=65536, description="HTTP request bodies larger than this are refused (413 too_large)")
    trusted_proxies: str = Field(
        default="", description="addresses or networks (comma-separated) of reverse proxies "
                                "whose X-Forwarded-For names the client (uvicorn's "
                                "forwarded_allow_ips); empty: the client is the peer. `*` is "
                                "refused: uvicorn would then take the header's first entry, "
                                "which the client wrote")
    allowed_origins: str = Field(
        default="", description="websocket Origins allowed besides the server's own (the Host "
                                "header's, or public_url's), comma-separated; a missing Origin "
                                "is allowed")
    public_url: str | None = Field(
        default=None, description="the address players open (https://example.org); when set, its "
                                  "origin is the one websockets must come from")
    lease_seconds: PositiveFloat = Field(
        default=3.0, description="seconds a process's lease on a durable table (Redis) lasts "
                                 "without renewal (renewed every third of it): a dead owner's "
                                 "tables are taken over this long after it died")
    replicas: PositiveInt = Field(
        default=1, description="server processes sharing this Redis (docker compose sets it); "
                               "above 1 with Redis, MACHIAVELOX_SECRET must be set")
    store_timeout: PositiveFloat = Field(
        default=1.0, description="seconds a store call may take before it counts as failed")
    shutdown_seconds: PositiveFloat = Field(
        default=2.0, description="seconds uvicorn waits for connections on SIGTERM before it "
                                 "closes them (the whole exit stays under 5 s)")
    table_idle_ttl: PositiveFloat = Field(
        default=3600.0, description="seconds a waiting or finished table with nobody connected is kept")
    session_max_age: PositiveFloat = Field(default=30 * 24 * 3600.0,
                                          description="seconds a token stays valid")
    # Accounts (server.accounts): rate limits shared through Redis when it is configured.
    logins_per_ip_per_minute: PositiveInt = Field(
        default=20, description="login attempts (POST /api/login) one client address may make "
                                "in a minute (429 too_many_logins)")
    login_failures_per_pair_per_hour: PositiveInt = Field(
        default=10, description="wrong passwords for one account name from one client address "
                                "in an hour; then that address is refused for that name "
                                "(429 too_many_logins)")
    login_failures_per_name_per_minute: PositiveInt = Field(
        default=10, description="wrong passwords for one account name from anywhere in a "
                                "minute; past it, addresses that failed for it are refused "
                                "and the others slowed down, never locked out")
    login_slowdown_seconds: NonNegativeFloat = Field(
        default=2.0, description="seconds a login waits before its password is checked while "
                                 "its name is past login_failures_per_name_per_minute")
    registrations_per_ip_per_hour: PositiveInt = Field(
        default=10, description="accounts (POST /api/accounts) one client address may register "
                                "in an hour (429 too_many_registrations)")
    hash_workers: PositiveInt = Field(
        default=2, description="threads that hash and check passwords (argon2id), off the event loop")
    hash_queue: PositiveInt = Field(
        default=16, description="password checks waiting for a hash worker; more are refused "
                                "(503 accounts_busy)")
    revocation_check_seconds: PositiveFloat = Field(
        default=1.0, description="seconds between two checks, on every process, that the "
                                 "sessions of its open websockets are still live (a revoked "
                                 "one is closed with 4402)")
    web_dir: Path = DEFAULT_WEB_DIR

    #: True when ``secret`` was not set and a random one was drawn at start.
    secret_generated: bool = Field(default=False, exclude=True)

    @field_validator("secret", "redis_url", "public_url", mode="before")
    @classmethod
    def _empty_is_unset(cls, v: object) -> object:
        # docker compose passes `MACHIAVELOX_SECRET:` through as an empty string when unset.
        return None if v == "" else v

    @field_validator("trusted_proxies")
    @classmethod
    def _no_wildcard(cls, v: str) -> str:
        if any(part.strip() == "*" for part in v.split(",")):
            raise ValueError("MACHIAVELOX_TRUSTED_PROXIES must name the proxies (addresses or "
                             "networks, comma-separated), not *: trusting every peer, uvicorn "
                             "takes the first X-Forwarded-For entry, which the client wrote")
        return v

    @model_validator(mode="after")
    def _draw_secret(self) -> Settings:
        if self.secret is None and self.redis_url and self.replicas > 1:
            raise ValueError("MACHIAVELOX_SECRET must be set when several server processes "
                             "(MACHIAVELOX_REPLICAS > 1) share a Redis: each would draw its "
                             "own and refuse the others' session tokens")
        if self.secret is None:
            self.secret = secrets.token_urlsafe(32)
            self.secret_generated = True
        return self

    def origins(self) -> list[str]:
        """``allowed_origins`` as a list (``https://a.example,https://b.example``)."""
        return [o.strip().rstrip("/").lower() for o in self.allowed_origins.split(",") if o.strip()]

    def timer_overrides(self) -> dict[str, float]:
        """The clock overrides that are set, by rule-set field name."""
        return {n: float(v) for n in TIMER_NAMES if (v := getattr(self, n)) is not None}

    def rules(self, base: RuleSet = MACHIAVELOX) -> RuleSet:
        """``base`` with this server's clock overrides."""
        overrides = self.timer_overrides()
        return base.with_timers(**overrides) if overrides else base
