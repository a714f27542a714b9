"""docs/protocol.md lists every code the server itself can send."""

from __future__ import annotations

import typing
from pathlib import Path

from server import errors
from server.protocol import CLIENT_COMMANDS, ErrorOut
from server.tables import SERVER_REFUSALS

PROTOCOL = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")


def test_server_refusal_and_error_codes_are_documented() -> None:
    error_codes = typing.get_args(ErrorOut.model_fields["code"].annotation)
    codes = [*SERVER_REFUSALS, *error_codes, "bad_token", "test_deals_off", "no_such_table",
             "table_full", "too_many_tables"]
    missing = [c for c in codes if f"`{c}`" not in PROTOCOL]
    assert not missing, f"codes missing from docs/protocol.md: {missing}"


def test_close_codes_and_commands_are_documented() -> None:
    for code in (errors.CLOSE_BAD_TOKEN, errors.CLOSE_NO_SUCH_TABLE):
        assert str(code) in PROTOCOL
    missing = [c for c in CLIENT_COMMANDS if f"`{c}`" not in PROTOCOL]
    assert not missing, f"commands missing from docs/protocol.md: {missing}"
