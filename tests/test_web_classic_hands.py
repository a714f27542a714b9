"""A classic match played by hand to its end, every hand (issue 35, item 1).

From hand 2 on, the seat on turn read "Your turn" in the banner while its dock said "Waiting
for <its own name> to play" with no End turn, Draw, Reset or Hint: the client took the last
hand's ``result`` (which the view keeps, docs/protocol.md) for "this hand is over". These
matches are three stacked hands (``position.decks``, five cards each) with short clocks, and
every hand is played by a person through the page:

* two people at an Italian table (nobody goes out on a first turn, C16): hand 1 Ada goes out;
  Ready, hand 2 Bob draws, Ada draws, Bob goes out; the pause runs out, hand 3 Ada draws after
  a reload, Bob draws, Ada goes out; the match is over after three deals;
* four people at a Dutch table (a turn clock, C20): hand 1 Ada goes out, hand 2 Bob goes out on
  his first turn after a reload, hand 3 Cy draws with the D key and Dee goes out;
* a person and a bot: the bot starts hand 2 and draws, Ada goes out; hand 3 Ada goes out by a
  drag, clicks and the E key.

And item 2 at the hands' ends: the move that went out in words, "In hand" in points (English
and Dutch), the result put aside to look at the final table (its out melds marked, on a
desktop and a phone) and brought back, kept through a reload.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
import test_web_support as web
from test_web_classic_table import PHONE, no_page_scroll, seat
from test_web_support import Browsers, api_create_table, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

JUNK = ["2S", "5D", "9C", "KD", "QS"]  # no meld in it, nor with one more card below


def two_deck(first: list[str], second: list[str], stock: list[str]) -> list[str]:
    """The top of a two-seat hand's deck: the starter's five, the other's five, the stock."""
    return first + second + stock


def go_out(page: Any, faces: list[str]) -> None:
    """Select ``faces`` in my hand, lay them as a new meld, End turn (the buttons must be there)."""
    expect(page.locator("#turn-banner")).to_have_text("Your turn")
    expect(page.locator("#btn-end")).to_be_visible()
    for face in faces:
        page.click(f"#my-hand .card[data-face='{face}']")
    page.click("#new-meld")
    expect(page.locator("#my-hand .card")).to_have_count(0)
    page.click("#btn-end")


def draw(page: Any, *, key: bool = False, your_turn: str = "Your turn") -> None:
    expect(page.locator("#turn-banner")).to_have_text(your_turn)
    expect(page.locator("#wait-turn")).to_have_count(0)
    expect(page.locator("#btn-draw")).to_be_enabled()
    expect(page.locator("#btn-hint")).to_be_visible()
    if key:
        page.keyboard.press("d")
    else:
        page.click("#btn-draw")
    expect(page.locator("#btn-end")).to_have_count(0)


def dealt(pages: list[Any], n: int, cards: int = 5, timeout: float = 8000) -> None:
    """Hand ``n`` is dealt on every page (``timeout`` ms: longer when a pause must run out)."""
    for p in pages:
        expect(p.locator("#hand-chip")).to_contain_text(f"Hand {n}", timeout=timeout)
        expect(p.locator("#my-hand .card")).to_have_count(cards)


def hand_won(pages: list[Any], winner: str) -> None:
    for p in pages:
        expect(p.locator("#result-title")).to_be_visible()
    assert pages[0].evaluate("window.__mvx.S.game.result.winner") == winner


ITALIAN = {
    "players": ["A", "B"],
    "hands": {"A": ["7C", "8C", "9C"], "B": ["2H", "3D", "KS"]},
    "stock": ["4S", "5S", "6S", "7S"],
    "decks": {
        # Hand 2, Bob starts (C21): he draws 8♥ and goes out on his second turn.
        "2": two_deck(["3H", "4H", "5H", "6H", "7H"], JUNK, ["8H", "10D"]),
        # Hand 3, Ada starts: she draws 10♣ and goes out on her second turn.
        "3": two_deck(["5C", "6C", "7C", "8C", "9C"], JUNK, ["10C", "10D"]),
    },
}


