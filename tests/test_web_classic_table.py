"""The classic table page in a real browser (issue 16, "The browser"): four players in four
browser contexts play a stacked classic hand to its end.

Playwright drives Debian's Chromium against a real uvicorn (``test_web_support``); the deal is a
classic conformance ``start`` block through ``MACHIAVELOX_TEST_DEALS`` (placeholders A–D take
the seats in join order). What each gesture checks:

* Ada (first to play) drags 6♥ onto the joker of meld 1 (``free``): the joker is loose and the
  page says it must be placed; her End turn is refused and the engine's sentence shows by the
  buttons; she lays 3♣ 4♣ by clicks (select, New meld), the opening-free table marks the meld
  changed, she clicks the loose joker then her meld (``move`` from ``loose``), chooses the face
  the joker stands for (5♣, not 2♣), and End turn is accepted;
* Bob reloads his page and finds his turn and what Ada did; he rearranges: he adds 9♥ to the nines by drag, moves 9♠ out of them to a new meld (a table
  card moved), adds 10♠ J♠ to it by keyboard (Space, then Enter on the meld), ends his turn;
* Cy draws with the D key, Dee with the button; each sees what the others did since their turn
  ("Ada laid …", "Bob drew"), marked melds, the cards they drew marked;
* Ada lays her last three cards and goes out: everyone sees the result with each score's reason.

Screenshots (desktop 1366×1100 and phone 390×844) go to ``test-artifacts/``; no page may log a
console error, and the phone fits without page scroll.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_web_support as web
from test_web_support import Browsers, api_create_table, expect, mouse_drag

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

PHONE = {"width": 390, "height": 844}

POSITION = {
    "players": ["A", "B", "C", "D"],
    "table": [["5H", "JK", "7H"], ["9S", "9D", "9C"]],
    "hands": {
        "A": ["6H", "3C", "4C", "KD", "KS", "KH"],
        "B": ["9H", "10S", "JS", "QC", "2D"],
        "C": ["2S", "3S", "8D"],
        "D": ["4D", "5D", "8C"],
    },
    "stock": ["AD", "AC", "7S", "7C", "8S", "6D"],
}


def meld_faces(page: Any, meld: int) -> Any:
    return page.eval_on_selector_all(f".c-meld[data-meld='{meld}'] .card", "els => els.map(e => e.dataset.face)")


def hand(page: Any) -> Any:
    return page.eval_on_selector_all("#my-hand .card", "els => els.map(e => e.dataset.face)")


def seat(browsers: Browsers, server: Any, code: str, name: str, **kw: Any) -> Any:
    page = browsers.page(name.lower(), **kw)
    page.goto(f"{server.url}/t/{code}")
    page.fill("#name", name)
    page.click("#gate-join")
    return page


def no_page_scroll(page: Any) -> None:
    """Everything fits the window: no page scroll either way, the table at least 80% wide."""
    over = page.evaluate("() => [document.scrollingElement.scrollHeight - window.innerHeight,"
                         " document.scrollingElement.scrollWidth - window.innerWidth,"
                         " document.getElementById('board').getBoundingClientRect().width / window.innerWidth]")
    assert over[0] <= 1 and over[1] <= 1, f"the page scrolls by {over[0]}px down, {over[1]}px across"
    assert over[2] >= (0.8 if page.viewport_size["width"] < 600 else 0.45), f"the table is {over[2]:.0%} of the width"


@pytest.mark.browser
def test_four_players_play_a_classic_hand_to_its_end(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", mode="long", variant="classic", players=4, position=POSITION)
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#seat-list")).to_contain_text("Ada")
    expect(ada.locator("#seat-list li")).to_have_count(4)
    bob = seat(browsers, live_server, code, "Bob")
    cy = seat(browsers, live_server, code, "Cy")
    dee = seat(browsers, live_server, code, "Dee", viewport=PHONE, touch=True)
    pages = (ada, bob, cy, dee)
    for p in pages:
        expect(p.locator("#board")).to_be_visible()
    expect(ada.locator("#turn-banner")).to_have_text("Your turn")
    expect(bob.locator("#turn-banner")).to_contain_text("Ada's turn")
    expect(bob.locator("#btn-end")).to_have_count(0)
    # The order of play, from Ada; Bob sees Cy on his left, Dee across, Ada on his right.
    expect(bob.locator("#play-order")).to_contain_text("Ada → you → Cy → Dee")
    expect(bob.locator(".c-left .c-seat")).to_have_attribute("data-player", "Cy")
    expect(bob.locator(".c-right .c-seat")).to_have_attribute("data-player", "Ada")
    expect(bob.locator(".c-seat[data-player='Ada']")).to_have_class("c-seat panel on-turn")
    assert meld_faces(ada, 1) == ["5H", "JK=6H", "7H"]
    joker = ada.locator(".c-meld[data-meld='1'] .card.joker-as")
    expect(joker).to_have_attribute("aria-label", "joker standing for 6 of hearts")
    expect(joker.locator(".rank")).to_have_text("6")
    expect(joker.locator(".joker-badge")).to_be_visible()
    browsers.shot(dee, "classic-phone-start")
    no_page_scroll(dee)

    # Ada frees the joker with 6♥ (a drag onto it): it is loose and must be placed.
    mouse_drag(ada, "#my-hand .card[data-face='6H']", ".c-meld[data-meld='1'] .card[data-face='JK=6H']")
    expect(ada.locator("#loose-joker")).to_contain_text("A freed joker must go back on the table.")
    expect(bob.locator("#loose-joker")).to_contain_text("Ada must place it")
    assert meld_faces(ada, 1) == ["5H", "6H", "7H"]
    expect(ada.locator("#btn-draw")).to_be_disabled()
    # End turn now: refused, and the engine's sentence is where she looks.
    ada.click("#btn-end")
    expect(ada.locator("#end-refusal")).to_contain_text("A freed joker must go back down this turn.")
    # She lays 3♣ 4♣ (click, click, New meld) and puts the joker there (click it, click the meld).
    ada.click("#my-hand .card[data-face='3C']")
    ada.click("#my-hand .card[data-face='4C']")
    ada.click("#new-meld")
    expect(ada.locator(".c-meld[data-meld='3']")).to_have_class("meld c-meld invalid changed-now")
    expect(ada.locator(".c-meld[data-meld='3']")).to_contain_text("not valid")
    ada.click("#loose-joker .card")
    ada.click(".c-meld[data-meld='3'] .meld-head")
    expect(ada.locator("#loose-joker")).to_have_count(0)
    # The joker could be 2♣ or 5♣: the meld offers both; she picks 5♣.
    assert ada.eval_on_selector_all(".c-meld[data-meld='3'] .c-as button", "els => els.map(e => e.dataset.as)") == ["2C", "5C"]
    ada.click(".c-meld[data-meld='3'] .c-as button[data-as='5C']")
    expect(ada.locator(".c-meld[data-meld='3'] .card.joker-as")).to_have_attribute("data-face", "JK=5C")
    browsers.shot(ada, "classic-desktop-ada-turn")
    ada.click("#btn-end")
    expect(ada.locator("#turn-banner")).to_contain_text("Bob's turn")
    expect(bob.locator("#turn-banner")).to_have_text("Your turn")
    assert meld_faces(bob, 3) == ["3C", "4C", "JK=5C"]
    expect(bob.locator("#since-list")).to_contain_text(
        "Ada freed a joker from meld 1 with 6♥, laid 3♣ 4♣, put the freed ★ on meld 3, "
        "made the joker of meld 3 stand for 5♣")
    expect(bob.locator(".c-meld[data-meld='1']")).to_have_class("meld c-meld changed-since")
    # Bob reloads twice: his seat, his turn and what Ada did come back (the first time the
    # server's replay of the missed events brings them; the second resumes after them: the
    # tab's memory of the hand's events).
    for _ in range(2):
        bob.reload()
        expect(bob.locator("#turn-banner")).to_have_text("Your turn")
        expect(bob.locator("#since-list")).to_contain_text("Ada freed a joker from meld 1 with 6♥")
        expect(bob.locator("#my-hand .card")).to_have_count(5)

    # Bob rearranges: 9♥ onto the nines (a drag), 9♠ out of them to a new meld, 10♠ J♠ by keyboard.
    mouse_drag(bob, "#my-hand .card[data-face='9H']", ".c-meld[data-meld='2'] .meld-head")
    expect(bob.locator(".c-meld[data-meld='2'] .card")).to_have_count(4)
    mouse_drag(bob, ".c-meld[data-meld='2'] .card[data-face='9S']", "#new-meld")
    expect(bob.locator(".c-meld[data-meld='4'] .card")).to_have_count(1)
    for face in ("10S", "JS"):
        bob.focus(f"#my-hand .card[data-face='{face}']")
        bob.keyboard.press("Space")
    bob.focus(".c-meld[data-meld='4']")
    bob.keyboard.press("Enter")
    expect(bob.locator(".c-meld[data-meld='4'] .card")).to_have_count(3)
    bob.keyboard.press("e")
    expect(cy.locator("#turn-banner")).to_have_text("Your turn")
    assert sorted(meld_faces(cy, 4)) == ["10S", "9S", "JS"]

    # Cy draws with the key, Dee with the button (on the phone).
    cy.keyboard.press("d")
    expect(dee.locator("#turn-banner")).to_have_text("Your turn")
    expect(cy.locator("#my-hand .card.drawn")).to_have_count(1)
    assert "AD" in hand(cy)
    expect(dee.locator("#since-list")).to_contain_text("Cy drew")
    expect(dee.locator("#since-list")).to_contain_text("Ada freed a joker from meld 1 with 6♥")
    expect(dee.locator(".c-meld.changed-since")).to_have_count(4)
    expect(dee.locator("#since-list")).to_contain_text("Bob added 9♥ to meld 2")
    expect(dee.locator("#since-list")).to_contain_text("moved 9♠ from meld 2 to meld 4")
    browsers.shot(dee, "classic-phone-dee-turn")
    no_page_scroll(dee)
    dee.click("#btn-draw")
    expect(ada.locator("#turn-banner")).to_have_text("Your turn")
    expect(ada.locator("#since-list")).to_contain_text("Dee drew")

    # Ada lays her last three kings and goes out.
    for face in ("KD", "KS", "KH"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.keyboard.press("n")
    expect(ada.locator(".c-meld[data-meld='5'] .card")).to_have_count(3)
    ada.click("#btn-end")
    for p in pages:
        expect(p.locator("#result-title")).to_contain_text("won the hand")
    expect(bob.locator("#hand-scores tr[data-player='Ada'] .why")).to_contain_text("scores the others' cards")
    expect(bob.locator("#hand-scores tr[data-player='Bob'] .why")).to_contain_text("points left in hand, scored by Ada")
    expect(bob.locator("#match-totals tr[data-player='Ada']")).to_contain_text("64")
    expect(dee.locator("#pause-box")).to_contain_text("Next deal in")
    browsers.shot(ada, "classic-desktop-end")
    browsers.shot(dee, "classic-phone-end")
    no_page_scroll(dee)
    # Everyone is ready: the next hand is dealt at once (C31), the totals carry on.
    for p in pages:
        p.click("#btn-ready")
    expect(ada.locator("#btn-ready")).to_have_count(0)
    for p in pages:
        expect(p.locator("#hand-chip")).to_have_text("Hand 2")
    expect(ada.locator("#my-hand .card")).to_have_count(13)
    expect(ada.locator(".c-seat[data-player='Bob'] .c-count")).to_have_text("13 cards")
    browsers.assert_no_console_errors()


SIX = {
    "players": ["A", "B", "C", "D", "E", "F"],
    "table": [["QH", "QS", "QD"]],
    "hands": {p: [c + s for c in ("2", "3", "4", "5", "6", "7", "8")] for p, s in zip("ABCDEF", "HSDCHS")},
    "stock": ["9C", "10C"],
    "turn": "D",
}


@pytest.mark.browser
def test_six_seats_sit_around_the_table_in_the_order_of_play(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", variant="classic", players=6, position=SIX)
    for name in ("Bob", "Cy", "Dee", "Eve", "Flo"):
        web.api_join(live_server, code, name)
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#turn-banner")).to_have_text("Dee's turn")
    for viewport, name in ((web.VIEWPORT, "desktop"), (PHONE, "phone")):
        ada.set_viewport_size(viewport)
        expect(ada.locator(".c-left .c-seat")).to_have_attribute("data-player", "Bob")
        assert ada.eval_on_selector_all(".c-top .c-seat", "els => els.map(e => e.dataset.player)") == ["Cy", "Dee", "Eve"]
        expect(ada.locator(".c-right .c-seat")).to_have_attribute("data-player", "Flo")
        expect(ada.locator(".c-seat.on-turn")).to_have_attribute("data-player", "Dee")
        expect(ada.locator("#play-order")).to_contain_text("Dee → Eve → Flo → you → Bob → Cy")
        expect(ada.locator("#btn-end")).to_have_count(0)
        expect(ada.locator("#wait-turn")).to_have_text("Waiting for Dee to play.")
        boxes = ada.eval_on_selector_all(".c-seat", "els => els.map(e => e.getBoundingClientRect()).map(r => [r.left, r.right])")
        assert all(0 <= left and right <= viewport["width"] for left, right in boxes), (name, boxes)
        no_page_scroll(ada)
        browsers.shot(ada, f"classic-six-seats-{name}")
    browsers.assert_no_console_errors()
