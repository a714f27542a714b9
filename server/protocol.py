"""WebSocket messages, one pydantic model per message and direction (``docs/protocol.md``).

Client → server: :class:`CommandIn`, :class:`ResumeIn`, :class:`PingIn`, :class:`HintIn`, a
union discriminated on ``type``. :func:`parse_client` turns raw text into one of them or, for
anything malformed, into an :class:`ErrorOut` to send back: it never raises, so bad input can
never kill a socket.

Server → client: :class:`WelcomeOut`, :class:`SnapshotOut`, :class:`UpdateOut`, :class:`AckOut`,
:class:`RefusedOut`, :class:`ErrorOut`, :class:`TableOut`, :class:`PongOut`, :class:`HintOut`,
:class:`AgainOut`.
Game views and events inside them are the plain dicts built by ``engine.view``; every outgoing
frame is serialised once with :func:`dump` and the same text goes to every connection that may
see it.

Error codes of :class:`ErrorOut` (malformed input; the socket stays open):

* ``too_large``: the message is longer than the server accepts;
* ``bad_json``: not JSON, not UTF-8, or not a JSON object;
* ``unknown_type``: ``type`` missing or not one of ``command``, ``resume``, ``ping``, ``hint``;
* ``bad_field``: a field is missing or of the wrong type (the command ``id`` is echoed when it
  could be read).

Ids and strings, exactly: a command or hint ``id`` is an integer within ±2**53 (what every
JSON reader holds exactly) or a string of 1–64 characters for which ``str.isprintable()``
holds; ``card`` and the items of ``cards`` are printable strings of at most 8 characters. So
nothing a client sends can make a reply that cannot be encoded (a lone surrogate such as
``"\ud800"`` is not printable). Should a reply still fail to encode, :func:`dump_reply` turns
it into an ``error`` frame instead of raising.

Refusal codes (:class:`RefusedOut`) are the engine's (``docs/errors.md``) plus the server's own:
``not_seated`` (a spectator sent a command) and ``not_started`` (seats are still filling).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from engine.commands import CLASSIC_SPECS, needs
from engine.commands import CLIENT_COMMANDS as SCHEMA_CLIENT_COMMANDS

# ---------------------------------------------------------------------------- client -> server

#: Commands a client may send (``engine.commands``, the one schema); ``disconnect`` and
#: ``reconnect`` are the server's own business.
CLIENT_COMMANDS = SCHEMA_CLIENT_COMMANDS
#: The same names as a type, for validation and the docs (a test holds it to the schema).
Do = Literal[
    "draw", "stage", "unstage", "lay", "add", "take", "drop", "move", "place",
    "end", "cancel", "stop", "give_up", "leave", "ready", "leave_game",
]
#: The classic tables' commands that Machiavelox has not (``engine.commands.CLASSIC_SPECS``);
#: which table takes which is the table's business (``server.variant.command_for``).
ClassicDo = Literal["free", "swap", "reset", "pass"]

#: The largest magnitude of an integer id: JSON readers (JavaScript's among them) hold every
#: integer up to 2**53 exactly, and no further.
ID_INT_MAX = 2**53
ID_STR_MAX = 64


def _printable(v: str) -> str:
    if not v.isprintable():
        raise ValueError("holds a character that is not printable")
    return v


def valid_id(v: object) -> bool:
    """True for a command or hint id the protocol accepts (see the module docstring)."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return -ID_INT_MAX <= v <= ID_INT_MAX
    return isinstance(v, str) and 1 <= len(v) <= ID_STR_MAX and v.isprintable()


#: A client's printable string (cards, ids).
Printable = Annotated[StrictStr, AfterValidator(_printable)]
CommandId = Annotated[
    Annotated[Printable, Field(min_length=1, max_length=ID_STR_MAX)]
    | Annotated[StrictInt, Field(ge=-ID_INT_MAX, le=ID_INT_MAX)],
    Field(union_mode="left_to_right")]


class _In(BaseModel):
    # Unknown extra fields are ignored, so that a newer client still talks to an older server.
    model_config = ConfigDict(extra="ignore", frozen=True)


class CommandIn(_In):
    """``{"type": "command", "id": "c17", "do": "add", "card": "7C", "meld": 1}``.

    ``id`` is the client's command id (a printable string of 1–64 characters, or an integer
    within ±2**53): a repeated id is applied once and gets the same reply again. ``card`` is a face (R1), ``cards`` a list
    of faces (``lay``), ``meld`` a meld id, ``to`` a meld id or ``"new"``.

    Classic tables (``server.variant``) also take ``free``, ``swap``, ``reset`` and ``pass``,
    ``meld: "loose"`` (``move`` of a loose joker), ``as`` (``move``: the face a joker takes,
    like ``"7H"``) and ``from`` (``free``: the meld id the freeing card leaves).
    """

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    type: Literal["command"]
    id: CommandId
    do: Do | ClassicDo
    card: Printable | None = Field(None, max_length=8)
    cards: list[Annotated[Printable, Field(max_length=8)]] | None = Field(None, max_length=40)
    meld: Annotated[StrictInt, Field(ge=-ID_INT_MAX, le=ID_INT_MAX)] | Literal["loose"] | None = None
    to: Annotated[StrictInt, Field(ge=-ID_INT_MAX, le=ID_INT_MAX)] | Literal["new"] | None = None
    as_: Printable | None = Field(None, alias="as", max_length=8)
    from_: Annotated[StrictInt, Field(ge=-ID_INT_MAX, le=ID_INT_MAX)] | None = Field(
        None, alias="from")

    @model_validator(mode="after")
    def _fields_for_do(self) -> CommandIn:
        spec = CLASSIC_SPECS.get(self.do)
        fields = needs(self.do) or (spec.fields if spec is not None else ())
        missing = [f for f in fields if getattr(self, f) is None]
        if missing:
            raise ValueError(f"'{self.do}' needs {' and '.join(missing)}")
        return self


