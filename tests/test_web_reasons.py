"""A failed play says why, in words (issue 17): the browser's notice names the wounded meld by
its cards, in the order they were put there, gives the rule it breaks, and lists the player's
own cards that went back to the hand apart from the table cards that went back to the table.
The reason codes of the engine each have words in English, Italian and Dutch."""

from __future__ import annotations

import re
from pathlib import Path

import test_web_support as web
from test_web_i18n import LANGS, dictionaries
from test_web_support import Browsers, api_create_table, api_join, expect, expect_meld

from engine.melds import WHY_CODES

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

NOTICES = Path(__file__).resolve().parents[1] / "web" / "notices.js"

POSITION = {
    "table": [["4C", "5C", "6C", "7C"], ["9H", "9S", "9D"]],
    "hands": {"A": ["9C", "2H", "KS"], "B": ["KD", "QD"], "C": ["QH"]},
    "stocks": {"A": ["4D"], "B": ["4H"], "C": ["4S"]},
    "drew": ["A", "B", "C"],
    "laid": ["A", "B", "C"],
}


def test_every_reason_code_has_words_in_every_language() -> None:
    codes = [*WHY_CODES, "no_own_card"]
    d = dictionaries()
    for lang in LANGS:
        for code in codes:
            assert f"why.{code}" in d[lang], (lang, code)
        assert "why.no_own_card.me" in d[lang]
        for kind in ("run", "set", "meld"):
            assert f"rs.meld.{kind}" in d[lang]
    # notices.js words exactly the engine's codes (an unknown one falls back to not_a_meld).
    m = re.search(r"const WHY = \[(.*?)\];", NOTICES.read_text(encoding="utf-8"), re.DOTALL)
    assert m is not None
    assert re.findall(r'"(\w+)"', m.group(1)) == list(WHY_CODES)


def test_a_failed_play_says_why_and_what_went_back_where(live_server, browsers: Browsers) -> None:
    code, session = api_create_table(live_server, "Ada", position=POSITION)
    ada = browsers.page("ada", session=session)
    ada.goto(f"{live_server.url}/t/{code}")
    api_join(live_server, code, "Bob")
    api_join(live_server, code, "Cy")
    expect(ada.locator("#board")).to_be_visible()
    # Ada declares (9C and 2H staged), moves 7C from the run onto the nines and places 9C
    # there too: a set holding a 7.
    for face in ("9C", "2H"):
        ada.click(f"#my-hand .card[data-face='{face}']")
        ada.click(".zone.staging")
    expect(ada.locator("#my-staging .card")).to_have_count(2)
    ada.click(".meld[data-meld='1'] .card[data-face='7C']")
    ada.click(".meld[data-meld='2'] .meld-head")
    expect(ada.locator(".meld[data-meld='2'] .card")).to_have_count(4)
    ada.click("#my-staging .card[data-face='9C']")
    ada.click(".meld[data-meld='2'] .meld-head")
    # While invalid, the set is shown as it was built: its nines, then 7C, then 9C.
    expect_meld(ada, 2, ["9S", "9H", "9D", "7C", "9C"])
    ada.locator("body").press("e")
    notice = ada.locator("#notices .notice").first
    expect(notice).to_contain_text(
        "Your play #1 came to nothing: the set 9♠ 9♥ 9♦ 7♣ 9♣ mixes ranks: 7♣ does not belong.")
    expect(notice).to_contain_text("Back to your hand: 9♣.")
    expect(notice).to_contain_text("Back on the table: 7♣.")
    expect(notice).to_contain_text("Back from staging: 2♥.")
    expect(notice).not_to_contain_text("Fell back")
    expect_meld(ada, 1, ["4C", "5C", "6C", "7C"])
    browsers.shot(ada, "reasons-01-failed-play")
    # Notices are worded when shown: in Italian and Dutch the same reason, in their words.
    ada.select_option("#lang", "it")
    expect(ada.locator("#notices .notice").first).to_contain_text(
        "La tua giocata n. 1 non ha portato a nulla: il gruppo 9♠ 9♥ 9♦ 7♣ 9♣ mescola valori"
        " diversi: 7♣ non c'entra. Tornate nella tua mano: 9♣. Tornate sul tavolo: 7♣.")
    ada.select_option("#lang", "nl")
    expect(ada.locator("#notices .notice").first).to_contain_text(
        "Je zet 1 leverde niets op, omdat de set 9♠ 9♥ 9♦ 7♣ 9♣ verschillende waarden mengt:"
        " 7♣ hoort er niet bij. Terug in je hand: 9♣. Terug op tafel: 7♣.")
    ada.select_option("#lang", "en")
    browsers.assert_no_console_errors()
