"""Whole classic tables in Chromium (issue 16): a six-player three-pack table created from the
form, every seat taken from its invitation in its own browser, the hand dealt to six with
the seats laid out (one of them a phone); and a short match with a bot filling a seat played
to its end in the browser: a stacked first hand the player wins at once, its totals, the next
deal after Ready, leaving the second hand, and the match's end.
"""

from __future__ import annotations

import httpx
import test_web_support as web
from test_web_support import Browsers, api_create_table, expect

# The shared fixtures (one server and one browser for the whole run; see test_web_support).
live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

PHONE = {"width": 390, "height": 844}


def summary(server, code: str) -> dict:
    r = httpx.get(f"{server.url}/api/tables/{code}", trust_env=False, timeout=10)
    r.raise_for_status()
    out: dict = r.json()
    return out


def test_six_players_three_packs_sit_down_from_the_invitation_and_see_the_hand_dealt(
        live_server, browsers: Browsers) -> None:
    ada = browsers.page("ada")
    ada.goto(live_server.url + "/")
    ada.fill("#name", "Ada")
    ada.check("#variant-classic")
    ada.select_option("#opt-preset", "classic")
    ada.select_option("#opt-packs", "3")
    ada.select_option("#opt-jokers", "6")
    ada.select_option("#opt-players", "6")
    ada.click("#create-single")
    expect(ada.locator("#seat-list li")).to_have_count(6)
    code = ada.url.rsplit("/", 1)[1]
    s = summary(live_server, code)
    assert (s["size"], s["rules"]["packs"], s["rules"]["jokers"]) == (6, 3, 6)

    names = ["Bob", "Cy", "Dee", "Eve", "Fay"]
    pages = [ada]
    for i, name in enumerate(names):
        page = browsers.page(name.lower(), viewport=PHONE if name == "Fay" else None)
        page.goto(f"{live_server.url}/t/{code}")
        expect(page.locator("#invite-seats")).to_have_text(f"Seats taken: {i + 1} of 6.")
        expect(page.locator("#invite-changes li")).to_have_text(["Packs: 3", "Jokers: 6"])
        page.fill("#name", name)
        page.click("#gate-join")
        pages.append(page)
    # The sixth seat deals the hand: 13 cards each from 3 × 52 + 6, six seats around the table.
    everyone = ["Ada", *names]
    for page, me in zip(pages, everyone, strict=True):
        expect(page.locator("#table-screen[data-seats='6']")).to_be_visible()
        expect(page.locator("#my-hand .card")).to_have_count(13)
        seats = page.locator(".c-seat")
        expect(seats).to_have_count(5)
        shown = sorted(seats.evaluate_all("els => els.map(e => e.dataset.player)"))
        assert shown == sorted(n for n in everyone if n != me)
        for i in range(5):
            expect(seats.nth(i)).to_be_visible()
    view = ada.evaluate("window.__mvx.S.game")
    assert view["stock"] == 3 * 52 + 6 - 6 * 13
    assert [p["hand_count"] for p in view["players"]] == [13] * 6
    width = pages[-1].evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"six seats are {width}px wide on a 390px phone"
    browsers.shot(ada, "classic-six-desktop")
    browsers.shot(pages[-1], "classic-six-phone")
    browsers.assert_no_console_errors()


# Hand 1 is stacked: Ada, first to play, holds one run and goes out with it (the classic
# preset allows going out on the first turn); the bot holds 2♥ 3♦ K♠: 15 points to Ada (C25).
POSITION = {
    "players": ["A", "B"],
    "hands": {"A": ["7C", "8C", "9C"], "B": ["2H", "3D", "KS"]},
    "stock": ["4S", "5S", "6S", "7S"],
    "turn": "A",
}


def test_a_match_with_a_bot_is_played_to_its_end(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(
        live_server, "Ada", "long", variant="classic", players=2,
        options={"match": "deals", "deals": 2}, position=POSITION, timers={"pause": 60},
        bots={"level": "casual", "count": 1, "pace": "none", "reaction": 0.2})
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    expect(ada.locator("#my-hand .card")).to_have_count(3)
    expect(ada.locator("#turn-banner")).to_contain_text("Your turn")
    bot = summary(live_server, code)["bots"][0]

    # Hand 1: the three clubs onto New meld, then End turn: Ada goes out.
    for face in ("7C", "8C", "9C"):
        ada.click(f"#my-hand .card[data-face='{face}']")
    ada.click("#new-meld")
    expect(ada.locator("#my-hand .card")).to_have_count(0)
    ada.click("#btn-end")
    expect(ada.locator("#result-title")).to_be_visible()
    expect(ada.locator(f"#hand-scores tr[data-player='{bot}']")).to_contain_text("15")
    totals = ada.locator("#match-totals tbody tr")
    expect(totals.nth(0)).to_contain_text("15")
    expect(ada.locator("#pause-box")).to_be_visible()
    browsers.shot(ada, "classic-match-1-pause")

    # The next deal: the bot is ready, Ada presses Ready, and hand 2 is dealt from the seed at
    # once, long before the 60 s pause would end (C31: all ready).
    ada.click("#btn-ready")
    expect(ada.locator("#hand-chip")).to_contain_text("Hand 2")
    expect(ada.locator("#my-hand .card")).to_have_count(13)
    expect(ada.locator("#pause-box")).to_have_count(0)
    expect(ada.locator("#btn-leave")).to_be_visible()

    # Ada leaves hand 2 (confirmed): the bot is the last one in it and wins it; two deals
    # were the match (C27): it is over, with the totals of both hands.
    ada.click("#btn-leave")
    expect(ada.locator("dialog#confirm[open]")).to_be_visible()
    ada.click("#confirm-ok")
    expect(ada.locator("#final-result")).to_be_visible()
    view = ada.evaluate("window.__mvx.S.game")
    assert view["match"]["over"] and view["match"]["hand"] == 2
    assert view["result"]["winner"] == bot
    final = view["match"]["totals"]
    assert final["Ada"] == 15 and final[bot] == view["result"]["scores"][bot] > 0
    winner = "Ada" if final["Ada"] > final[bot] else bot
    assert view["match"]["winner"] == winner
    expect(ada.locator(f"#match-totals tr[data-player='{bot}']")).to_contain_text(str(final[bot]))
    expect(ada.locator("#final-result")).to_contain_text(winner if winner != "Ada" else "You")
    browsers.shot(ada, "classic-match-2-end")
    browsers.assert_no_console_errors()
