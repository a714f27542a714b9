"""The browser with bots: a newcomer takes the free seat of a demo table and the bots play;
the Hint button highlights the suggested cards and melds."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_web_support as web
from test_web_support import Browsers, api_create_table, expect

from server.bots import create_demo_table

live_server = web.live_server


@pytest.fixture(scope="module")
def module_browser() -> Iterator[Any]:
    """Chromium for this module only, stopped at its end: Playwright's sync API keeps an event
    loop running in this thread while it is started, and the asyncio tests that run after this
    module (``asyncio.run``) need none to be."""
    if "browser" in web._SHARED:  # the browser tests already started one: share it
        yield web._SHARED["browser"]
        return
    if not Path(web.CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {web.CHROMIUM}")
    with web.sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=web.CHROMIUM, args=web.CHROMIUM_ARGS,
                                    headless=True)
        yield browser
        browser.close()


@pytest.fixture
def browsers(module_browser: Any) -> Iterator[Browsers]:
    b = Browsers(module_browser)
    try:
        yield b
    finally:
        b.close()

# Ada can put 4D 4H down only by taking 4C out of the run; the bots have nothing to play.
HINT_POSITION = {
    "table": [["4C", "5C", "6C", "7C"], ["9H", "10H", "JH"]],
    "hands": {"A": ["4D", "4H", "KD"], "B": ["2S", "8D"], "C": ["3S", "QD"]},
    "stocks": {"A": ["QS"], "B": [], "C": []},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


def test_a_newcomer_takes_the_free_seat_of_a_demo_table(live_server, browsers: Browsers) -> None:
    fut = asyncio.run_coroutine_threadsafe(
        create_demo_table(live_server.app, "casual", reaction=0.3), live_server.loop)
    code = fut.result(10)
    page = browsers.page("newcomer")
    page.goto(f"{live_server.url}/t/{code}")
    page.fill("#name", "Newcomer")
    page.click("#gate-join")
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator(".opponents")).to_contain_text("Casual bot")
    expect(page.locator(".opponents")).to_contain_text("Casual bot 2")
    # The bots play: within a few seconds they have drawn.
    page.wait_for_function(
        "() => window.__mvx && window.__mvx.S.game && window.__mvx.S.game.hand.players"
        ".filter(p => p.name.startsWith('Casual bot')).every(p => p.hand_count + p.stock_count < 34"
        " || p.hand_count > 0)", timeout=15000)
    browsers.shot(page, "bots-demo")
    browsers.assert_no_console_errors()


def test_the_hint_button_highlights_the_suggested_play(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=HINT_POSITION,
                                     bots={"level": "casual", "count": 2, "reaction": 0.3})
    ada = browsers.page("ada-hint", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#board")).to_be_visible()
    ada.click("#btn-hint")
    expect(ada.locator("#toast")).to_contain_text("Hint: put down")
    expect(ada.locator("#my-hand .card.hinted")).to_have_count(2)
    assert sorted(ada.eval_on_selector_all("#my-hand .card.hinted", "els => els.map(e => e.dataset.face)")) == ["4D", "4H"]
    expect(ada.locator(".meld[data-meld='1'].hinted")).to_be_visible()
    expect(ada.locator(".meld[data-meld='1'] .card.hinted[data-face='4C']")).to_be_visible()
    expect(ada.locator(".meld[data-meld='2'].hinted")).to_have_count(0)
    browsers.shot(ada, "bots-hint")
    # Carried out, the hint's cards are gone from the hand and the highlights with them.
    for face in ("4D", "4H"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.click(".zone.staging")
    expect(ada.locator("#my-staging .card.hinted")).to_have_count(2)
    ada.click(".meld[data-meld='1'] .card[data-face='4C']")
    ada.click("#btn-new")
    new_meld = ada.locator(".meld .card[data-face='4C']").locator("xpath=ancestor::div[contains(@class,'meld ')]")
    expect(new_meld).to_have_count(1)
    meld_id = new_meld.get_attribute("data-meld")
    assert meld_id != "1"
    for face in ("4D", "4H"):
        ada.click(f"#my-staging .card[data-face='{face}']")
        ada.click(f".meld[data-meld='{meld_id}']")
    expect(ada.locator("#my-hand .card.hinted")).to_have_count(0)
    expect(ada.locator(".meld.hinted")).to_have_count(0)
    # Nothing left to put down: the hint says to draw.
    ada.click("#btn-hint")
    expect(ada.locator("#toast")).to_contain_text("draw a card")
    browsers.assert_no_console_errors()
