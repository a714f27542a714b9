"""The classic table page's clocks in a real browser (issue 16, C20, C31).

* A Dutch table (``classic_dutch``, Dutch on the page) with a short turn clock (test
  ``timers.clock``) and an opening minimum: Ada's clock counts down in the top bar while she lays
  a run (the opening counter says how far she is), the clock runs out, the table is put back,
  she gets a penalty card (marked in her hand) and is told so ("Je tijd is om: …", C20), and
  Bob reads that she ran out of time; Bob swaps
  a joker into his hand (Dutch "keep", C12) and Ada reads it in Dutch.
* A player who leaves the page on their turn: the others see the absence countdown, and when it
  runs out the turn goes on to the next player: nobody is stalled; back, he is told (C31). The next player asks for a
  hint (a friendly table): its steps in words, its card and meld highlighted.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_web_support as web
from test_web_classic_table import hand, meld_faces, seat
from test_web_support import Browsers, api_create_table, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

DUTCH = {
    "players": ["A", "B"],
    "table": [["2C", "3C", "4C"], ["5D", "JK", "7D"]],
    "hands": {"A": ["7H", "8H", "9H", "QS"], "B": ["5S", "6D", "KC"]},
    "stock": ["10D", "JD", "AS", "3H"],
    "unopened": ["A"],
}


def dutch(page: Any) -> Any:
    page.context.add_init_script("localStorage.setItem('mvx.lang', 'nl')")
    return page


@pytest.mark.browser
def test_a_dutch_turn_clock_restores_the_table_and_gives_a_penalty_card(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", variant="classic_dutch", players=2, position=DUTCH,
                                     options={"opening": 30, "jokers": 2}, timers={"clock": 6})
    ada = dutch(browsers.page("ada", session=session))
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#seat-list li")).to_have_count(2)
    bob = seat(browsers, live_server, code, "Bob", viewport={"width": 390, "height": 844})
    expect(ada.locator("#turn-banner")).to_have_text("Jij bent aan de beurt")
    expect(ada.locator("#turn-clock")).to_contain_text("Beurtklok")
    expect(ada.locator("#opening")).to_have_text("Uitkomen: 0 van 30 punten deze beurt gelegd")
    for face in ("7H", "8H", "9H"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.click("#new-meld")
    expect(ada.locator(".c-meld[data-meld='3']")).to_be_visible()
    expect(ada.locator("#opening")).to_have_text("Uitkomen: 24 van 30 punten deze beurt gelegd")
    assert meld_faces(bob, 3) == ["7H", "8H", "9H"]
    left = ada.locator("#turn-clock .clock-text").inner_text()
    assert left.endswith("s") and 0 < int(left[:-1]) <= 6, left
    browsers.shot(ada, "classic-dutch-clock")
    # The clock runs out: the run goes back to her hand, plus the stock's top card as a penalty.
    expect(bob.locator("#turn-banner")).to_have_text("Your turn", timeout=12000)
    expect(ada.locator(".c-meld[data-meld='3']")).to_have_count(0)
    assert sorted(hand(ada)) == sorted(["7H", "8H", "9H", "QS", "10D"])
    expect(ada.locator("#my-hand .card.drawn")).to_have_attribute("data-face", "10D")
    expect(ada.locator("#my-hand .card.drawn")).to_have_attribute("title", "net gepakt")
    expect(bob.locator("#since-list")).to_contain_text("Ada ran out of time (penalty card)")
    # She is told too, in her language (issue 35, item 2), and reads it (OK); Bob is not.
    expect(ada.locator("#turn-news")).to_contain_text("Je tijd is om: de tafel is teruggezet en je kreeg een strafkaart: 10♦.")
    expect(bob.locator("#turn-news")).to_have_count(0)
    ada.click("#btn-news-ok")
    expect(ada.locator("#turn-news")).to_have_count(0)
    ada.reload()  # read is read: a reload does not say it again
    expect(ada.locator("#turn-banner")).to_have_text("Bob is aan de beurt")
    expect(ada.locator("#my-hand .card")).to_have_count(5)
    expect(ada.locator("#turn-news")).to_have_count(0)
    expect(ada.locator("#turn-banner")).to_have_text("Bob is aan de beurt")
    browsers.shot(bob, "classic-dutch-penalty-phone")
    # Bob swaps 6♦ for the joker standing for it (C12, Dutch "keep") and ends his turn.
    bob.click("#my-hand .card[data-face='6D']")
    bob.click(".c-meld[data-meld='2'] .card[data-face='JK=6D']")
    bob.click("#btn-swap")
    expect(bob.locator("#my-hand .card[data-face='JK']")).to_have_count(1)
    assert meld_faces(bob, 2) == ["5D", "6D", "7D"]
    bob.click("#btn-end")
    expect(ada.locator("#turn-banner")).to_have_text("Jij bent aan de beurt")
    expect(ada.locator("#since-list")).to_contain_text("Bob ruilde een joker uit comb. 2 voor 6♦")
    browsers.assert_no_console_errors()


DROP = {
    "players": ["A", "B", "C"],
    "table": [["5S", "6S", "7S"]],
    "hands": {"A": ["8S", "9D", "KC"], "B": ["3H", "10D", "QC"], "C": ["4H", "JD", "AC"]},
    "stock": ["2H", "9H", "2D", "3D"],
    "turn": "B",
}


@pytest.mark.browser
def test_a_player_who_drops_on_their_turn_does_not_stall_the_others(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", variant="classic", players=3, position=DROP,
                                     timers={"absence": 3})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    bob = seat(browsers, live_server, code, "Bob")
    cy = seat(browsers, live_server, code, "Cy")
    expect(bob.locator("#turn-banner")).to_have_text("Your turn")
    bob.goto("about:blank")  # he goes away (the same tab keeps his page's memory for his return)
    # Bob is away on his turn: his seat counts down, then the turn goes on to Cy.
    away = ada.locator(".c-seat[data-player='Bob'] .c-absent")
    expect(away).to_contain_text("Away: leaves in")
    assert 0 < int(away.locator(".clock-text").inner_text().rstrip("s")) <= 3
    expect(cy.locator("#turn-banner")).to_contain_text("away: the turn ends in")
    browsers.shot(ada, "classic-drop-away")
    expect(cy.locator("#turn-banner")).to_have_text("Your turn", timeout=10000)
    expect(cy.locator("#announce")).to_contain_text("Your turn")  # what a screen reader hears
    expect(ada.locator(".c-seat[data-player='Bob']")).to_contain_text("out of this hand")
    cy.click("#btn-draw")
    expect(ada.locator("#turn-banner")).to_have_text("Your turn")
    # C31 (b): his turn ended as at C20 first (a penalty card), then he left: one line.
    expect(ada.locator("#since-list li[data-player='Bob']")).to_have_text("Bob left the hand (penalty card)")
    expect(ada.locator("#since-list")).to_contain_text("Cy drew")
    # Ada asks for a hint: the shark's turn in words, its card and meld highlighted; she follows it.
    ada.click("#btn-hint")
    expect(ada.locator("#hint-box")).to_contain_text("add 8♠ to meld 1")
    expect(ada.locator("#hint-box li").last).to_have_text("2. End turn")
    expect(ada.locator("#my-hand .card.hinted")).to_have_attribute("data-face", "8S")
    expect(ada.locator(".c-meld.hinted")).to_have_attribute("data-meld", "1")
    browsers.shot(ada, "classic-hint")
    ada.click("#my-hand .card[data-face='8S']")
    ada.click(".c-meld[data-meld='1'] .meld-head")
    ada.keyboard.press("e")
    expect(cy.locator("#turn-banner")).to_have_text("Your turn")
    expect(ada.locator("#hint-box")).to_have_count(0)
    # Bob comes back: he is told what his absence did (issue 35, item 2), not only the others.
    bob.goto(f"{live_server.url}/t/{code}")
    expect(bob.locator("#turn-news")).to_contain_text(
        "You were away too long: the table is back as it was and you drew a penalty card: 2♥, and you left the hand.")
    expect(cy.locator("#turn-news")).to_have_count(0)
    browsers.assert_no_console_errors()
