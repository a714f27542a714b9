"""Creating a classic table in the browser (issue 16): the create form's preset fills every C1
option, impossible rules are refused with the server's sentence beside the form (nothing
created), and whoever opens the invitation sees the table's rules (preset, options changed,
seats, one hand or a match) before sitting down.

A phone (390×844) gets the refusal; a desktop creates an Italian match that a second player
opens by its link."""

from __future__ import annotations

import httpx
import test_web_support as web
from test_web_support import Browsers, expect

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

PHONE = {"width": 390, "height": 844}


def summary_of(server, code: str) -> dict:
    out: dict = httpx.get(f"{server.url}/api/tables/{code}", trust_env=False, timeout=10).json()
    return out


def choose_classic(page, name: str, preset: str) -> None:
    page.fill("#name", name)
    page.check("#variant-classic")
    expect(page.locator("#classic-options")).to_be_visible()
    page.select_option("#opt-preset", preset)


def test_a_preset_fills_the_options_and_impossible_rules_are_refused_with_the_servers_sentence(
        live_server, browsers: Browsers) -> None:
    page = browsers.page("ada", viewport=PHONE)
    page.goto(live_server.url + "/")
    # Machiavelox is the default: the form is today's.
    expect(page.locator("#variant-machiavelox")).to_be_checked()
    expect(page.locator("#classic-options")).to_have_count(0)
    choose_classic(page, "Ada", "classic_dutch")
    # The Dutch preset's values (C2) are in the fields, the name typed survived the redraw.
    expect(page.locator("#name")).to_have_value("Ada")
    expect(page.locator("#opt-jokers")).to_have_value("0")
    expect(page.locator("#opt-ace")).to_have_value("low")
    expect(page.locator("#opt-freed_joker")).to_have_value("keep")
    expect(page.locator("#opt-clock")).to_have_value("120")
    expect(page.locator("#opt-scoring")).to_have_value("penalty")
    expect(page.locator("#opt-match")).to_have_value("threshold")
    expect(page.locator("#opt-stock_out")).to_have_value("fewest")
    # Another preset fills in its own.
    page.select_option("#opt-preset", "classic_italian")
    expect(page.locator("#opt-first_turn_out")).to_have_value("false")
    expect(page.locator("#opt-max_jokers")).to_have_value("1")
    expect(page.locator("#opt-clock")).to_have_value("")
    expect(page.locator("#opt-match")).to_have_value("deals")
    # Six Dutch players with two packs: C2 refuses it, the server says why, no table is made.
    page.select_option("#opt-preset", "classic_dutch")
    page.select_option("#opt-players", "6")
    page.click("#create-long")
    error = page.locator("#create-error")
    expect(error).to_have_text("6 players is too many for classic_dutch with 2 packs: at most 5 (6 need 3 packs).")
    assert page.url == live_server.url + "/"
    assert page.evaluate("localStorage.getItem('mvx.table')") is None
    # Penalty scoring to a target: refused too, the fields keep what was chosen.
    page.select_option("#opt-players", "4")
    page.select_option("#opt-match", "target")
    page.click("#create-long")
    expect(error).to_have_text("A match to a target needs winner's scoring, not penalty points.")
    expect(page.locator("#opt-match")).to_have_value("target")
    expect(page.locator("#opt-scoring")).to_have_value("penalty")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the form is {width}px wide on a 390px phone"
    browsers.shot(page, "classic-form-refused-phone")
    # In Italian the refusal is the sentence of its code.
    page.select_option("#lang", "it")
    page.click("#create-long")
    expect(error).to_have_text("Una partita a obiettivo richiede il punteggio a chi vince, non i punti di penalità.")
    # Three packs seat six Dutch players: now it is created, with those rules.
    page.select_option("#lang", "en")
    page.select_option("#opt-match", "threshold")
    page.select_option("#opt-packs", "3")
    page.select_option("#opt-players", "6")
    page.click("#create-single")
    expect(page.locator("#seat-list li")).to_have_count(6)
    code = page.url.rsplit("/", 1)[1]
    summary = httpx.get(f"{live_server.url}/api/tables/{code}", trust_env=False, timeout=10).json()
    assert (summary["variant"], summary["size"], summary["mode"]) == ("classic_dutch", 6, "single")
    assert summary["rules"]["packs"] == 3 and summary["rules"]["preset"] == "classic_dutch"
    # The refused requests made on purpose log "Failed to load resource" (422); nothing else may.
    refused = [e for e in browsers.errors if "status of 422" in e]
    assert len(refused) == 3
    assert [e for e in browsers.errors if e not in refused] == []


