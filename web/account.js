// Accounts (issue 18): register, log in, log out, log out everywhere. The agora and its
// ranking need an account; guests (a name only) play friendly games. A session here is
// {token, name, account} (account: the server's account id; absent for a guest), kept where
// every session is (state.js: S.session, localStorage LS.session). See docs/protocol.md,
// "Accounts".
import { t } from "./i18n.js";
import { api, ApiError } from "./net.js";
import { h } from "./ui.js";
import { S, LS, save } from "./state.js";
import { render } from "./render.js";

const state = { busy: false, error: null, note: null };

/** Is this session an account's (not a guest's)? */
export function isAccount(session) {
  return !!(session && session.token && session.account);
}

/** The sentence of a refused request: every accounts code has one in each language (a name
 *  the server refused, 422 `bad_field` on "name", is `err.bad_name`, as for guests). */
function text(e) {
  if (!(e instanceof ApiError)) return String(e);
  if (e.code === "bad_field" && /^name:/.test(e.message || "")) return t("err.bad_name");
  return t("err." + e.code, {}, null) || e.message || t("err.network");
}

async function run(fn) {
  if (state.busy) return;
  state.busy = true;
  state.error = null;
  state.note = null;
  render();
  try {
    await fn();
  } catch (e) {
    state.error = text(e);
  } finally {
    state.busy = false;
    render();
  }
}

function loggedIn(res) {
  S.session = { token: res.token, name: res.name, account: res.account };
  save(LS.session, S.session);
}

function loggedOut(note) {
  S.session = null;
  save(LS.session, null);
  state.note = note;
}

/** A socket of this session was closed with 4402 (logged out, here or elsewhere): forget it. */
export function revokedSession() {
  if (!isAccount(S.session)) return;
  loggedOut(t("err.session_revoked"));
}

export const Account = {
  register(name, password) {
    return run(async () => loggedIn(await api("POST", "/api/accounts", { name: (name || "").trim(), password })));
  },
  login(name, password) {
    return run(async () => loggedIn(await api("POST", "/api/login", { name: (name || "").trim(), password })));
  },
  logout() {
    const session = S.session;
    return run(async () => {
      try {
        await api("POST", "/api/logout", undefined, session && session.token);
      } catch (e) {
        // Revoked or expired already: logged out all the same.
        if (!(e instanceof ApiError) || (e.code !== "session_revoked" && e.code !== "bad_token")) throw e;
      }
      loggedOut(t("acct.logged_out"));
    });
  },
  logoutAll() {
    const session = S.session;
    return run(async () => {
      const res = await api("POST", "/api/logout-all", undefined, session && session.token);
      loggedOut(t("acct.logged_out_all", { n: res.revoked }));
    });
  },
};

/** The account panel: who is logged in (log out, everywhere), or the log-in / register form. */
export function renderAccount() {
  const value = (id) => document.getElementById(id).value;
  const status = [
    state.error ? h("p", { class: "error", role: "alert", id: "acct-error" }, state.error) : null,
    state.note ? h("p", { class: "note", role: "status", id: "acct-note" }, state.note) : null,
  ];
  if (isAccount(S.session)) {
    return h("div", { class: "account", id: "account" },
      h("p", { id: "acct-as" }, t("acct.as", { name: S.session.name })),
      h("div", { class: "row" },
        h("button", { class: "btn", type: "button", id: "acct-logout", disabled: state.busy, onclick: () => Account.logout() }, t("acct.logout")),
        h("button", { class: "btn danger-text", type: "button", id: "acct-logout-all", disabled: state.busy, onclick: () => Account.logoutAll() }, t("acct.logout_all"))),
      ...status);
  }
  const submit = (ev, fn) => { ev.preventDefault(); fn(value("acct-name"), value("acct-password")); };
  return h("form", { class: "account home-form", id: "account-form", "aria-labelledby": "acct-title",
    onsubmit: (ev) => submit(ev, Account.login) },
  h("h3", { id: "acct-title" }, t("acct.title")),
  h("p", { class: "muted small" }, t("acct.intro")),
  h("label", { for: "acct-name" }, t("acct.name")),
  h("input", { id: "acct-name", class: "input", name: "username", autocomplete: "username", maxlength: "24", required: true,
    value: S.session && S.session.name ? S.session.name : "" }),
  h("label", { for: "acct-password" }, t("acct.password")),
  h("input", { id: "acct-password", class: "input", name: "password", type: "password", autocomplete: "current-password", minlength: "8", maxlength: "128", required: true }),
  h("div", { class: "row" },
    h("button", { class: "btn primary", type: "submit", id: "acct-login", disabled: state.busy }, t("acct.login")),
    h("button", { class: "btn", type: "button", id: "acct-register", disabled: state.busy,
      onclick: (ev) => { if (document.getElementById("account-form").reportValidity()) submit(ev, Account.register); } }, t("acct.register"))),
  ...status);
}
