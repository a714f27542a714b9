"""Clocks and marks the table shows: a hold (the card shown as taken, with its 10 s), an
absent player's 90 s, and a tie-break (its 2 minutes, the tied players' cards face up, and
a card played from the other player's pile); also ending a play (E) and giving up a Stop!."""

from __future__ import annotations

import test_web_support as web
from test_web_support import (
    Browsers,
    api_create_table,
    api_join,
    expect,
    expect_meld,
)

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

HOLD_POSITION = {
    "table": [["5H", "6H", "7H", "8H"], ["9S", "10S", "JS"]],
    "hands": {"A": ["5S", "5D", "KC"], "B": ["QS", "2D"], "C": ["3C"]},
    "stocks": {"A": ["4C"], "B": ["4D"], "C": ["4S"]},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


def test_a_hold_shows_as_taken_with_its_clock(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=HOLD_POSITION)
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#seat-list")).to_contain_text("Ada")
    bob = browsers.page("bob")
    bob.goto(f"{live_server.url}/t/{code}")
    bob.fill("#name", "Bob")
    bob.click("#gate-join")
    api_join(live_server, code, "Cy")  # Cy never connects: he is away
    expect(ada.locator("#board")).to_be_visible()
    # (after the deal's connection grace, CONNECT_GRACE = 10 s)
    expect(bob.locator("[data-player='Cy'] .line.warn")).to_contain_text("Away, leaves in", timeout=15000)
    expect(bob.locator("[data-player='Cy'] .clock.absence")).to_be_visible()

    # Without a declaration the table cannot be touched: the server says why.
    ada.click(".meld[data-meld='1'] .card[data-face='5H']")
    ada.locator("body").press("t")
    expect(ada.locator("#toast")).to_contain_text("Declare first")
    # A play that only staged a card and ends (E) gives the card back.
    ada.click("#my-hand .card[data-face='5S']")
    ada.locator("body").press("s")
    expect(ada.locator("#my-staging .card")).to_have_count(1)
    ada.locator("body").press("e")
    expect(ada.locator("#my-staging .card")).to_have_count(0)
    expect(ada.locator("#notices")).to_contain_text("Back from staging: 5♠.")
    # Declared (5S staged), Ada takes 5H: Bob sees it taken, with Ada's 10-second clock.
    ada.click("#my-hand .card[data-face='5S']")
    ada.click(".zone.staging")
    expect(ada.locator("#my-staging .card")).to_have_count(1)
    ada.click(".meld[data-meld='1'] .card[data-face='5H']")
    ada.click("#btn-take")
    held = bob.locator(".meld[data-meld='1'] .card.held[data-face='5H']")
    expect(held).to_be_visible()
    expect(held).to_contain_text("taken")
    expect(bob.locator("[data-player='Ada'] .clock.hold")).to_be_visible()
    expect(ada.locator(".me [data-player='Ada']")).to_contain_text("You hold 5♥")
    browsers.shot(bob, "clocks-01-hold")
    # Bob cannot pick it up: a held card is not selectable.
    bob.click(".meld[data-meld='1'] .card[data-face='5H']")
    expect(bob.locator("#toast")).to_contain_text("Another player is holding that card.")
    expect(bob.locator(".card.selected")).to_have_count(0)

    # Ada drops it on a new meld (N), stages 5D and places both fives there.
    ada.locator("body").press("n")
    expect(ada.locator(".meld[data-meld='3'] .card")).to_have_count(1)
    expect(bob.locator(".card.held")).to_have_count(0)
    ada.click("#my-hand .card[data-face='5D']")
    ada.click(".zone.staging")
    ada.click("#my-staging .card[data-face='5S']")
    ada.click("#my-staging .card[data-face='5D']")
    ada.click(".meld[data-meld='3']")
    expect(bob.locator(".meld[data-meld='3'] .card")).to_have_count(3)
    expect_meld(bob, 1, ["6H", "7H", "8H"])

    # Ada calls Stop! with the keyboard (and confirms), then gives up (after a confirmation): eliminated.
    ada.locator("body").press("!")
    ada.click("#confirm-ok")
    expect(bob.locator(".banner.freeze")).to_contain_text("Ada called Stop!")
    expect(ada.locator(".banner.freeze")).to_contain_text("Your Stop!")
    # On a small screen the page does not scroll (the table does): the top bar with the game
    # clocks stays in sight above the table, the hand below it; on a wide one the clocks are
    # repeated in the player's own panel beside the hand.
    bob.set_viewport_size({"width": 412, "height": 600})
    expect(bob.locator("#my-hand .card").first).to_be_in_viewport()
    expect(bob.locator("#clock-freeze")).to_be_in_viewport()
    expect(bob.locator("#clock-freeze")).to_contain_text("Stop! by Ada")
    bob.set_viewport_size({"width": 1280, "height": 900})
    expect(bob.locator("#my-clock-freeze")).to_be_in_viewport()
    expect(bob.locator("#my-clock-freeze")).to_contain_text("Stop! by Ada")
    ada.click("#btn-give-up")
    expect(ada.locator("#confirm-text")).to_contain_text("Give up now? Your Stop! ends")
    ada.click("#confirm-ok")
    expect(ada.locator(".banner.out")).to_contain_text("You are eliminated from this hand")
    expect(bob.locator("#notices")).to_contain_text("Ada is eliminated")
    expect(bob.locator("#clock-freeze")).to_have_count(0)
    expect(bob.locator("#btn-draw")).to_be_enabled()
    browsers.assert_no_console_errors()


TIE_POSITION = {
    "table": [["10S", "JS", "QS"]],
    "hands": {"A": ["2H", "3C"], "B": ["KS", "4D"], "C": ["5D", "6C", "9D"]},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


def test_a_tie_break_is_played_from_the_shared_pile(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=TIE_POSITION,
                                     timers={"inactivity": 3})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    api_join(live_server, code, "Bob")
    api_join(live_server, code, "Cy")
    # Every stock is empty: after 3 s of silence Ada and Bob are tied on two cards.
    expect(ada.locator("#clock-tiebreak")).to_be_visible(timeout=10000)
    expect(ada.locator(".banner.tiebreak")).to_contain_text("Tie-break between Ada, Bob")
    pile = ada.locator("[data-player='Bob'] .pile-view .card")
    expect(pile).to_have_count(2)
    browsers.shot(ada, "clocks-02-tiebreak")
    # Ada plays Bob's KS (from the shared pile) onto the spades run and wins the tie-break.
    ada.click("[data-player='Bob'] .pile-view .card[data-face='KS']")
    ada.click(".meld[data-meld='1']")
    expect(ada.locator("#result-title")).to_contain_text("You won the hand")
    expect(ada.locator("#result-title")).to_contain_text("tie-break")
    expect(ada.locator("#hand-scores tr[data-player='Ada']")).to_contain_text(
        "tie-break: 50 + 1 pile cards of the others + 3 cards outside")
    expect_meld(ada, 1, ["10S", "JS", "QS", "KS"])
    browsers.assert_no_console_errors()