@pytest.mark.browser
def test_two_people_play_an_italian_match_of_three_hands(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", "long", variant="classic_italian", players=2,
                                     options={"hand": 5}, position=ITALIAN, timers={"pause": 4})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    bob = seat(browsers, live_server, code, "Bob")
    both = [ada, bob]

    go_out(ada, ["7C", "8C", "9C"])
    hand_won(both, "Ada")
    # Item 4: the hand that just ended can be watched again.
    expect(bob.locator("#replay-link")).to_have_attribute("href", f"/replay/{code}/1")
    # Item 2: the move that went out, and "In hand" in points (2♥ 3♦ K♠: 15, C25).
    expect(bob.locator("#out-move")).to_have_text("Ada went out: laid 7♣ 8♣ 9♣.")
    expect(ada.locator("#out-move")).to_have_text("You went out.")
    expect(bob.locator("#hand-scores tr[data-player='Bob'] td").first).to_have_text("15 points")
    expect(bob.locator("#hand-scores tr[data-player='Ada'] td").first).to_have_text("0 points")
    for p in both:  # Ready: hand 2 at once (C31)
        p.click("#btn-ready")
    dealt(both, 2)
    expect(ada.locator("#turn-banner")).to_have_text("Bob's turn")
    expect(ada.locator("#wait-turn")).to_have_text("Waiting for Bob to play.")
    draw(bob)
    draw(ada)
    go_out(bob, ["3H", "4H", "5H", "6H", "7H", "8H"])
    hand_won(both, "Bob")

    # Nobody presses Ready: the pause runs out and hand 3 is dealt.
    dealt(both, 3)
    ada.reload()
    expect(ada.locator("#my-hand .card")).to_have_count(5)
    draw(ada)
    draw(bob, key=True)
    go_out(ada, ["5C", "6C", "7C", "8C", "9C", "10C"])
    for p in both:
        expect(p.locator("#final-result")).to_be_visible()
    view = ada.evaluate("window.__mvx.S.game")
    assert view["match"]["over"] and view["match"]["hand"] == 3
    assert view["result"]["winner"] == "Ada"

    # Item 2: the final table under the result: Bob puts the result aside, looks at the table
    # (the melds of the move that went out marked), and brings the result back.
    expect(bob.locator("#out-move")).to_have_text("Ada went out: laid 5♣ 6♣ 7♣ 8♣ 9♣ 10♣.")
    expect(bob.locator("#hand-scores tr[data-player='Bob'] td").first).to_have_text("46 points")
    browsers.shot(bob, "classic-final-result")
    bob.click("#btn-hide-result")
    expect(bob.locator("#result")).to_have_count(0)
    expect(bob.locator("#btn-show-result")).to_be_focused()
    out = bob.locator(".c-meld.went-out")
    expect(out).to_have_count(1)
    expect(out).to_be_visible()
    expect(out.locator(".meld-tag.c-out")).to_have_text("went out here")
    assert out.locator(".card").evaluate_all("els => els.map(e => e.dataset.face)") == ["5C", "6C", "7C", "8C", "9C", "10C"]
    browsers.shot(bob, "classic-final-table")
    bob.click("#btn-show-result")
    expect(bob.locator("#final-result")).to_be_visible()
    expect(bob.locator("#btn-hide-result")).to_be_focused()
    bob.reload()
    expect(bob.locator("#final-result")).to_be_visible()
    expect(bob.locator("#out-move")).to_have_text("Ada went out: laid 5♣ 6♣ 7♣ 8♣ 9♣ 10♣.")
    expect(bob.locator("#replay-link")).to_have_attribute("href", f"/replay/{code}/3")

    # Item 3: Play again at the match's end, as at a Machiavelox table: Ada asks, Bob is asked
    # and accepts, and both sit at one new table with the same rules.
    ada.click("#btn-again")
    ada.wait_for_url(re.compile(r"/t/(?!" + code + r")[A-Z0-9]{6}$"))
    new_code = ada.url.rsplit("/", 1)[1]
    expect(bob.locator("#again-ask")).to_contain_text("Ada")
    bob.click("#btn-again-accept")
    bob.wait_for_url(f"**/t/{new_code}")
    with httpx.Client(base_url=live_server.url, trust_env=False, timeout=10) as http:
        table = http.get(f"/api/tables/{new_code}").json()
    assert (table["variant"], table["size"]) == ("classic_italian", 2), table
    assert sorted(table["seats"]) == ["Ada", "Bob"], table
    browsers.assert_no_console_errors()


FOUR = ["A", "B", "C", "D"]
DUTCH = {
    "players": FOUR,
    "hands": {"A": ["7C", "8C", "9C"], "B": ["2H", "3D", "KS"], "C": ["4D", "6S"], "D": ["QH", "2C"]},
    "stock": ["4S", "5S", "6S", "7S"],
    "decks": {
        # Hand 2: Bob starts (then Cy, Dee, Ada) and goes out on his first turn.
        "2": ["3H", "4H", "5H", "6H", "7H"] + JUNK + ["2D", "5S", "9H", "KC", "QD"] + ["4C", "6D", "10H", "JC", "AS"],
        # Hand 3: Cy starts (then Dee, Ada, Bob): Cy draws, Dee goes out.
        "3": JUNK + ["AD", "2D", "3D", "4D", "5D"] + ["2H", "5C", "9S", "KH", "QC"] + ["4C", "6H", "10S", "JH", "AC"]
        + ["10D"],
    },
}


