// The home screen: a name, a new friendly game (single or long), joining by code or link,
// the agora queue (agora.js) and the top of the ranking (ranking.js).
import { t } from "./i18n.js";
import { h } from "./ui.js";
import { rankingPreview } from "./ranking.js";
import { goingOutRule } from "./rules.js";
import { renderAccount, isAccount } from "./account.js";
import { newTableDraft, variantChoice, invitationRules } from "./newtable.js";
import { render } from "./render.js";

export function renderHome(S, Home, R, go) {
  if (S.route === "table" && S.needName) return joinGate(S, Home);
  if (!S.newTable) S.newTable = newTableDraft();
  const draft = S.newTable;
  // What is typed survives a redraw (choosing classic redraws the form).
  const name = draft.name ?? (S.session ? S.session.name : "");
  let lastTable = null;
  try { lastTable = JSON.parse(localStorage.getItem("mvx.table") || "null"); } catch (e) { lastTable = null; }
  const nameInput = () => document.getElementById("name").value;
  const codeInput = () => document.getElementById("join-code").value;
  const busy = (ev, fn) => { ev.preventDefault(); fn(); };

  return h("div", { class: "home" },
    h("section", { class: "hero" },
      h("h1", {}, "Machiavelox"),
      h("p", { class: "tagline" }, t("home.tagline"))),
    h("form", { class: "panel home-form", id: "home-form", "aria-labelledby": "home-title", onsubmit: (ev) => busy(ev, () => Home.create(nameInput(), "single")) },
      h("h2", { id: "home-title" }, t("home.play")),
      h("label", { for: "name" }, t("home.name")),
      h("input", { id: "name", class: "input", name: "name", autocomplete: "nickname", maxlength: "24", required: true, value: name, placeholder: t("home.name_placeholder"), "data-key": "name",
        oninput: (ev) => { draft.name = ev.target.value; } }),
      h("fieldset", { class: "create" },
        h("legend", {}, t("home.create")),
        variantChoice(draft, render),
        h("div", { class: "row" },
          h("button", { class: "btn primary", type: "submit", id: "create-single" }, t(draft.variant === "classic" ? "newt.create_single" : "home.create_single")),
          h("button", { class: "btn", type: "button", id: "create-long", onclick: (ev) => busy(ev, () => Home.create(nameInput(), "long")) }, t(draft.variant === "classic" ? "newt.create_long" : "home.create_long"))),
        draft.variant === "classic" ? null : h("p", { class: "muted small" }, t("home.modes"))),
      h("fieldset", { class: "join" },
        h("legend", {}, t("home.join")),
        h("div", { class: "row" },
          h("input", { id: "join-code", class: "input code-input", "aria-label": t("home.code_label"), placeholder: t("home.code_placeholder"), autocapitalize: "characters", spellcheck: "false",
            onkeydown: (ev) => { if (ev.key === "Enter") busy(ev, () => Home.join(nameInput(), codeInput())); } }),
          h("button", { class: "btn", type: "button", id: "join-btn", onclick: (ev) => busy(ev, () => Home.join(nameInput(), codeInput())) }, t("home.join_btn")))),
      S.homeError ? h("p", { class: "error", role: "alert", id: "home-error" }, S.homeError) : null,
      lastTable ? h("p", { class: "muted" }, t("home.back_to"), " ", h("a", { href: `/t/${lastTable}`, id: "last-table", onclick: (ev) => { ev.preventDefault(); history.pushState({}, "", `/t/${lastTable}`); window.dispatchEvent(new PopStateEvent("popstate")); } }, lastTable)) : null),
    h("section", { class: "panel home-more" },
      h("h2", {}, t("home.agora")),
      h("p", { class: "muted" }, t("home.agora_text")),
      typeof S.agoraCount === "number" && S.agoraCount > 0 ? h("p", { id: "agora-waiting" }, t("home.agora_waiting", { n: S.agoraCount })) : null,
      renderAccount(),
      // The agora needs an account (issue 18): without one the button opens the agora page, whose
      // account form logs in; it never makes a guest session of the name typed above.
      h("button", { class: "btn primary", type: "button", id: "agora-btn", onclick: (ev) => (isAccount(S.session) ? busy(ev, () => Home.agora(S.session.name)) : go.to("/#agora")) }, t("home.agora_btn")),
      h("p", { class: "muted small" }, t("home.agora_name")),
      h("h2", {}, t("home.ranking")),
      rankingPreview(S, R, go)),
    h("section", { class: "panel home-rules" },
      h("h2", {}, t("home.how")),
      h("ul", {}, ["home.rule1", "home.rule2", "home.rule3", "home.rule4"].map((k) => h("li", {}, t(k))), goingOutRule())));
}

/** The invitation (/t/CODE before sitting down): the table's rules in words (newtable.js),
 * a name (the session's, if any) and Sit down. */
function joinGate(S, Home) {
  const classic = !!S.table && S.table.variant && S.table.variant !== "machiavelox";
  return h("form", { class: "panel home-form gate", id: "gate-form", "aria-labelledby": "gate-title",
    onsubmit: (ev) => { ev.preventDefault(); Home.nameThenJoin(document.getElementById("name").value); } },
  h("h2", { id: "gate-title" }, t("gate.title", { code: S.code })),
  invitationRules(S.table),
  h("label", { for: "name" }, t("home.name")),
  h("input", { id: "name", class: "input", autocomplete: "nickname", maxlength: "24", required: true, placeholder: t("home.name_placeholder"),
    value: S.session ? S.session.name : null }),
  h("div", { class: "row" }, h("button", { class: "btn primary", type: "submit", id: "gate-join" }, t(classic ? "invite.sit" : "gate.join"))),
  S.homeError ? h("p", { class: "error", role: "alert", id: "home-error" }, S.homeError) : null);
}