class ResumeIn(_In):
    """``{"type": "resume", "last_version": 57}``: the last version this client saw (None: none)."""

    type: Literal["resume"]
    last_version: Annotated[StrictInt, Field(ge=0, le=ID_INT_MAX)] | None = None


class PingIn(_In):
    """``{"type": "ping"}``, answered by ``{"type": "pong"}``."""

    type: Literal["ping"]


class HintIn(_In):
    """``{"type": "hint", "id": "h3"}``: a seated player of a friendly table asks for a hint,
    answered by :class:`HintOut` (or a ``refused`` with the same id; ``server.bots``)."""

    type: Literal["hint"]
    id: CommandId


ClientMessage = Annotated[CommandIn | ResumeIn | PingIn | HintIn, Field(discriminator="type")]
_client_adapter: TypeAdapter[CommandIn | ResumeIn | PingIn | HintIn] = TypeAdapter(ClientMessage)
_CLIENT_TYPES = ("command", "resume", "ping", "hint")

# ---------------------------------------------------------------------------- server -> client


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class AgainOut(_Out):
    """Play again (``server.again``): ``code`` is the new table, ``by`` the seat that asked,
    ``declined`` the seats that said no. Sent to every connection of the old table when it
    changes, and kept in its :class:`TableSummary`."""

    type: Literal["again"] = "again"
    code: str
    by: str
    declined: list[str] = []


class TableSummary(_Out):
    """A table as everyone may see it. ``phase``: waiting (seats filling), hand, pause, over.
    ``online``: the seats with a live connection."""

    code: str
    mode: Literal["single", "long"]
    url: str
    seats: list[str]
    online: list[str]
    phase: Literal["waiting", "hand", "pause", "over"]
    #: Matched by the agora: a competitive single game whose points go to the ranking (R22).
    agora: bool = False
    #: The seats held by bots (``server.bots``).
    bots: list[str] = []
    #: Play again: the new table, once a seated player asked for it (None until then).
    again: AgainOut | None = None
    #: ``machiavelox`` or a classic preset (``classic``, ``classic_italian``,
    #: ``classic_dutch``); ``size`` the number of seats; ``rules`` a classic table's C1
    #: options by name plus ``preset`` (``{}`` for Machiavelox).
    variant: str = "machiavelox"
    size: int = 3
    rules: dict[str, Any] = {}


class WelcomeOut(_Out):
    type: Literal["welcome"] = "welcome"
    seat: str | None
    code: str
    version: int


class SnapshotOut(_Out):
    type: Literal["snapshot"] = "snapshot"
    version: int
    game: dict[str, Any] | None
    table: TableSummary


class UpdateOut(_Out):
    """The shape of an ``update`` (documentation and tests: the table writes these texts
    itself, ``server.frames``, each part serialised once). ``events`` are already filtered for
    the receiving seat. Then one of: ``set`` and ``hand`` (the changes of the shared view
    since ``version - 1``) with ``mine`` (the seat's own part, when it changed; see
    ``server.changes``); ``game``, the seat's whole view (the first update after the deal, or
    one nobody had the version before of); or ``replay`` true (the missed events sent on
    reconnection, with no view: a snapshot follows)."""

    type: Literal["update"] = "update"
    version: int
    events: list[dict[str, Any]]
    set: dict[str, Any] | None = None
    hand: dict[str, Any] | None = None
    mine: dict[str, Any] | None = None
    game: dict[str, Any] | None = None
    replay: bool = False


class AckOut(_Out):
    """A command carried out. ``made``: what it made, from the engine (``Hand.apply``):
    ``{"meld": id}`` when it opened a new meld (``lay``, ``drop`` or ``move`` to ``new``), else
    ``{}``, so a client need not guess the new meld's id from the events."""

    type: Literal["ack"] = "ack"
    id: StrictStr | StrictInt
    version: int
    made: dict[str, int] = Field(default_factory=dict)


class RefusedOut(_Out):
    type: Literal["refused"] = "refused"
    id: StrictStr | StrictInt
    code: str
    message: str


class ErrorOut(_Out):
    type: Literal["error"] = "error"
    code: Literal["too_large", "bad_json", "unknown_type", "bad_field"]
    message: str
    id: StrictStr | StrictInt | None = None


