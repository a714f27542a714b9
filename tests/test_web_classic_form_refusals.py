"""A refused classic table names the refused option in the player's language and marks its
field (issue 16, "refused with the server's sentence when impossible"), found by a tester: in
Italian or Dutch the form said only "this value is not allowed for this table option", and in
English it named the option by its code ('opening'), so a player could not tell which of the
twenty fields to change.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_web_support as web
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers


@pytest.mark.browser
def test_a_refused_option_is_named_and_marked_in_italian(live_server: Any, browsers: Browsers) -> None:
    page = browsers.page("ada")
    page.add_init_script("localStorage.setItem('mvx.lang', 'it')")
    page.goto(live_server.url)
    page.fill("#name", "Ada")
    page.check("#variant-classic")
    page.fill("#opt-opening", "abc")
    page.click("#create-long")
    error = page.locator("#create-error")
    expect(error).to_contain_text("Minimo di apertura")
    expect(page.locator("#opt-opening")).to_have_attribute("aria-invalid", "true")
    expect(page.locator(".opt-field.refused")).to_have_count(1)
    assert page.url.rstrip("/") == live_server.url  # no table made
    # Six Dutch players with two packs: the players' field.
    page.fill("#opt-opening", "0")
    page.select_option("#opt-preset", "classic_dutch")
    page.select_option("#opt-players", "6")
    page.click("#create-long")
    expect(error).to_have_text("Troppi giocatori per questo tavolo.")
    expect(page.locator("#opt-players")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#opt-opening")).not_to_have_attribute("aria-invalid", "true")
    browsers.shot(page, "classic-form-refused-it")
    expect(page.locator(".opt-field.refused")).to_have_count(1)
