"""One command schema (issue 14, ``engine/commands.py``): everything else that names commands
and their fields agrees with it, so adding a command is one schema entry, one handler and its
docs. Checked here: the engine's dispatch, the protocol's validation, docs/protocol.md's table,
what the browser sends, and the variant's command list."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest

from engine.commands import CLIENT_COMMANDS, COMMANDS, SPECS, needs
from engine.hand import Hand
from engine.variants import find_variant
from server import protocol

ROOT = Path(__file__).resolve().parents[1]


def test_every_hand_command_has_a_handler_and_nothing_else_does() -> None:
    handlers = {n[len("_cmd_"):] for n in dir(Hand) if n.startswith("_cmd_")}
    assert handlers == set(COMMANDS)


def test_the_protocol_validates_with_the_schema() -> None:
    assert tuple(protocol.CLIENT_COMMANDS) == CLIENT_COMMANDS
    assert typing.get_args(protocol.Do) == CLIENT_COMMANDS
    for name in CLIENT_COMMANDS:
        msg: dict[str, object] = {"type": "command", "id": 1, "do": name}
        got = protocol.parse_client(json.dumps(msg))
        if needs(name):  # each needed field is required: missing, the message is refused
            assert isinstance(got, protocol.ErrorOut) and got.code == "bad_field", (name, got)
            assert needs(name)[0] in got.message, got.message
        else:
            assert isinstance(got, protocol.CommandIn), (name, got)


def _docs_table() -> dict[str, tuple[str, ...]]:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    start = text.index("| `do` | fields |")
    rows: dict[str, tuple[str, ...]] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.strip().startswith("|"):
            break
        names_cell, fields_cell = [c.strip() for c in line.strip().strip("|").split("|")]
        fields = tuple(f for f in ("card", "cards", "meld", "to") if f"`{f}`" in fields_cell)
        for name in re.findall(r"`([a-z_]+)`", names_cell):
            rows[name] = fields
    return rows


def test_the_protocol_docs_table_is_the_schema() -> None:
    assert _docs_table() == {n: needs(n) for n in CLIENT_COMMANDS}


def test_what_the_browser_sends_is_in_the_schema() -> None:
    sent: dict[str, set[str]] = {}
    for js in (ROOT / "web").glob("*.js"):
        if js.name.startswith("classic"):
            continue  # the classic table page: CLASSIC_SPECS (the next test)
        text = js.read_text(encoding="utf-8")
        for name, fields in re.findall(r'\["([a-z_]+)"(?:,\s*\{([^}]*)\})?\]', text):
            if name in SPECS or name.endswith(("_game", "_up")):
                keys = {k.strip().split(":")[0].strip() for k in fields.split(",") if k.strip()}
                sent.setdefault(name, set()).update(keys)
    assert sent, "no command found in the web client"
    for name, keys in sent.items():
        assert name in CLIENT_COMMANDS, f"the web client sends unknown command {name!r}"
        assert keys == set(needs(name)), (name, keys, needs(name))


def test_what_the_classic_page_sends_is_in_the_classic_schema() -> None:
    """web/classic*.js send CLASSIC_SPECS' client commands with their fields, and only
    the optional ones CLASSIC_OPTIONAL allows (``as``, ``from``)."""
    from engine.commands import CLASSIC_OPTIONAL, CLASSIC_SPECS

    sent: dict[str, set[str]] = {}
    for js in (ROOT / "web").glob("classic*.js"):
        text = js.read_text(encoding="utf-8")
        for name, fields in re.findall(r'\["([a-z_]+)",\s*\{([^}]*)\}\]', text):
            if name in CLASSIC_SPECS:
                keys = {k.strip().split(":")[0].strip() for k in fields.split(",") if k.strip()}
                sent.setdefault(name, set()).update(keys)
    assert {"lay", "add", "move", "free", "swap", "end", "draw", "pass", "reset", "ready", "leave"} <= set(sent)
    for name, keys in sent.items():
        spec = CLASSIC_SPECS[name]
        assert spec.by_client, name
        assert set(spec.fields) <= keys <= set(spec.fields) | set(CLASSIC_OPTIONAL.get(name, ())), (
            name, keys, spec.fields)


def test_the_variant_takes_its_commands_from_the_schema() -> None:
    v = find_variant("machiavelox")
    assert v.flow is Hand and v.seats == (3, 3) and set(v.commands) == set(SPECS)
    with pytest.raises(KeyError, match="known are"):
        find_variant("poker")
