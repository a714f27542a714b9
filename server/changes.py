"""Views as changes (``docs/protocol.md``, "Updates as changes"): the one Python definition.

An ``update`` frame does not carry a seat's whole GAME_VIEW (``engine.view``) but what changed
since the version before it (``base``):

* ``changes``: the changes of the **shared** view (the spectator's view: ``you`` and ``hand``
  null), the same for every seat, built once per batch by :func:`diff`::

      {"set": {KEY: VALUE, ...},                   # GAME_VIEW keys, whole values; "hand" only
                                                   # when the hand view is replaced whole
       "hand": {"set": {KEY: VALUE, ...},          # HAND_VIEW keys, whole values ("t" always)
                "players": {NAME: {FIELD: VALUE}},  # changed fields of a player, by name
                "table": {"put": [MELD, ...],       # new or changed melds, whole
                          "del": [ID, ...],         # melds gone
                          "order": [ID, ...]}}}     # only when the order is not the one that
                                                   # put and del give (see apply)

  ``set`` always holds ``game_t`` and, while there is a hand, ``hand.set`` holds ``t``: the two
  clocks move without events, so a view taken between two batches (a snapshot) differs from
  the batch's in them only, and the next update mends both.
* ``mine``: the seat's own part (``you``, ``hand``: its own cards) when it changed, or when
  the hand view was replaced whole (``changes.set.hand``): then both come again.

:func:`apply` (bots, league, tests) and ``server/web/changes.js`` (the browser) build the
next view from the last one and a frame; :func:`apply_frame` also says when a frame cannot be
applied (a gap: its ``base`` is not the version held), and the client then asks for a
snapshot (``{"type": "resume", "last_version": V}``). Views are never changed in place: each
frame gives new dicts for what changed and shares the rest (a bot's brain may be reading the
previous view in another thread).
"""

from __future__ import annotations

from typing import Any

View = dict[str, Any]
#: The keys of a hand view that are a seat's own (``engine.view.own_hand``).
PRIVATE_KEYS = ("you", "hand")


# ---------------------------------------------------------------------------- diff (server)


def _table_changes(old: list[View], new: list[View]) -> dict[str, Any] | None:
    before = {m["id"]: m for m in old}
    put = [m for m in new if (o := before.get(m["id"])) is not m and o != m]
    now = {m["id"] for m in new}
    gone = [i for i in before if i not in now]
    if not put and not gone:
        if [m["id"] for m in old] == [m["id"] for m in new]:
            return None
        return {"order": [m["id"] for m in new]}
    out: dict[str, Any] = {}
    if put:
        out["put"] = put
    if gone:
        out["del"] = gone
    # The order apply makes: the old order less what is gone, then the new melds as put.
    kept = [i for i in before if i in now]
    made = kept + [m["id"] for m in put if m["id"] not in before]
    order = [m["id"] for m in new]
    if made != order:
        out["order"] = order
    return out


def _hand_changes(old: View, new: View) -> dict[str, Any]:
    out: dict[str, Any] = {}
    hset = {k: v for k, v in new.items()
            if k not in ("players", "table") and (o := old[k]) is not v and o != v}
    hset["t"] = new["t"]
    out["set"] = hset
    players = {}
    for po, pn in zip(old["players"], new["players"]):
        if po is not pn and po != pn:
            players[pn["name"]] = {k: v for k, v in pn.items() if po[k] != v}
    if players:
        out["players"] = players
    table = _table_changes(old["table"], new["table"])
    if table is not None:
        out["table"] = table
    return out


def _same_hand(old: View, new: View) -> bool:
    """Whether ``new`` can be sent as changes of ``old`` (the same players, in order)."""
    return len(old["players"]) == len(new["players"]) and all(
        a["name"] == b["name"] for a, b in zip(old["players"], new["players"]))


def diff(old: View, new: View, *, new_hand: bool = False) -> dict[str, Any]:
    """The ``changes`` from shared GAME_VIEW ``old`` to ``new`` (both with ``you`` and
    ``hand`` null). ``new_hand``: send the hand view whole (a new hand was dealt)."""
    gset = {k: v for k, v in new.items() if k != "hand" and (o := old[k]) is not v and o != v}
    gset["game_t"] = new["game_t"]
    out: dict[str, Any] = {"set": gset}
    oh, nh = old["hand"], new["hand"]
    if nh is None or oh is None or new_hand or not _same_hand(oh, nh):
        if oh is not nh:
            gset["hand"] = nh
    else:
        out["hand"] = _hand_changes(oh, nh)
    return out


def replaces_hand(changes: dict[str, Any]) -> bool:
    """Whether ``changes`` replace the hand view whole (then ``mine`` comes whole too)."""
    return "hand" in changes["set"]


# ---------------------------------------------------------------------------- apply (clients)


def _apply_table(melds: list[View], ch: dict[str, Any]) -> list[View]:
    gone = set(ch.get("del", ()))
    put = {m["id"]: m for m in ch.get("put", ())}
    out: list[View] = []
    for m in melds:
        if m["id"] in gone:
            continue
        out.append(put.pop(m["id"], m))
    out.extend(put.values())  # new melds, in the order given
    if "order" in ch:
        by_id = {m["id"]: m for m in out}
        out = [by_id[i] for i in ch["order"]]
    return out


def apply(game: View, changes: dict[str, Any], mine: dict[str, Any] | None = None) -> View:
    """The GAME_VIEW after ``changes`` and ``mine`` (see the module docstring); ``game`` is
    not changed. Raises ``KeyError``/``TypeError`` on changes that do not fit ``game``."""
    new = {**game, **changes.get("set", {})}
    hc = changes.get("hand")
    if hc is not None:
        hand = dict(new["hand"])
        hand.update(hc.get("set", {}))
        players = hc.get("players")
        if players:
            hand["players"] = [{**p, **players[p["name"]]} if p["name"] in players else p
                               for p in hand["players"]]
        table = hc.get("table")
        if table is not None:
            hand["table"] = _apply_table(hand["table"], table)
        new["hand"] = hand
    if mine and new.get("hand") is not None:
        new["hand"] = {**new["hand"], **mine}
    return new


def apply_frame(game: View | None, version: int | None, frame: dict[str, Any]
                ) -> tuple[bool, View | None]:
    """A client's state after an ``update`` or ``snapshot`` frame: ``(ok, game)``. ``ok`` is
    False on a gap (changes whose ``base`` is not ``version``, the version whose view
    ``game`` is): the client keeps ``game`` and asks for a snapshot. A replay update (missed
    events, a snapshot follows) leaves the state as it is."""
    if frame.get("type") == "snapshot" or "game" in frame:
        return True, frame.get("game")
    if frame.get("replay") or "changes" not in frame:
        return True, game
    if game is None or version is None or frame.get("base") != version:
        return False, game
    return True, apply(game, frame["changes"], frame.get("mine"))
