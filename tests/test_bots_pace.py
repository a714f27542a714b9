"""The bots' pace (``bots.pace``): a person's delays by level, seeded, and the setting that
chooses it (``server.bots.seat_reaction``). No sleeps here: the delays are drawn, not waited."""

from __future__ import annotations

from statistics import mean

import pytest

from bots.pace import HUMAN, Pace
from server.bots import DEFAULT_REACTION, seat_reaction
from server.errors import ApiError

N = 400


def draws(p: Pace, kind: str) -> list[float]:
    return [getattr(p, kind)() for _ in range(N)]


@pytest.mark.parametrize("level, react, gap", [("casual", (3.0, 8.0), (6.0, 14.0)),
                                               ("shark", (1.5, 5.0), (2.5, 6.0))])
def test_human_delays_stay_in_the_level_s_ranges(level: str, react: tuple[float, float],
                                                 gap: tuple[float, float]) -> None:
    p = Pace("human", level, seed=11)
    r = draws(p, "react")
    assert react[0] <= min(r) and max(r) <= react[1]
    assert max(r) - min(r) > (react[1] - react[0]) * 0.8  # spread over the range, not fixed
    g = draws(p, "draw_gap")
    assert gap[0] <= min(g) and max(g) <= gap[1]
    s = draws(p, "step")
    assert HUMAN[level].step[0] <= min(s) and max(s) <= HUMAN[level].step[1]


def test_casual_is_slower_than_shark_in_every_delay() -> None:
    casual, shark = Pace("human", "casual", seed=1), Pace("human", "shark", seed=1)
    for kind in ("react", "step", "draw_gap"):
        assert mean(draws(casual, kind)) > mean(draws(shark, kind)) * 1.4, kind
    assert (mean(casual.think(5, 2) for _ in range(N))
            > mean(shark.think(5, 2) for _ in range(N)) * 1.4)


def test_thinking_grows_with_the_play() -> None:
    p = Pace("human", "casual", seed=3)
    assert p.think(1) == 0.0  # one card: the reaction is all
    small = mean(p.think(2) for _ in range(N))
    big = mean(p.think(6, 3) for _ in range(N))
    assert 0.5 <= small <= 1.2 and big > small * 6


def test_the_same_seed_waits_the_same_times() -> None:
    def schedule(seed: int) -> list[float]:
        p = Pace("human", "shark", seed=seed)
        return [p.react(), p.think(4, 1), p.step(), p.step(), p.draw_gap(), p.react()]

    assert schedule(5) == schedule(5)
    assert schedule(5) != schedule(6)


def test_pace_none_is_the_fixed_reaction_and_nothing_else() -> None:
    p = Pace("none", "casual", reaction=0.5, seed=2)
    r = draws(p, "react")
    assert 0.4 <= min(r) and max(r) <= 0.6
    assert p.think(8, 4) == 0.0 and p.draw_gap() == 0.0 and not p.human
    assert Pace("none").react() == 0.0 and Pace("none").step() == 0.0


def test_the_time_scale_divides_every_delay() -> None:
    one, ten = Pace("human", "casual", seed=4), Pace("human", "casual", seed=4, scale=10)
    assert [ten.react(), ten.draw_gap(), ten.step()] == pytest.approx(
        [one.react() / 10, one.draw_gap() / 10, one.step() / 10])
    assert ten.step_time() == pytest.approx(2.5 / 10 + 0.05)


def test_bad_paces_are_refused() -> None:
    with pytest.raises(ValueError):
        Pace("brisk")
    with pytest.raises(ValueError):
        Pace("human", "expert")
    with pytest.raises(ValueError):
        Pace("none", reaction=-1)


def test_the_seat_setting_human_by_default_none_with_a_reaction() -> None:
    assert seat_reaction(None, None) is None  # human: what a person adding a bot gets
    assert seat_reaction("human", None) is None
    assert seat_reaction(None, 0.05) == 0.05  # a reaction given: pace none (tests, scripts)
    assert seat_reaction("none", None) == DEFAULT_REACTION
    for bad in [("human", 0.5), ("brisk", None)]:
        with pytest.raises(ApiError) as e:
            seat_reaction(*bad)
        assert e.value.status == 422 and e.value.code == "bad_field"
