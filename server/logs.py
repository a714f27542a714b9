"""Structured logging with the standard library: every table line names the table and the seat.

Lines read ``table=K7QX2M hand=1 seat=Ada command do=draw outcome=ack`` (``hand=-`` before the
deal); the same fields are on the record as attributes (``record.table``, ``record.hand``,
``record.seat``, ``record.event``, ``record.fields``), which :class:`JsonFormatter` writes as one
JSON object per line (``MACHIAVELOX_LOG_FORMAT=json``). Nothing hidden (a drawn card, a hand, a seed) is ever logged.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

LOGGER_NAME = "machiavelox"
log = logging.getLogger(LOGGER_NAME)


_TOKEN = re.compile(r"(token=)[^&\s\"']+")


class RedactTokens(logging.Filter):
    """Hide session tokens in logged URLs (``/ws/K7QX2M?token=...``): uvicorn logs each
    websocket's path with its query string, and a token there is a password."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(_TOKEN.sub(r"\1***", a) if isinstance(a, str) else a
                                for a in (record.args if isinstance(record.args, tuple)
                                          else (record.args,)))
        if isinstance(record.msg, str) and "token=" in record.msg:
            record.msg = _TOKEN.sub(r"\1***", record.msg)
        return True


def redact_uvicorn_logs() -> None:
    """Install :class:`RedactTokens` on uvicorn's loggers (idempotent)."""
    for name in ("uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``msg`` and, for table lines,
    ``table``, ``hand``, ``seat``, ``event`` and the line's own fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": round(record.created, 6), "level": record.levelname,
                               "logger": record.name, "msg": record.getMessage()}
        for key in ("table", "hand", "seat", "event"):
            if hasattr(record, key):
                out[key] = getattr(record, key)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update({k: v for k, v in fields.items() if k not in out})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """Send the ``machiavelox`` loggers to stderr at ``level`` (used by ``machiavelox serve``),
    as text lines or, with ``fmt="json"``, :class:`JsonFormatter` lines."""
    root = logging.getLogger(LOGGER_NAME)
    root.setLevel(level.upper())
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter() if fmt == "json" else
                             logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        root.addHandler(handler)
        root.propagate = False


class TableLog:
    """A logger bound to one table: ``TableLog("K7QX2M").info("joined", seat="Ada")``."""

    def __init__(self, code: str) -> None:
        self.code = code
        #: The hand being played (set by the table at each deal); None before the first.
        self.hand: int | None = None
        self._log = logging.getLogger(f"{LOGGER_NAME}.table")

    def _emit(self, level: int, event: str, seat: str | None, fields: dict[str, Any],
              exc_info: bool = False) -> None:
        if not self._log.isEnabledFor(level):
            return
        kv = "".join(f" {k}={v}" for k, v in fields.items())
        hand = "-" if self.hand is None else self.hand
        self._log.log(level, "table=%s hand=%s seat=%s %s%s", self.code, hand, seat or "-", event,
                      kv, extra={"table": self.code, "hand": self.hand, "seat": seat,
                                 "event": event, "fields": fields},
                      exc_info=exc_info)

    def debug(self, event: str, seat: str | None = None, **fields: Any) -> None:
        self._emit(logging.DEBUG, event, seat, fields)

    def info(self, event: str, seat: str | None = None, **fields: Any) -> None:
        self._emit(logging.INFO, event, seat, fields)

    def warning(self, event: str, seat: str | None = None, **fields: Any) -> None:
        self._emit(logging.WARNING, event, seat, fields)

    def exception(self, event: str, seat: str | None = None, **fields: Any) -> None:
        self._emit(logging.ERROR, event, seat, fields, exc_info=True)