@pytest.mark.browser
def test_four_people_play_a_dutch_match_of_three_hands(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", "long", variant="classic_dutch", players=4,
                                     options={"hand": 5, "match": "deals", "deals": 3}, position=DUTCH,
                                     timers={"pause": 10, "clock": 30})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    bob = seat(browsers, live_server, code, "Bob")
    cy = browsers.page("cy")
    cy.context.add_init_script("localStorage.setItem('mvx.lang', 'nl')")  # Cy reads Dutch
    cy.goto(f"{live_server.url}/t/{code}")
    cy.fill("#name", "Cy")
    cy.click("#gate-join")
    dee = seat(browsers, live_server, code, "Dee", viewport=PHONE)
    everyone = [ada, bob, cy, dee]

    go_out(ada, ["7C", "8C", "9C"])
    hand_won(everyone, "Ada")
    # The pause runs out. (Ten seconds: four people press Ready after hand 2 within it, even on
    # a loaded machine; with three, the last press sometimes came after the deal.)
    dealt(everyone, 2, timeout=25000)
    bob.reload()
    expect(bob.locator("#my-hand .card")).to_have_count(5)
    go_out(bob, ["3H", "4H", "5H", "6H", "7H"])
    hand_won(everyone, "Bob")

    for p in everyone:
        p.click("#btn-ready")
    dealt(everyone, 3)
    expect(dee.locator("#wait-turn")).to_have_text("Waiting for Cy to play.")
    draw(cy, key=True, your_turn="Jij bent aan de beurt")
    go_out(dee, ["AD", "2D", "3D", "4D", "5D"])
    for p in everyone:
        expect(p.locator("#final-result")).to_be_visible()
    view = dee.evaluate("window.__mvx.S.game")
    assert view["match"]["over"] and view["match"]["hand"] == 3
    assert view["result"]["winner"] == "Dee"
    # Item 2 in Dutch, and on a phone: the move that went out, "In hand" in points (penalty
    # scoring, low values: Cy's 2♠ 5♦ 9♣ K♦ Q♠ and the 10♦ he drew, 46), the final table.
    expect(cy.locator("#out-move")).to_have_text("Dee ging uit: legde A♦ 2♦ 3♦ 4♦ 5♦.")
    expect(cy.locator("#hand-scores tr[data-player='Cy'] td").first).to_have_text("46 punten")
    dee.click("#btn-hide-result")
    expect(dee.locator(".c-meld.went-out")).to_be_visible()
    no_page_scroll(dee)
    browsers.shot(dee, "classic-final-table-phone")
    dee.click("#btn-show-result")
    expect(dee.locator("#final-result")).to_be_visible()
    browsers.assert_no_console_errors()


BOT = {
    "players": ["A", "B"],
    "hands": {"A": ["7C", "8C", "9C"], "B": ["2H", "3D", "KS"]},
    "stock": ["4S", "5S", "6S", "7S"],
    "decks": {
        # Hand 2: the bot starts with nothing to lay and draws; Ada goes out.
        "2": two_deck(JUNK, ["3H", "4H", "5H", "6H", "7H"], ["JD", "JD"]),
        # Hand 3: Ada starts and goes out at once.
        "3": two_deck(["5C", "6C", "7C", "8C", "9C"], JUNK, ["JD"]),
    },
}


@pytest.mark.browser
def test_a_person_and_a_bot_play_a_match_of_three_hands(live_server: Any, browsers: Browsers) -> None:
    code, session = api_create_table(
        live_server, "Ada", "long", variant="classic", players=2,
        options={"hand": 5, "match": "deals", "deals": 3}, position=BOT, timers={"pause": 3},
        bots={"level": "casual", "count": 1, "pace": "none", "reaction": 0.2})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    go_out(ada, ["7C", "8C", "9C"])
    hand_won([ada], "Ada")
    dealt([ada], 2)
    go_out(ada, ["3H", "4H", "5H", "6H", "7H"])  # after the bot drew
    hand_won([ada], "Ada")
    ada.click("#btn-ready")
    dealt([ada], 3)
    # Hand 3 by drag and keys: 5♣ dragged to New meld, the rest added to it, E ends the turn.
    expect(ada.locator("#btn-end")).to_be_visible()
    web.mouse_drag(ada, "#my-hand .card[data-face='5C']", "#new-meld")
    expect(ada.locator(".c-meld[data-meld='1'] .card")).to_have_count(1)
    for face in ("6C", "7C", "8C", "9C"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.click(".c-meld[data-meld='1'] .meld-head")
    expect(ada.locator("#my-hand .card")).to_have_count(0)
    ada.keyboard.press("e")
    expect(ada.locator("#final-result")).to_be_visible()
    view = ada.evaluate("window.__mvx.S.game")
    assert view["match"]["over"] and view["match"]["winner"] == "Ada"
    # Play again (item 3): the bot is seated again, so the new match is dealt at once.
    ada.click("#btn-again")
    ada.wait_for_url(re.compile(r"/t/(?!" + code + r")[A-Z0-9]{6}$"))
    new_code = ada.url.rsplit("/", 1)[1]
    # (a test table's stacked position is kept by Play again: the same three cards)
    expect(ada.locator("#my-hand .card")).to_have_count(3)
    with httpx.Client(base_url=live_server.url, trust_env=False, timeout=10) as http:
        table = http.get(f"/api/tables/{new_code}").json()
    assert table["variant"] == "classic" and len(table["seats"]) == 2, table
    assert table["phase"] == "hand", table
    browsers.assert_no_console_errors()
