"""The browser with bots: a newcomer takes the free seat of a demo table and the bots play;
the Hint button shows the suggested play step by step."""

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


def test_the_hint_button_shows_the_play_step_by_step(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=HINT_POSITION,
                                     bots={"level": "casual", "count": 2, "reaction": 0.3})
    ada = browsers.page("ada-hint", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#board")).to_be_visible()
    hinted_hand = ada.locator("#my-hand .card.hinted")

    # A hint that the player does not follow goes stale: its highlights go at once.
    ada.click("#btn-hint")
    expect(ada.locator("#hint-steps li")).to_have_count(5)
    expect(hinted_hand).to_have_count(1)
    ada.click("#my-hand .card[data-face='KD']")
    ada.click(".zone.staging")
    expect(ada.locator("#hint-progress")).to_contain_text("Out of date")
    expect(ada.locator(".card.hinted, .meld.hinted")).to_have_count(0)
    ada.click("#my-staging .card[data-face='KD']")
    ada.click(".zone.hand")
    expect(ada.locator("#my-staging .card")).to_have_count(0)

    # Asked again: the play as numbered steps in words; only the current step is highlighted.
    ada.click("#btn-hint")
    expect(ada.locator("#toast")).to_contain_text("Hint: put down")
    steps = ada.locator("#hint-steps li")
    expect(steps).to_have_count(5)
    expect(steps.nth(0)).to_have_text("Stage 4♦")
    expect(steps.nth(1)).to_have_text("Stage 4♥")
    expect(steps.nth(2)).to_have_text("Move 4♣ from meld 1 to a new meld (N1)")
    expect(steps.nth(3)).to_have_text("Place 4♦ on new meld N1")
    expect(ada.locator("#hint-progress")).to_contain_text("Step 1 of 5: Stage 4♦")
    expect(hinted_hand).to_have_count(1)
    expect(hinted_hand).to_have_attribute("data-face", "4D")
    expect(ada.locator(".meld.hinted")).to_have_count(0)
    browsers.shot(ada, "bots-hint")
    # Stepping through without playing moves the highlights along.
    ada.click("#hint-next")
    expect(hinted_hand).to_have_attribute("data-face", "4H")
    ada.click("#hint-next")
    expect(ada.locator("#hint-progress")).to_contain_text("Step 3 of 5")
    expect(hinted_hand).to_have_count(0)
    expect(ada.locator(".meld[data-meld='1'].hinted")).to_be_visible()
    expect(ada.locator(".meld[data-meld='1'] .card.hinted[data-face='4C']")).to_be_visible()
    expect(ada.locator(".new-meld.hinted")).to_be_visible()
    expect(ada.locator(".meld[data-meld='2'].hinted")).to_have_count(0)
    ada.click("#hint-prev")
    ada.click("#hint-prev")
    expect(hinted_hand).to_have_attribute("data-face", "4D")

    # Carried out step by step, the hint follows: done steps are struck, the next one shows.
    for face in ("4D", "4H"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.click(".zone.staging")
    expect(ada.locator("#hint-progress")).to_contain_text("Step 3 of 5")
    expect(ada.locator("#hint-steps li.done")).to_have_count(2)
    expect(ada.locator(".meld[data-meld='1'] .card.hinted[data-face='4C']")).to_be_visible()
    ada.click(".meld[data-meld='1'] .card[data-face='4C']")
    ada.click("#btn-new")
    # Until the move's update arrives the 4C still shows on meld 1: wait for it elsewhere.
    moved = ada.locator(".meld:not([data-meld='1']) .card[data-face='4C']")
    expect(moved).to_have_count(1)
    expect(ada.locator(".meld[data-meld='1'] .card[data-face='4C']")).to_have_count(0)
    meld_id = moved.locator("xpath=ancestor::div[contains(@class,'meld ')]").get_attribute("data-meld")
    assert meld_id not in (None, "1")
    expect(ada.locator("#hint-progress")).to_contain_text(f"Step 4 of 5: Place 4♦ on meld {meld_id}")
    expect(ada.locator("#my-staging .card.hinted")).to_have_count(1)
    expect(ada.locator(f".meld[data-meld='{meld_id}'].hinted")).to_be_visible()
    for face in ("4D", "4H"):
        ada.click(f"#my-staging .card[data-face='{face}']")
        ada.click(f".meld[data-meld='{meld_id}']")
    expect(ada.locator("#hint-box")).to_have_count(0)
    expect(ada.locator(".card.hinted, .meld.hinted")).to_have_count(0)
    # Nothing left to put down: the hint says to draw.
    ada.click("#btn-hint")
    expect(ada.locator("#toast")).to_contain_text("draw a card")
    browsers.assert_no_console_errors()
