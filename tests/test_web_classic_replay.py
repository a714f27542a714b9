"""A finished classic hand watched again in a real browser (issue 35, item 4): Ada lays a run
and ends her turn, Bo draws, Ada adds the last card and goes out (two websocket clients, a
stacked deal). The replay page shows whose turn it is frame by frame, every hand and the one
stock as they stood, what each turn did in words, and the result; no console errors.
Screenshots go to ``test-artifacts/classic-replay-*.png``.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import test_web_support as web
from serverhelpers import run, seated
from test_classic_replay import POSITION
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers


def play_classic_hand(server: Any) -> str:
    """The short classic hand, played in a thread of its own (Playwright owns this one)."""
    out: dict[str, Any] = {}

    async def go() -> None:
        a, b = await seated(server, ["Ada", "Bo"], variant="classic_italian", players=2,
                            position=POSITION)
        await a.ok("lay", cards=["7H", "8H", "9H"])
        await asyncio.sleep(0.3)
        await a.ok("end")
        await b.ok("draw")
        await asyncio.sleep(0.3)
        await a.ok("add", card="10H", meld=1)
        ended = await a.ok("end")
        await b.at_version(ended["version"])
        out["code"] = a.code
        for p in (a, b):
            await p.close()

    def target() -> None:
        try:
            run(go(), timeout=30)
        except BaseException as e:  # noqa: BLE001 - handed to the test's thread
            out["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(40)
    if "error" in out:
        raise out["error"]
    return str(out["code"])


@pytest.mark.browser
def test_a_classic_hand_replays_turn_by_turn(live_server: Any, browsers: Browsers) -> None:
    code = play_classic_hand(live_server)
    page = browsers.page("viewer")
    page.goto(f"{live_server.url}/replay/{code}/1")
    root = page.locator("#replay")
    expect(root).to_have_attribute("data-state", "ready")
    expect(page.locator("#rp-title")).to_contain_text(code)

    def seat(name: str) -> Any:
        return page.locator(f".rp-player[data-player='{name}']")

    def faces(where: Any) -> list[str]:
        return list(where.locator(".card").evaluate_all("els => els.map(e => e.dataset.face)"))

    # The deal: Ada on turn, both hands and the shared stock, nothing on the table.
    expect(root).to_have_attribute("data-frame", "0")
    expect(seat("Ada")).to_have_attribute("data-turn", "true")
    expect(seat("Bo")).to_have_attribute("data-turn", "false")
    assert faces(seat("Ada").locator(".rp-hand")) == ["7H", "8H", "9H", "10H"]
    assert faces(page.locator("#rp-stock")) == ["2S", "3S", "4S"]
    expect(page.locator("#rp-table")).to_contain_text("No melds on the table.")
    browsers.shot(page, "classic-replay-01-deal")

    # Forward, moment by moment, until Bo's turn: Ada's turn told in words.
    for _ in range(20):
        if seat("Bo").get_attribute("data-turn") == "true":
            break
        page.click("#rp-next")
    expect(seat("Bo")).to_have_attribute("data-turn", "true")
    turns = page.locator("#rp-notice-list li")
    expect(turns.first).to_contain_text("Ada laid 7\u2665 8\u2665 9\u2665")
    expect(page.locator("#rp-table .rp-meld")).to_have_count(1)

    # The end: Ada went out, Bo kept the card he drew, the turns newest first.
    page.click("#rp-speed-8")
    page.click("#rp-play")
    expect(root).to_have_attribute("data-ended", "true", timeout=10000)
    assert faces(seat("Ada").locator(".rp-hand")) == []
    assert faces(seat("Bo").locator(".rp-hand")) == ["KC", "QD", "2C", "2S"]
    assert faces(page.locator("#rp-stock")) == ["3S", "4S"]
    expect(page.locator("#rp-result")).to_contain_text("Ada won (went out)")
    expect(turns).to_have_count(3)
    expect(turns.nth(0)).to_contain_text("Ada added 10\u2665 to meld 1")
    expect(turns.nth(1)).to_contain_text("Bo drew")
    assert "null" not in (root.text_content() or "") and "undefined" not in (root.text_content() or "")
    browsers.shot(page, "classic-replay-02-end")
    browsers.assert_no_console_errors()