def test_the_invitation_shows_the_tables_rules_before_sitting_down(live_server, browsers: Browsers) -> None:
    ada = browsers.page("ada")
    ada.goto(live_server.url + "/")
    choose_classic(ada, "Ada", "classic_italian")
    ada.select_option("#opt-players", "5")
    ada.select_option("#opt-jokers", "2")
    ada.fill("#opt-clock", "60")
    ada.fill("#opt-deals", "2")
    ada.click("#name")  # the last field's change is in
    expect(ada.locator("[data-option='deals']")).to_have_class("opt-field changed")
    ada.click("#create-long")
    expect(ada.locator("#seat-list li")).to_have_count(5)
    expect(ada.locator("#seat-list")).to_contain_text("Ada")
    code = ada.url.rsplit("/", 1)[1]
    browsers.shot(ada, "classic-waiting-5")

    # Bob has a session already (he played before): the link shows the rules, not a seat.
    bob = browsers.page("bob", session=web.api_session(live_server, "Bob"))
    bob.goto(f"{live_server.url}/t/{code}")
    expect(bob.locator("#invite-variant")).to_have_text("Classic Machiavelli, Italian house rules.")
    expect(bob.locator("#invite-seats")).to_have_text("Seats taken: 1 of 5.")
    expect(bob.locator("#invite-mode")).to_have_text("A match of 2 deals.")
    expect(bob.locator("#invite-changes li")).to_have_text(["Jokers: 2", "Turn clock: 60 s", "Deals: 2"])
    expect(bob.locator("#name")).to_have_value("Bob")
    assert summary_of(live_server, code)["seats"] == ["Ada"], "opening the invitation took no seat"
    browsers.shot(bob, "classic-invitation")
    bob.click("#gate-join")
    expect(bob.locator("#seat-list")).to_contain_text("Bob")
    expect(ada.locator("#seat-list")).to_contain_text("Bob")
    # A reload of a table this browser sits at goes straight back to it.
    bob.reload()
    expect(bob.locator("#seat-list")).to_contain_text("Bob (you)")

    # Cy, new here, reads it in Dutch and gives a name.
    cy = browsers.page("cy")
    cy.goto(f"{live_server.url}/t/{code}")
    cy.select_option("#lang", "nl")
    expect(cy.locator("#invite-variant")).to_have_text("Klassiek Machiavelli, huisregels: Italiaans.")
    expect(cy.locator("#invite-seats")).to_have_text("Plaatsen bezet: 2 van 5.")
    expect(cy.locator("#invite-changes li").nth(1)).to_have_text("Tijd per beurt: 60 s")
    cy.fill("#name", "Cy")
    cy.click("#gate-join")
    expect(ada.locator("#seat-list")).to_contain_text("Cy")
    # A shark takes a fourth seat from the classic waiting room's Add a bot.
    ada.check("#bot-level-shark")
    ada.click("#btn-add-bot")
    expect(cy.locator("#seat-list .bot-badge")).to_have_count(1)
    expect(ada.locator("#seat-list li").nth(3)).to_contain_text("Shark bot")
    assert summary_of(live_server, code)["seats"][3] == "Shark bot"
    for page in (ada, bob, cy):
        missing = page.evaluate("[...window.__mvxI18n.missing]")
        assert missing == [], missing
    browsers.assert_no_console_errors()
