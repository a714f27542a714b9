"""A hold follows its card through an undo (R12, issue 10): the browser shows the held card on
the meld the undo moved it to, and the holder can still drop it from there."""

from __future__ import annotations

import test_web_support as web
from test_web_support import Browsers, api_create_table, expect, expect_meld

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

POSITION = {
    "table": [["5H", "6H", "7H", "8H"], ["9C", "10C", "JC", "QC"]],
    "hands": {"A": ["2S"], "B": ["KD", "3C"], "C": ["QH", "KH"]},
    "stocks": {"A": ["4C"], "B": ["4D"], "C": ["4S"]},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


def test_a_card_held_through_an_undo_is_shown_held_on_its_new_meld(
        live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=POSITION)
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    pages = {}
    for who in ("Bob", "Cy"):
        page = browsers.page(who.lower())
        page.goto(f"{live_server.url}/t/{code}")
        page.fill("#name", who)
        page.click("#gate-join")
        pages[who] = page
    bob, cy = pages["Bob"], pages["Cy"]
    expect(ada.locator("#board")).to_be_visible()
    # Bob declares (KD staged) and moves 8H onto the clubs run, where it does not fit.
    bob.click("#my-hand .card[data-face='KD']")
    bob.click(".zone.staging")
    expect(bob.locator("#my-staging .card")).to_have_count(1)
    bob.click(".meld[data-meld='1'] .card[data-face='8H']")
    bob.click(".meld[data-meld='2']")
    expect_meld(ada, 2, ["9C", "10C", "JC", "QC", "8H"], any_order=True)
    # Cy declares (QH) and takes the 8H where it now lies.
    cy.click("#my-hand .card[data-face='QH']")
    cy.click(".zone.staging")
    expect(cy.locator("#my-staging .card")).to_have_count(1)
    cy.click(".meld[data-meld='2'] .card[data-face='8H']")
    cy.click("#btn-take")
    expect(ada.locator(".meld[data-meld='2'] .card.held[data-face='8H']")).to_be_visible()
    # Bob cancels: the 8H goes back to meld 1, still held by Cy, and shown so.
    bob.locator("body").press("x")
    held = ada.locator(".meld[data-meld='1'] .card.held[data-face='8H']")
    expect(held).to_be_visible()
    expect(held).to_contain_text("taken")
    expect(cy.locator(".me [data-player='Cy']")).to_contain_text("You hold 8♥")
    browsers.shot(ada, "holds-01-after-undo")
    # Cy drops it on a new meld, from meld 1.
    cy.locator("body").press("n")
    expect_meld(ada, 1, ["5H", "6H", "7H"])
    expect(ada.locator(".card.held")).to_have_count(0)
    browsers.assert_no_console_errors()
