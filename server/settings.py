"""Server settings: one pydantic ``BaseSettings``, read from ``MACHIAVELOX_*`` environment variables.

Every field can also be passed to :class:`Settings` directly (tests do). Durations are seconds.

=====================  ==========================  ===============================================
variable               default                     meaning
=====================  ==========================  ===============================================
MACHIAVELOX_HOST       127.0.0.1                   address to listen on (Docker sets 0.0.0.0)
MACHIAVELOX_PORT       8000                        port to listen on
MACHIAVELOX_SECRET     random per start            key that signs session tokens
MACHIAVELOX_REDIS_URL  unset: in memory            Redis (``redis://host:port/db``) for event logs,
                                                   the agora queue and the ranking (server.store)
MACHIAVELOX_TEST_DEALS false                       allow seeds, stacked positions and timers in
                                                   ``POST /api/tables`` (tests only)
MACHIAVELOX_PLAY ...   the rule set's durations    clock overrides in seconds: PLAY, HOLD,
                                                   INACTIVITY, FREEZE, ABSENCE, TIEBREAK, PAUSE
=====================  ==========================  ===============================================

The rest (queue sizes, log length, the ``server/web/`` folder, ...) are documented on their fields.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Literal

from pydantic import Field, PositiveFloat, PositiveInt, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engine.rules import MACHIAVELOX, RuleSet

#: The rule-set durations the settings may override (R23), in seconds.
TIMER_NAMES = ("play", "hold", "inactivity", "freeze", "absence", "tiebreak", "pause")

DEFAULT_WEB_DIR = Path(__file__).resolve().parent / "web"


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
    table_idle_ttl: PositiveFloat = Field(
        default=3600.0, description="seconds a waiting or finished table with nobody connected is kept")
    session_max_age: PositiveFloat = Field(default=30 * 24 * 3600.0,
                                          description="seconds a token stays valid")
    web_dir: Path = DEFAULT_WEB_DIR

    #: True when ``secret`` was not set and a random one was drawn at start.
    secret_generated: bool = Field(default=False, exclude=True)

    @field_validator("secret", "redis_url", mode="before")
    @classmethod
    def _empty_is_unset(cls, v: object) -> object:
        # docker compose passes `MACHIAVELOX_SECRET:` through as an empty string when unset.
        return None if v == "" else v

    @model_validator(mode="after")
    def _draw_secret(self) -> Settings:
        if self.secret is None:
            self.secret = secrets.token_urlsafe(32)
            self.secret_generated = True
        return self

    def timer_overrides(self) -> dict[str, float]:
        """The clock overrides that are set, by rule-set field name."""
        return {n: float(v) for n in TIMER_NAMES if (v := getattr(self, n)) is not None}

    def rules(self, base: RuleSet = MACHIAVELOX) -> RuleSet:
        """``base`` with this server's clock overrides."""
        overrides = self.timer_overrides()
        return base.with_timers(**overrides) if overrides else base
