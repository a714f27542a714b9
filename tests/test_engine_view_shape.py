"""The views' shape (issue 14): every view of the recorded games, for every seat and a
spectator, is exactly the TypedDict that ``engine.view`` declares: the keys it names, no
more, each value of its type at every depth. Checked here only, never on the hot path.
(pydantic cannot check ``typing.TypedDict`` before Python 3.12, and the engine stays
standard library only, so this test walks the type hints itself.)"""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest
from recorded_games import cmd_of, start_of
from test_engine_recorded import GAMES

from engine.errors import Refused
from engine.game import Game
from engine.view import GameView, HandView, game_view, hand_view


def conforms(value: Any, typ: Any, where: str = "view") -> None:
    """Assert ``value`` is of ``typ``: a TypedDict (exact keys), list, dict, union, scalar."""
    if typing.is_typeddict(typ):
        hints = typing.get_type_hints(typ)
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        assert set(value) == set(hints), f"{where}: keys differ by {set(value) ^ set(hints)}"
        for k, t in hints.items():
            conforms(value[k], t, f"{where}.{k}")
        return
    origin, args = typing.get_origin(typ), typing.get_args(typ)
    if origin in (typing.Union, types.UnionType):
        errors = []
        for t in args:
            try:
                conforms(value, t, where)
                return
            except AssertionError as e:
                errors.append(str(e))
        raise AssertionError(f"{where}: {value!r} fits none of {typ}: {errors}")
    if origin is list:
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        for i, x in enumerate(value):
            conforms(x, args[0], f"{where}[{i}]")
        return
    if origin is dict:
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        for k, x in value.items():
            conforms(k, args[0], f"{where} key")
            conforms(x, args[1], f"{where}[{k!r}]")
        return
    if typ is type(None):
        assert value is None, f"{where}: {value!r} is not null"
        return
    if typ is float:
        assert isinstance(value, float), f"{where}: {value!r} is not a float"
        return
    assert isinstance(value, typ) and not (typ is int and isinstance(value, bool)), (
        f"{where}: {value!r} is not {typ.__name__}")


@pytest.mark.parametrize("game", [g for g in GAMES if g["name"] in
                                  ("bots, deal 6", "crowded meld 3", "long game 3")],
                         ids=lambda g: g["name"])
def test_every_view_of_a_recorded_game_has_the_declared_shape(game: dict[str, Any]) -> None:
    obj = start_of(game)
    checked = 0
    for i, step in enumerate(game["steps"]):
        if step[0] == "tick":
            obj.tick(step[1])
        else:
            try:
                obj.apply(cmd_of(step[2]), step[1])
            except Refused:
                pass
        if i % 29:
            continue
        for seat in [*game["players"], None]:
            if isinstance(obj, Game):
                conforms(game_view(obj, seat), GameView)
            else:
                conforms(hand_view(obj, seat), HandView)
            checked += 1
    assert checked > 20


def test_a_view_with_a_missing_or_mistyped_field_does_not_conform() -> None:
    h = start_of(GAMES[0])
    v: Any = hand_view(h, "A")  # type: ignore[arg-type]
    conforms(v, HandView)
    with pytest.raises(AssertionError, match="keys differ"):
        conforms({**v, "extra": 1}, HandView)
    with pytest.raises(AssertionError, match="not a float"):
        conforms({**v, "t": 3}, HandView)


def test_the_docstring_shape_names_every_player_key() -> None:
    import engine.view as view_module

    doc = view_module.__doc__ or ""
    players = doc[doc.index('"players": [{'):doc.index('"hand": [faces]')]
    for key in typing.get_type_hints(view_module.PlayerView):
        assert f'"{key}"' in players, f"engine/view.py's docstring shape lacks players' {key}"
