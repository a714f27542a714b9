"""A long game in the browser, in three languages: the count, the scores and why, the pause
with Ready, the table of scores by hand, leaving a hand and leaving the game (each with its
confirmation), a spectator, and the final result.

Ada plays in English, Bob in Italian, Cy in Dutch; at the end no page has asked for a string
its language lacks. Hand 1 is stacked (Ada lays a run she holds and goes out), hand 2 is dealt
from the seed: Bob and Cy leave it, so Ada wins as the last one left; in the second pause Bob
leaves the game and Ada, in the lead, wins it.
"""

from __future__ import annotations

import re

import test_web_support as web
from test_web_support import (
    Browsers,
    api_create_table,
    expect,
    expect_meld,
    mouse_drag,
)

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

POSITION = {
    "hands": {"A": ["7C", "8C", "9C"], "B": ["2H", "3D"], "C": ["KS"]},
    "stocks": {"A": ["4S"]},
    "drew": ["A"],
    "laid": ["A"],
}


def confirm(page) -> None:
    """Answer the confirmation dialog (a real <dialog>) with its OK button."""
    expect(page.locator("dialog#confirm[open]")).to_be_visible()
    page.click("#confirm-ok")


def test_long_game_pause_ready_leave_and_final_result(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", "long", position=POSITION, seed=11,
                                     timers={"pause": 120})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#seat-list")).to_contain_text("Ada")

    bob = browsers.page("bob")
    bob.goto(live_server.url + "/")
    bob.select_option("#lang", "it")
    expect(bob.locator("label[for='name']")).to_have_text("Il tuo nome")
    bob.fill("#name", "Bob")
    bob.fill("#join-code", f"{live_server.url}/t/{code}")  # a pasted link works too
    bob.click("#join-btn")
    expect(bob.locator("#seat-list")).to_contain_text("Bob")

    cy = browsers.page("cy")
    cy.goto(f"{live_server.url}/t/{code}")
    cy.select_option("#lang", "nl")
    expect(cy.locator("#gate-title")).to_have_text(f"Aan tafel {code}")
    cy.fill("#name", "Cy")
    cy.click("#gate-join")
    for page in (ada, bob, cy):
        expect(page.locator("#board")).to_be_visible()

    # Hand 1: Ada selects her three clubs and drags them together onto "New meld": she goes out.
    for face in ("7C", "8C", "9C"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    mouse_drag(ada, "#my-hand .card[data-face='8C']", ".new-meld")
    expect(ada.locator("#result")).to_be_visible()
    expect_meld(ada, 1, ["7C", "8C", "9C"])
    expect(ada.locator("#result-title")).to_contain_text("You won the hand")
    expect(bob.locator("#result-title")).to_contain_text("Mano vinta da Ada")
    expect(cy.locator("#result-title")).to_contain_text("Hand gewonnen door Ada")
    expect(bob.locator("#hand-scores tr[data-player='Ada']")).to_contain_text(
        "50 − 1 rimaste nel proprio mazzo + 3 nelle mani degli altri")
    expect(cy.locator("#hand-scores tr[data-player='Bob']")).to_contain_text("verloren")
    for page in (ada, bob, cy):
        expect(page.locator("#long-table tbody tr")).to_have_count(1)
        expect(page.locator("#clock-pause")).to_be_visible()
        expect(page.locator("#btn-ready")).to_be_enabled()
    expect(ada.locator("#long-table tfoot")).to_contain_text("52")
    browsers.shot(bob, "long-01-pause-it")

    # A fourth person opening the link only watches.
    dee = browsers.page("dee")
    dee.goto(f"{live_server.url}/t/{code}")
    expect(dee.locator("#result")).to_be_visible()
    expect(dee.locator(".banner")).to_contain_text("You are watching")
    expect(dee.locator("#my-hand")).to_have_count(0)

    # The pause ends early when all three are ready.
    ada.click("#btn-ready")
    expect(bob.locator("[data-player='Ada'] .badge.ok")).to_have_text("c'è")
    bob.click("#btn-ready")
    cy.click("#btn-ready")
    expect(ada.locator(".topbar")).to_contain_text("Hand 2")
    expect(bob.locator(".topbar")).to_contain_text("Mano 2")
    expect(cy.locator(".topbar")).to_contain_text("Hand 2")
    expect(ada.locator("#result")).to_have_count(0)
    expect(ada.locator("#btn-draw")).to_be_enabled()
    browsers.shot(cy, "long-02-hand-2-nl")

    # Hand 2: Bob and Cy leave it, each after a confirmation; a refusal to confirm changes nothing.
    bob.click("#btn-leave")
    expect(bob.locator("#confirm-text")).to_contain_text("Abbandonare questa mano?")
    bob.click("#confirm-cancel")
    expect(bob.locator("#btn-draw")).to_be_enabled()
    bob.click("#btn-leave")
    confirm(bob)
    expect(bob.locator(".banner.out")).to_contain_text("Hai abbandonato questa mano")
    cy.click("#btn-leave")
    confirm(cy)
    for page in (ada, bob, cy, dee):
        expect(page.locator("#long-table tbody tr")).to_have_count(2)
    expect(ada.locator("#result-title")).to_contain_text("last one left")
    expect(ada.locator("#hand-scores tr[data-player='Cy']")).to_contain_text("left: −15")
    totals = ada.locator("#long-table tfoot td")
    expect(totals).to_have_text(["68", "\u221215", "\u221215"])
    browsers.shot(ada, "long-03-second-pause")

    # Bob leaves the game in the pause: it ends at once and Ada, in the lead, wins it.
    bob.click("#btn-leave-game")
    confirm(bob)
    for page in (ada, bob, cy, dee):
        expect(page.locator("#final-result")).to_be_visible()
    expect(ada.locator("#final-result")).to_contain_text("You won the game!")
    expect(bob.locator("#final-result")).to_contain_text("Ada ha vinto la partita.")
    expect(cy.locator("#final-result")).to_contain_text("Ada heeft het spel gewonnen.")
    expect(cy.locator("#notices")).to_contain_text(re.compile("Bob heeft het spel verlaten"))
    browsers.shot(cy, "long-04-final-nl")

    for page in (ada, bob, cy, dee):
        assert page.evaluate("[...window.__mvxI18n.missing]") == [], "strings missing in a language"
    browsers.assert_no_console_errors()
