"""Accounts in a real browser (issue 18): the account form on the home page registers and
logs in; a wrong password is told; "Log out everywhere" in a second browser closes the first
browser's agora socket and then its table socket (4402), whose page forgets the session and
says why; a guest cannot
take the account's name; the form speaks Italian and Dutch too.

The names here are not the guest names of the other browser tests, which share the server.
No page may log a console error beyond the refused requests this test makes on purpose;
screenshots go to ``test-artifacts/accounts-*.png``."""

from __future__ import annotations

import time
from typing import Any

import httpx
import test_web_support as web
from test_web_support import Browsers, expect

live_server, chromium_browser, browsers = web.live_server, web.chromium_browser, web.browsers

PASSWORD = "correct horse battery"
NAME = "Quirina"


def queue_size(server: Any) -> int:
    return int(httpx.get(server.url + "/api/agora", trust_env=False, timeout=10).json()["waiting"])


def fill_account(page: Any, name: str, password: str) -> None:
    page.fill("#acct-name", name)
    page.fill("#acct-password", password)


def test_register_log_in_and_log_out_everywhere(live_server, browsers: Browsers) -> None:
    one = browsers.page("one")
    one.goto(live_server.url + "/")
    fill_account(one, NAME, PASSWORD)
    one.click("#acct-register")
    expect(one.locator("#acct-as")).to_have_text(f"Logged in as {NAME}.")
    browsers.shot(one, "accounts-01-registered")
    one.click("#agora-btn")
    expect(one.locator("#agora-position")).to_have_text("You are number 1 in the queue.")

    # A second browser: a wrong password is told, the right one logs in (any spelling of
    # the name that looks the same: here in capitals).
    two = browsers.page("two")
    two.goto(live_server.url + "/")
    fill_account(two, NAME, "not the password")
    two.click("#acct-login")
    expect(two.locator("#acct-error")).to_have_text("That name and password do not match an account.")
    fill_account(two, NAME.upper(), PASSWORD)
    two.click("#acct-login")
    expect(two.locator("#acct-as")).to_have_text(f"Logged in as {NAME}.")

    # Log out everywhere: the first browser's queue socket is closed within seconds; its page
    # forgets the session and shows the account form with the reason.
    two.click("#acct-logout-all")
    expect(two.locator("#acct-note")).to_have_text("You are logged out everywhere (2 sessions).")
    expect(two.locator("#account-form")).to_be_visible()
    expect(one.locator("#acct-note")).to_have_text("This session was logged out: log in again.",
                                                   timeout=5000)
    expect(one.locator("#account-form")).to_be_visible()
    assert one.evaluate("localStorage.getItem('mvx.session')") == "null"
    deadline = time.monotonic() + 5
    while queue_size(live_server) != 0:
        assert time.monotonic() < deadline, "the revoked player stayed queued"
        time.sleep(0.05)
    browsers.shot(one, "accounts-02-logged-out-elsewhere")

    # Logged in again, the first browser sits at a friendly table; logging out everywhere
    # from the second closes its table socket too, and the table page says why.
    fill_account(one, NAME, PASSWORD)
    one.click("#acct-login")
    one.click("#agora-home")
    expect(one.locator("#acct-as")).to_have_text(f"Logged in as {NAME}.")
    one.click("#create-single")
    expect(one.locator("#conn-status")).to_have_text("Connected")
    fill_account(two, NAME, PASSWORD)
    two.click("#acct-login")
    two.click("#acct-logout-all")
    expect(one.locator(".panel.fatal")).to_contain_text("This session was logged out: log in again.",
                                                       timeout=5000)
    assert one.evaluate("localStorage.getItem('mvx.session')") == "null"
    browsers.shot(one, "accounts-03-table-logged-out")

    # A guest cannot take the account's name (a look-alike: Cyrillic і for i).
    guest = browsers.page("guest")
    guest.goto(live_server.url + "/")
    guest.fill("#name", "Qu\u0456rina")
    guest.click("#create-single")
    expect(guest.locator("#home-error")).to_have_text(
        "That name belongs to a registered player: log in, or pick another name.")

    # The form in Italian and Dutch.
    guest.select_option("#lang", "it")
    expect(guest.locator("#acct-title")).to_have_text("Il tuo account")
    expect(guest.locator("#acct-register")).to_have_text("Registrati")
    guest.select_option("#lang", "nl")
    expect(guest.locator("#acct-login")).to_have_text("Inloggen")
    browsers.shot(guest, "accounts-04-nl")

    # The refused requests made on purpose log "Failed to load resource"; nothing else may.
    others = [e for e in browsers.errors if "Failed to load resource" not in e]
    assert others == [], others


def test_what_a_person_types_survives_a_redraw(live_server, browsers: Browsers) -> None:
    """A redraw rebuilds the page's fields: what someone typed in the account form, and where
    their caret was, must come through it (a redraw while typing once wiped name and password,
    and registering did nothing: the form was empty and required)."""
    page = browsers.page("typist")
    page.goto(live_server.url + "/")
    page.click("#acct-name")
    page.keyboard.type("Tessa", delay=30)
    page.click("#acct-password")
    page.keyboard.type(PASSWORD, delay=10)
    page.click("#join-code")
    page.keyboard.type("ab", delay=30)
    # A language switch redraws the whole page; so does anything the server tells it.
    page.select_option("#lang", "it")
    expect(page.locator("#acct-register")).to_have_text("Registrati")
    assert page.input_value("#acct-name") == "Tessa"
    assert page.input_value("#acct-password") == PASSWORD
    assert page.input_value("#join-code") == "ab"
    # Typing on in the name field while the page redraws (the page's own render): the focus
    # and the caret stay, so the next letters land where the person is typing.
    page.click("#acct-name")
    page.keyboard.press("End")
    page.keyboard.type("r")
    page.evaluate("import('/static/render.js').then((m) => m.renderNow())")
    page.keyboard.type("a")
    assert page.input_value("#acct-name") == "Tessara"
    page.click("#acct-register")
    expect(page.locator("#acct-as")).to_contain_text("Tessara")
    browsers.assert_no_console_errors()
