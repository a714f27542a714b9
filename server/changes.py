"""Views as changes (``docs/protocol.md``, "Updates as changes"): the one Python definition.

An ``update`` frame does not carry a seat's whole GAME_VIEW (``engine.view``) but what changed
since the version before it (``version - 1``), in three parts:

* ``set`` and ``hand``: the changes of the **shared** view (the spectator's view: ``you`` and
  ``hand.hand`` null), the same for every seat, built once per batch by :func:`diff`::

      "set": {KEY: VALUE, ...}        GAME_VIEW keys, whole values ("hand" only when the hand
                                      view is replaced whole: null, or a new hand's view)
      "hand": {KEY: VALUE, ...,       HAND_VIEW keys, whole values, except:
               "players": {NAME: {FIELD: VALUE, ...}},   changed fields of a player
               "table": LIST_CHANGES, "plays": LIST_CHANGES}
      LIST_CHANGES = {"put": [ITEM, ...],               new items, whole
                      "patch": [{"id": ID, FIELD: VALUE, ...}],  changed fields of an item
                      "del": [ID, ...],                 items gone
                      "order": [ID, ...]}               only when the order is not the one
                                                        that del, patch and put give (apply)

  ``set`` always holds ``game_t`` and, while there is a hand, ``hand`` holds ``t``: the two
  clocks move without events, so a view taken between two batches (a snapshot) differs from
  the batch's in them only, and the next update mends both.
* ``mine``: the seat's own part of the hand view (``you``, ``hand``: its own cards) when it
  changed, and both when the hand view was replaced whole.

An update's events leave out what its view says (``server.frames``): an event without ``t``
happened at the hand view's ``t``, one without ``hand`` belongs to the view's ``hand_no``;
:func:`full_events` puts them back. The events of a frame that cannot be applied (a gap)
cannot be completed: they come again, whole, in the replay that answers the ``resume``.

:func:`apply` (bots, league, tests) and ``web/changes.js`` (the browser) build the
next view from the last one and a frame; :func:`apply_frame` also says when a frame cannot be
applied (a gap: the client's view is not of ``version - 1``), and the client then asks for a
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

#: HAND_VIEW lists of items with an ``id``, sent as LIST_CHANGES.
KEYED_LISTS = ("table", "plays")


def _same(a: Any, b: Any) -> bool:
    return a is b or a == b


def _list_changes(old: list[View], new: list[View]) -> dict[str, Any] | None:
    before = {m["id"]: m for m in old}
    put: list[View] = []
    patch: list[View] = []
    for m in new:
        o = before.get(m["id"])
        if o is None:
            put.append(m)
        elif not _same(o, m):
            fields = {k: v for k, v in m.items() if not _same(o.get(k), v)}
            patch.append({"id": m["id"], **fields})
    now = {m["id"] for m in new}
    gone = [i for i in before if i not in now]
    out: dict[str, Any] = {}
    if put:
        out["put"] = put
    if patch:
        out["patch"] = patch
    if gone:
        out["del"] = gone
    # The order apply makes: the old order less what is gone, then the new items as put.
    made = [i for i in before if i in now] + [m["id"] for m in put]
    order = [m["id"] for m in new]
    if made != order:
        out["order"] = order
    return out or None


def _hand_changes(old: View, new: View) -> dict[str, Any]:
    out: dict[str, Any] = {k: v for k, v in new.items()
                           if k not in ("players", *KEYED_LISTS) and not _same(old[k], v)}
    out["t"] = new["t"]
    players = {}
    for po, pn in zip(old["players"], new["players"]):
        if not _same(po, pn):
            players[pn["name"]] = {k: v for k, v in pn.items() if po[k] != v}
    if players:
        out["players"] = players
    for key in KEYED_LISTS:
        if not _same(old[key], new[key]):
            ch = _list_changes(old[key], new[key])
            if ch is not None:
                out[key] = ch
    return out


def _same_hand(old: View, new: View) -> bool:
    """Whether ``new`` can be sent as changes of ``old`` (the same players, in order)."""
    return len(old["players"]) == len(new["players"]) and all(
        a["name"] == b["name"] for a, b in zip(old["players"], new["players"]))


def diff(old: View, new: View, *, new_hand: bool = False) -> dict[str, Any]:
    """The changes from shared GAME_VIEW ``old`` to ``new`` (both with ``you`` and ``hand``
    null): ``{"set": {...}, "hand": {...}}`` (``hand`` absent when the hand view is replaced
    whole or there is none). ``new_hand``: send the hand view whole (a new hand was dealt)."""
    gset = {k: v for k, v in new.items() if k != "hand" and not _same(old[k], v)}
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


def _apply_list(items: list[View], ch: dict[str, Any]) -> list[View]:
    gone = set(ch.get("del", ()))
    patch = {m["id"]: m for m in ch.get("patch", ())}
    out = [{**m, **patch[m["id"]]} if m["id"] in patch else m
           for m in items if m["id"] not in gone]
    out.extend(ch.get("put", ()))  # new items, in the order given
    if "order" in ch:
        by_id = {m["id"]: m for m in out}
        out = [by_id[i] for i in ch["order"]]
    return out


def apply(game: View, changes: dict[str, Any], mine: dict[str, Any] | None = None) -> View:
    """The GAME_VIEW after ``changes`` (``{"set", "hand"}``, as in a frame) and ``mine``
    (see the module docstring); ``game`` is not changed. Raises ``KeyError``/``TypeError``
    on changes that do not fit ``game``."""
    new = {**game, **changes.get("set", {})}
    hc = changes.get("hand")
    if hc is not None:
        hand = {**new["hand"], **hc}
        players = hc.get("players")
        if players is not None:
            hand["players"] = [{**p, **players[p["name"]]} if p["name"] in players else p
                               for p in new["hand"]["players"]]
        for key in KEYED_LISTS:
            if key in hc:
                hand[key] = _apply_list(new["hand"][key], hc[key])
        new["hand"] = hand
    if mine and new.get("hand") is not None:
        new["hand"] = {**new["hand"], **mine}
    return new


def full_events(events: list[View], game: View | None) -> list[View]:
    """An update's ``events`` with the ``t`` and ``hand`` they leave out put back from
    ``game``, the view after the update (see the module docstring); events that lack none
    come back as they are. ``game`` None (a replay, nothing applied yet): as they are."""
    if game is None or "hand_no" not in game:
        return events  # a classic view: its events come whole (server.variant)
    hv = game.get("hand")
    defaults: View = {"hand": game["hand_no"]}
    if hv is not None:
        defaults["t"] = hv["t"]
    return [e if "t" in e and "hand" in e else {**defaults, **e} for e in events]


def apply_frame(game: View | None, version: int | None, frame: dict[str, Any]
                ) -> tuple[bool, View | None]:
    """A client's state after an ``update`` or ``snapshot`` frame: ``(ok, game)``. ``ok`` is
    False on a gap (changes while ``game``, the view of ``version``, is not the view of the
    frame's version − 1): the client keeps ``game`` and asks for a snapshot. A replay update
    (missed events, a snapshot follows) leaves the state as it is."""
    if frame.get("type") == "snapshot" or "game" in frame:
        return True, frame.get("game")
    if frame.get("replay") or "set" not in frame:
        return True, game
    if game is None or version is None or frame.get("version") != version + 1:
        return False, game
    return True, apply(game, frame, frame.get("mine"))
