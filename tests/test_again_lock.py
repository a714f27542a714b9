"""Play again's one-request-at-a-time lock per old table (``server.again.play_again``).

The race a real server makes too rarely to test through HTTP, played out exactly with
stand-ins for the table, registry, limits and bots: Ada's request holds the lock and is
refused (her own table limit), Bob's waits; the moment Ada's is done, Cy asks. Bob and Cy must
still take turns, so one new table is made. (Dropping the lock's entry as soon as it was free
gave Cy a fresh lock while Bob, woken, had not yet taken the old one: two tables.) And a
decline that lands while an accepting seat is being seated stays declined.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from server import again as again_mod
from server.errors import ApiError


@dataclasses.dataclass(frozen=True)
class Options:
    seed: int = 0


class Log:
    def info(self, *args: Any, **kw: Any) -> None:
        pass


class OldTable:
    """What ``play_again`` reads and writes of the finished table."""

    code = "OLD1"
    agora = False
    phase = "over"
    mode = "game"
    options = Options()
    bot_levels: dict[str, Any] = {}
    tlog = Log()

    def __init__(self) -> None:
        self.again: dict[str, Any] | None = None
        self.seats = {"ada": "Ada", "bob": "Bob", "cy": "Cy"}

    async def call(self, fn: Any) -> Any:
        await asyncio.sleep(0.01)  # the table's task answers later, as the real one does
        return fn()

    def seat_of(self, player_id: str) -> str | None:
        return self.seats.get(player_id)

    def set_again(self, info: dict[str, Any]) -> None:
        self.again = info


class NewTable:
    def __init__(self, code: str) -> None:
        self.code = code
        self.seated: list[str] = []
        self.on_join: Any = None

    async def join(self, session: Any) -> None:
        self.seated.append(session.player_id)
        if self.on_join:
            await self.on_join()

    async def call(self, fn: Any) -> Any:
        return fn()

    def seat_of(self, player_id: str) -> str | None:
        return player_id if player_id in self.seated else None


class Registry:
    def __init__(self) -> None:
        self.made: list[NewTable] = []

    async def create(self, mode: str, session: Any, options: Any) -> tuple[NewTable, None]:
        await asyncio.sleep(0.05)  # making a table takes a moment: the race's window
        new = NewTable(f"NEW{len(self.made) + 1}")
        new.seated.append(session.player_id)
        self.made.append(new)
        return new, None

    async def open(self, code: str) -> NewTable | None:
        return next((t for t in self.made if t.code == code), None)


class Limits:
    def check_tables(self, registry: Any, player_id: str, ip: str) -> None:
        if player_id == "ada":
            raise ApiError(429, "too_many_tables_open", "Too many tables open.")

    def table_created(self, code: str, player_id: str, ip: str) -> None:
        pass


class Bots:
    def check(self, n: int) -> None:
        pass

    async def add(self, *args: Any) -> None:
        pass


@dataclasses.dataclass
class Session:
    player_id: str


def test_a_request_arriving_as_a_refused_one_ends_waits_behind_the_waiting_one() -> None:
    old, registry = OldTable(), Registry()

    async def ask(who: str) -> Any:
        try:
            return await again_mod.play_again(old, Session(who), registry, Bots(), Limits(), "1.2.3.4")  # type: ignore[arg-type]
        except ApiError as e:
            return e.code

    async def go() -> list[Any]:
        ada = asyncio.create_task(ask("ada"))
        await asyncio.sleep(0)  # Ada holds the lock, asking the old table
        bob = asyncio.create_task(ask("bob"))
        await asyncio.sleep(0)  # Bob waits for it
        ada_result = await ada  # Ada is refused; Bob is woken, and Cy asks before he runs
        cy = asyncio.create_task(ask("cy"))
        return [ada_result, await bob, await cy]

    ada, bob, cy = asyncio.run(go())
    assert ada == "too_many_tables_open"
    assert [t.code for t in registry.made] == ["NEW1"], "two requests made a table each"
    assert bob.code == cy.code == "NEW1"
    assert sorted(registry.made[0].seated) == ["bob", "cy"]
    assert again_mod._locks == {}, "the lock's entry stays after the last request"


def test_a_decline_while_another_seat_is_seated_stays() -> None:
    old, registry = OldTable(), Registry()

    async def go() -> None:
        await again_mod.play_again(old, Session("bob"), registry, Bots(), Limits(), "ip")  # type: ignore[arg-type]
        assert old.again is not None
        old.again = {**old.again, "declined": ["Cy"]}  # Cy said no, then asks after all
        new = registry.made[0]

        async def ada_declines() -> None:  # while Cy is being seated, Ada says no
            new.on_join = None
            await again_mod.decline(old, Session("ada"), registry)  # type: ignore[arg-type]

        new.on_join = ada_declines
        await again_mod.play_again(old, Session("cy"), registry, Bots(), Limits(), "ip")  # type: ignore[arg-type]

    asyncio.run(go())
    assert old.again is not None
    assert old.again["declined"] == ["Ada"]