class TableOut(_Out):
    type: Literal["table"] = "table"
    table: TableSummary


class PongOut(_Out):
    type: Literal["pong"] = "pong"


class HintOut(_Out):
    """The suggested play for the asking seat at ``version``: ``steps`` are commands (new melds
    named ``"n1"``…, made by the step that ``creates`` them), ``cards`` the hand cards it puts
    down, ``melds`` the table melds it touches, ``moved`` the table cards it moves; ``advice``
    ``{"code", "cards"}`` or None says why cards stay in the hand (``bots.plans.ADVICE``)."""

    type: Literal["hint"] = "hint"
    id: StrictStr | StrictInt
    version: int
    steps: list[dict[str, Any]]
    cards: list[str]
    melds: list[int]
    moved: int
    advice: dict[str, Any] | None = None


ServerMessage = (
    WelcomeOut | SnapshotOut | UpdateOut | AckOut | RefusedOut | ErrorOut | TableOut | PongOut
    | HintOut | AgainOut
)


def dump(msg: _Out) -> str:
    """The JSON text of a server message (``None`` fields kept, as the protocol shows them).
    Raises ``pydantic_core.PydanticSerializationError`` when it holds what JSON in UTF-8
    cannot carry (a lone surrogate): replies built from client input use :func:`dump_reply`."""
    return msg.model_dump_json(exclude_none=isinstance(msg, ErrorOut))


def dump_reply(msg: _Out) -> str:
    """:func:`dump`, or, when ``msg`` cannot be encoded, the text of an ``error`` frame
    (``bad_field``, without an id) saying so. Never raises: one reply that cannot be sent must
    not stop the table that sends it."""
    try:
        return dump(msg)
    except Exception:  # noqa: BLE001 - PydanticSerializationError, or a bug in a view
        return dump(ErrorOut(code="bad_field", message=FIELD_SENTENCE.format(
            field="id", what=FIELD_HELP["id"])))


# ---------------------------------------------------------------------------- parsing


#: What each field of a client message must be, in words a person reads (instead of the
#: validator's internals such as ``to.int: Input should be a valid integer``).
FIELD_HELP = {
    "id": "a text of 1 to 64 printable characters, or a whole number from -2**53 to 2**53",
    "do": "a command name, like draw, stage, add, move or end",
    "card": 'one card, written like "10H" or "QS"',
    "cards": 'a list of at most 40 cards, like ["7C", "8C", "9C"]',
    "meld": 'a meld id, a whole number (or "loose" for a loose joker, classic tables)',
    "as": 'a face for a joker, like "7H"',
    "from": "a meld id, a whole number",
    "to": 'a meld id (a whole number) or "new"',
    "last_version": "a whole number from 0 to 2**53",
}
#: The ``bad_field`` sentence for a field of :data:`FIELD_HELP`.
FIELD_SENTENCE = 'The field "{field}" must be {what}.'


def _describe(err: ValidationError, kind: str) -> str:
    first = err.errors(include_url=False)[0]
    parts = [str(x) for x in first.get("loc", ())]
    if parts and parts[0] == kind:  # the union's tag
        parts = parts[1:]
    if parts and parts[0] in FIELD_HELP and first.get("type") != "missing":
        return FIELD_SENTENCE.format(field=parts[0], what=FIELD_HELP[parts[0]])
    loc = ".".join(parts)
    msg = str(first.get("msg", "invalid"))
    msg = msg.removeprefix("Value error, ")
    return f"{loc}: {msg}" if loc else msg


def parse_client(raw: str | bytes | None, *, max_bytes: int = 16384
                 ) -> CommandIn | ResumeIn | PingIn | HintIn | ErrorOut:
    """One client message, or the error to answer it with. Never raises."""
    try:
        if raw is None:
            return ErrorOut(code="bad_json", message="Empty message.")
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            return ErrorOut(code="too_large", message=f"Messages are at most {max_bytes} bytes.")
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                return ErrorOut(code="bad_json", message="Messages are UTF-8 JSON text.")
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, RecursionError, ValueError) as e:
            # ValueError: an integer of more than 4300 digits (Python's limit on int()).
            return ErrorOut(code="bad_json", message=f"Not JSON: {str(e)[:120]}.")
        if not isinstance(data, dict):
            return ErrorOut(code="bad_json", message="A message is a JSON object.")
        kind = data.get("type")
        if kind not in _CLIENT_TYPES:
            return ErrorOut(code="unknown_type",
                            message=f"Unknown message type {kind!r}: one of {', '.join(_CLIENT_TYPES)}.")
        try:
            return _client_adapter.validate_python(data)
        except ValidationError as e:
            cid = data.get("id")
            return ErrorOut(code="bad_field", message=_describe(e, kind),
                            id=cid if valid_id(cid) else None)
    except Exception as e:  # noqa: BLE001 # pragma: no cover - parsing must never kill a socket
        return ErrorOut(code="bad_json", message=f"Unreadable message ({type(e).__name__}).")
