"""The browser client in a real browser: three players play a stacked hand to its end.

Playwright drives Debian's Chromium (``/usr/bin/chromium``; Playwright's own browser download
does not work here) against a real uvicorn (``serverhelpers.LiveServer``). The hand, from a
test-only stacked position, goes through every gesture the client offers:

* Ada draws with the keyboard (D), then opens a direct play that stays open (2♠ on the hearts
  run) and adds 7♣ to the clubs run (click to select, click the meld);
* Bob (a touch screen) drags 8♣ onto the clubs run with his finger: his play needs Ada's 7♣;
* Ada cancels her play with the X key: Bob's play falls, and Bob, only Bob, is told that 8♣
  came back because Ada's play failed (the chain undo notice, §5.5);
* Ada adds 7♣ again with the keyboard only (Tab, Space, Shift+Tab, Enter), Cy lays a set of queens (a lay), then declares 5♠ 5♦ and moves
  5♥ out of the hearts run with the mouse to make a new set (a declared rearrangement);
* Bob reloads his page in the middle of the hand and finds his seat and his hand;
* Cy calls Stop!; Bob's draw is refused with the server's sentence and nothing changes;
  Cy lays his last three cards and goes out; everyone sees the count and the scores.

No page may log a console error; screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
import test_web_support as web
from test_web_support import (
    ARTIFACTS,
    Browsers,
    api_create_table,
    api_join,
    expect,
    expect_meld,
    hand_faces,
    mouse_drag,
    staged_faces,
    tab_to,
    touch_drag,
)

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

POSITION = {
    "table": [["4C", "5C", "6C"], ["9H", "10H", "JH"], ["5H", "6H", "7H", "8H"]],
    "hands": {
        "A": ["7C", "2S", "KD"],
        "B": ["8C", "3H", "9S"],
        "C": ["QS", "QD", "QH", "5S", "5D", "10C", "JC", "QC"],
    },
    "stocks": {"A": ["KH", "2D"], "B": ["KS", "4D"], "C": ["2C"]},
    "removed": ["AS", "AH"],
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


def test_three_players_play_a_stacked_hand_to_the_end(live_server, browsers: Browsers) -> None:
    code, ada_session = api_create_table(live_server, "Ada", position=POSITION, timers={"play": 90})

    ada = browsers.page("ada", session=ada_session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#seat-list")).to_contain_text("Ada")

    # Bob joins from the home page with the code; Cy opens the invitation link.
    bob = browsers.page("bob", touch=True)
    bob.goto(live_server.url + "/")
    bob.fill("#name", "Bob")
    bob.fill("#join-code", code.lower())
    bob.click("#join-btn")
    expect(bob.locator("#seat-list")).to_contain_text("Bob")
    expect(ada.locator("#seat-list")).to_contain_text("Bob")

    cy = browsers.page("cy")
    cy.goto(f"{live_server.url}/t/{code}")
    cy.fill("#name", "Cy")
    cy.click("#gate-join")

    for page in (ada, bob, cy):
        expect(page.locator("#board")).to_be_visible()
        expect(page.locator("#conn-status")).to_have_text("Connected")
    expect(ada.locator("#my-hand .card")).to_have_count(3)
    assert Counter(hand_faces(cy)) == Counter(POSITION["hands"]["C"])
    # The removed cards sit in their corner and can be hidden and shown.
    expect(ada.locator("#removed-cards .card")).to_have_count(2)
    ada.click("#toggle-removed")
    expect(ada.locator("#removed-cards")).to_have_count(0)
    ada.click("#toggle-removed")
    expect(ada.locator("#removed-cards .card")).to_have_count(2)
    browsers.shot(ada, "01-dealt-ada")

    # A keyboard-only action: Ada draws with D.
    ada.locator("body").press("d")
    expect(ada.locator("#my-hand .card")).to_have_count(4)
    assert "KH" in hand_faces(ada)
    expect(bob.locator("[data-player='Ada'] .count-n").first).to_have_text("4")

    # Ada's direct play: 2S onto the hearts run (it stays wrong, so her play stays open),
    # then 7C onto the clubs run, both by click-select then click-target.
    ada.click("#my-hand .card[data-face='2S']")
    ada.click(".meld[data-meld='2'] .meld-head")
    expect(ada.locator(".meld[data-meld='2'] .card")).to_have_count(4)
    ada.click("#my-hand .card[data-face='7C']")
    ada.click(".meld[data-meld='1'] .meld-head")
    expect(ada.locator(".meld[data-meld='1'] .card")).to_have_count(4)
    # The open play shows on everyone's table: the melds it reworks are in Ada's colour,
    # her cards are on trial, and her 90-second clock runs.
    expect(bob.locator(".meld[data-meld='1']")).to_have_class(__import__("re").compile(r"\breworked\b"))
    expect(bob.locator(".meld[data-meld='1'] .card.on-trial")).to_have_count(1)
    expect(bob.locator("[data-player='Ada'] .clock.play")).to_be_visible()

    # Bob, on a touch screen, drags 8C onto the clubs run with his finger.
    touch_drag(bob, "#my-hand .card[data-face='8C']", ".meld[data-meld='1']")
    expect(bob.locator(".meld[data-meld='1'] .card")).to_have_count(5)
    expect_meld(ada, 1, ["4C", "5C", "6C", "7C", "8C"])
    # Bob's play is confirmed but leans on Ada's open play: the meld is marked not final.
    expect(ada.locator(".meld[data-meld='1'] .meld-tag.unsafe")).to_be_visible()
    expect(bob.locator(".me [data-player='Bob']")).to_contain_text("not final yet")
    browsers.shot(bob, "02-bob-added-by-touch")

    # Ada cancels her play (X): her 7C leaves, so Bob's 8C falls with it (§5.5).
    ada.locator("body").press("x")
    expect(ada.locator(".meld[data-meld='1'] .card")).to_have_count(3)
    expect(bob.locator("#my-hand .card[data-face='8C']")).to_have_count(1)
    notice = bob.locator("#notices .notice.hits-me")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text("8♣")
    expect(notice).to_contain_text("Ada")
    expect(notice).to_contain_text("came back to your hand")
    browsers.shot(bob, "03-bob-chain-undo-notice")
    for other in (ada, cy):
        expect(other.locator("#notices")).not_to_contain_text("came back to your hand")
        expect(other.locator("#notices .notice.hits-me")).to_have_count(0)

    # An add, keyboard only: Ada tabs to 7C, selects it with Space, goes back to the clubs
    # run with Shift+Tab and puts it there with Enter. Her direct play is confirmed.
    tab_to(ada, "hand:7C:0")
    ada.keyboard.press("Space")
    expect(ada.locator("#my-hand .card[data-face='7C']")).to_have_attribute("aria-pressed", "true")
    tab_to(ada, "meld:1", backwards=True)
    ada.keyboard.press("Enter")
    expect(cy.locator(".meld[data-meld='1'] .card")).to_have_count(4)
    expect(ada.locator("#notices")).to_contain_text("Your play #3 was confirmed")

    # A lay: Cy stages three queens, then drags just one of them (none selected) onto
    # "New meld": as with L, the whole staging area is laid, not that one card.
    for face in ("QS", "QD", "QH"):
        cy.click(f"#my-hand .card[data-face='{face}']")
    cy.click("#btn-stage")
    expect(cy.locator("#my-staging .card")).to_have_count(3)
    mouse_drag(cy, "#my-staging .card[data-face='QD']", ".new-meld")
    expect(cy.locator("#my-staging .card")).to_have_count(0)
    expect(cy.locator(".meld[data-meld='4'] .card")).to_have_count(3)
    expect_meld(ada, 4, ["QD", "QH", "QS"], any_order=True)

    # A declared rearrangement: Cy stages 5S and 5D (declaring), drags 5H out of the hearts
    # run onto a new meld with the mouse, then places his two fives next to it.
    cy.click("#my-hand .card[data-face='5S']")
    cy.click("#my-hand .card[data-face='5D']")
    cy.click("#btn-stage")
    expect(cy.locator("#my-staging .card")).to_have_count(2)
    expect(ada.locator("[data-player='Cy'] .staging-view .card")).to_have_count(2)  # face up
    mouse_drag(cy, ".meld[data-meld='3'] .card[data-face='5H']", ".new-meld")
    expect(cy.locator(".meld[data-meld='5'] .card")).to_have_count(1)
    expect(ada.locator(".meld[data-meld='3'] .card")).to_have_count(3)
    browsers.shot(ada, "04-ada-sees-cy-rearranging")
    cy.click("#my-staging .card[data-face='5S']")
    cy.click("#my-staging .card[data-face='5D']")
    cy.click(".meld[data-meld='5'] .meld-head")

    expect(cy.locator("#my-staging .card")).to_have_count(0)
    expect(bob.locator(".meld[data-meld='5'] .card")).to_have_count(3)
    # The notices say which card went where; others' routine confirmations are folded away.
    expect(bob.locator("#notices")).to_contain_text("Cy moved 5♥ from meld 3 to meld 5.")
    expect(bob.locator("#notices")).to_contain_text("Cy placed 5♠ on meld 5.")
    expect(cy.locator("#notices")).to_contain_text("You placed 5♦ on meld 5.")
    expect(bob.locator("#notices")).not_to_contain_text("Cy's play")
    expect_meld(bob, 5, ["5D", "5H", "5S"], any_order=True)
    expect_meld(bob, 3, ["6H", "7H", "8H"])

    # A reload in the middle of the hand keeps Bob's seat and state.
    before = Counter(hand_faces(bob))
    bob.reload()
    expect(bob.locator("#board")).to_be_visible()
    expect(bob.locator(".me [data-player='Bob']")).to_be_visible()
    expect(bob.locator("#my-hand .card")).to_have_count(sum(before.values()))
    assert Counter(hand_faces(bob)) == before
    expect(bob.locator(".meld[data-meld='5'] .card")).to_have_count(3)
    expect(bob.locator("#conn-status")).to_have_text("Connected")
    expect(bob.locator("#notices .notice.hits-me")).to_have_count(1)  # the notices stay too

    # Stop!: Cy confirms it and freezes the others.
    cy.click("#btn-stop")
    cy.click("#confirm-ok")
    for page in (ada, bob, cy):
        expect(page.locator("#clock-freeze")).to_be_visible()
    expect(bob.locator(".banner.freeze")).to_contain_text("Cy called Stop!")
    browsers.shot(bob, "05-bob-frozen")
    # A refused action shows the server's sentence and changes nothing.
    bob_hand = Counter(hand_faces(bob))
    bob.locator("body").press("d")
    expect(bob.locator("#toast")).to_contain_text("frozen by a Stop!")
    assert Counter(hand_faces(bob)) == bob_hand
    assert staged_faces(bob) == []

    # Cy goes out: his last three cards make a run.
    for face in ("10C", "JC", "QC"):
        cy.click(f"#my-hand .card[data-face='{face}']")
    cy.click("#btn-lay")
    for page in (ada, bob, cy):
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#hand-scores")).to_be_visible()
        expect(page.locator("#final-result")).to_be_visible()
    expect(cy.locator("#result-title")).to_contain_text("You won the hand")
    expect(ada.locator("#result-title")).to_contain_text("Hand won by Cy")
    # 50 − 1 card in Cy's stock + 3 (Ada) + 3 (Bob) = 55.
    row = ada.locator("#hand-scores tr[data-player='Cy']")
    expect(row).to_contain_text("+55")
    expect(row).to_contain_text("50 − 1 left in own stock + 6 in the others' hands")
    expect(ada.locator("#hand-scores tr[data-player='Bob']")).to_contain_text("lost")
    expect(bob.locator("#notices")).to_contain_text("Cy went out!")
    browsers.shot(ada, "06-ada-end-of-hand")
    browsers.shot(cy, "07-cy-won")

    browsers.assert_no_console_errors()
    assert (ARTIFACTS / "06-ada-end-of-hand.png").is_file()


@pytest.mark.parametrize("lang,expected,agora", [("it", "Il tuo nome", "Mettiti in coda nell'agorà"),
                                                 ("nl", "Je naam", "In de wachtrij van de agora")])
def test_languages_switch_and_are_remembered(live_server, browsers: Browsers, lang: str, expected: str,
                                             agora: str) -> None:
    page = browsers.page("lang-" + lang)
    page.goto(live_server.url + "/")
    # The agora is open (tests/test_web_agora.py plays it) and the ranking is one link away.
    expect(page.locator("#agora-btn")).to_be_enabled()
    expect(page.locator("#agora-btn")).to_have_text("Join the agora queue")
    expect(page.locator("#ranking-link")).to_have_text("See the full ranking")
    page.select_option("#lang", lang)
    expect(page.locator("label[for='name']")).to_have_text(expected)
    expect(page.locator("#agora-btn")).to_have_text(agora)
    page.reload()
    expect(page.locator("label[for='name']")).to_have_text(expected)
    assert page.evaluate("document.documentElement.lang") == lang
    browsers.shot(page, f"home-{lang}")
    page.select_option("#lang", "en")
    expect(page.locator("label[for='name']")).to_have_text("Your name")
    browsers.assert_no_console_errors()


def test_create_a_game_from_the_home_page(live_server, browsers: Browsers) -> None:
    page = browsers.page("creator")
    page.goto(live_server.url + "/")
    page.fill("#name", "Zoe")
    page.click("#create-long")
    expect(page.locator("#seat-list")).to_contain_text("Zoe (you)")
    code = page.locator("#table-code").first.text_content()
    assert page.url == f"{live_server.url}/t/{code}"
    expect(page.locator("#share-link")).to_have_value(f"{live_server.url}/t/{code}")
    expect(page.locator(".waiting")).to_contain_text("Long game")
    browsers.shot(page, "home-02-waiting-room")
    # Home, then back to the table through the link the home page offers.
    page.click("#home-link")
    page.click("#last-table")
    expect(page.locator("#seat-list")).to_contain_text("Zoe (you)")
    browsers.assert_no_console_errors()


DRAW_POSITION = {
    "table": [["4H", "5H", "6H"]],
    "hands": {"A": ["KD", "2S"], "B": ["8C"], "C": ["8D"]},
    "stocks": {"A": ["3C", "4C", "JS", "9D"]},
    "drew": ["A"],
    "laid": ["A"],
}


def draws_of(server: Any, code: str, player: str) -> int:
    """The draws the server accepted from ``player`` (its journal, not the page)."""
    return sum(1 for e in server.journal(code) if e.get("kind") == "drew" and e.get("player") == player)


def test_a_double_click_on_draw_draws_one_card(live_server, browsers: Browsers) -> None:
    """Draw is busy from the send until the server's answer (issue 25): a double click, a
    D pressed twice, and a second press on a slow link (the answer held back well past the
    old 300 ms) each draw one card, counted in the server's journal."""
    code, session = api_create_table(live_server, "Ada", position=DRAW_POSITION,
                                     timers={"absence": 600, "inactivity": 600})
    api_join(live_server, code, "Bob")
    api_join(live_server, code, "Cy")
    ada = browsers.page("ada", session=session)
    held: list[str | bytes] = []
    slow = {"on": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        ws.on_message(lambda m: server.send(m))

        def to_page(m: str | bytes) -> None:
            if slow["on"]:
                held.append(m)
            else:
                ws.send(m)

        server.on_message(to_page)
        routes.append(ws)

    routes: list[Any] = []
    ada.route_web_socket(re.compile(r".*/ws/" + re.escape(code) + r".*"), route)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#my-hand .card")).to_have_count(2)
    ada.dblclick("#btn-draw")
    expect(ada.locator("#my-hand .card")).to_have_count(3)
    assert draws_of(live_server, code, "Ada") == 1
    ada.wait_for_timeout(400)  # past the repeat window of a bouncing key
    # The D key pressed twice in a row: one card too.
    ada.locator("body").press("d")
    ada.locator("body").press("d")
    expect(ada.locator("#my-hand .card")).to_have_count(4)
    assert draws_of(live_server, code, "Ada") == 2
    ada.wait_for_timeout(400)
    # A slow link: the server's answers are held back; D again 0.8 s later does nothing.
    slow["on"] = True
    ada.locator("body").press("d")
    expect(ada.locator("#btn-draw")).to_be_disabled()
    ada.wait_for_timeout(800)
    ada.locator("body").press("d")
    ada.wait_for_timeout(300)
    assert draws_of(live_server, code, "Ada") == 3
    slow["on"] = False
    for m in held:
        routes[-1].send(m)
    expect(ada.locator("#my-hand .card")).to_have_count(5)
    expect(ada.locator("#btn-draw")).to_be_enabled()
    assert draws_of(live_server, code, "Ada") == 3
    ada.wait_for_timeout(400)
    ada.locator("body").press("d")
    expect(ada.locator("#my-hand .card")).to_have_count(6)
    assert draws_of(live_server, code, "Ada") == 4
    browsers.assert_no_console_errors()
