// Drawing the page from S: render() (batched to one redraw a microtask), the header, and the
// quiet live region screen readers hear new notices from. The page itself is built by the
// function app.js registers (setPage), so this module imports no page module.
import { t, getLang } from "./i18n.js";
import { dockToast } from "./ui.js";
import { S } from "./state.js";

let page = () => document.createElement("div");

/** Register the function that builds #app's content from S (app.js does, once). */
export function setPage(fn) { page = fn; }

let renderQueued = false;
export function render() {
  if (renderQueued) return;
  renderQueued = true;
  queueMicrotask(() => { renderQueued = false; renderNow(); });
}

/** Redraw at once, keeping focus (by data-key, else id), the scroll of [data-scroll] boxes, and
 * what a person typed or chose in a form field (keptFields). */
export function renderNow() {
  const app = document.getElementById("app");
  const active = document.activeElement;
  const focusKey = active && active.dataset && active.dataset.key ? active.dataset.key : null;
  const focusId = !focusKey && active && active !== document.body && app.contains(active) ? active.id : null;
  const caret = active && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  const scrolls = {};
  for (const el of app.querySelectorAll("[data-scroll]")) scrolls[el.dataset.scroll] = [el.scrollLeft, el.scrollTop];
  const typed = keptFields(app);
  app.textContent = "";
  document.documentElement.lang = getLang();
  document.title = S.route === "table" && S.code ? `${S.code} · Machiavelox` : "Machiavelox";
  renderHeader();
  app.appendChild(page());
  dockToast(app.querySelector("#status-slot"), app);
  for (const el of app.querySelectorAll("[data-scroll]")) {
    const v = scrolls[el.dataset.scroll];
    if (v) { el.scrollLeft = v[0]; el.scrollTop = v[1]; }
  }
  restoreFields(app, typed);
  const el = focusKey ? app.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)
    : focusId ? document.getElementById(focusId) : null;
  if (el && app.contains(el)) {
    el.focus({ preventScroll: true });
    if (caret && typeof el.selectionStart === "number") {
      try { el.setSelectionRange(caret[0], caret[1]); } catch { /* a field without a caret */ }
    }
  }
}

/** The form fields (with an id) whose value a person changed from what the page drew:
 * Map id -> {check, value, was}. A redraw rebuilds every field, so without this a redraw
 * while someone types (a count arriving, a language switch) wiped the name and password. */
function keptFields(app) {
  const out = new Map();
  for (const el of app.querySelectorAll("input[id], textarea[id], select[id]")) {
    if (el.type === "checkbox" || el.type === "radio") {
      if (el.checked !== el.defaultChecked) out.set(el.id, { check: true, value: el.checked, was: el.defaultChecked });
    } else if (el.tagName === "SELECT") {
      const drawn = [...el.options].find((o) => o.defaultSelected) || el.options[0];
      if (drawn && el.value !== drawn.value) out.set(el.id, { check: false, value: el.value, was: drawn.value });
    } else if (el.type !== "hidden" && !el.readOnly && el.value !== el.defaultValue) {
      out.set(el.id, { check: false, value: el.value, was: el.defaultValue });
    }
  }
  return out;
}

/** Put typed values back into the redrawn fields of the same id, unless the redraw itself
 * changed what the field shows (the page's state moved on: its value wins). */
function restoreFields(app, typed) {
  for (const [id, f] of typed) {
    const el = document.getElementById(id);
    if (!el || !app.contains(el)) continue;
    if (f.check) {
      if ((el.type === "checkbox" || el.type === "radio") && el.defaultChecked === f.was) el.checked = f.value;
    } else if (el.tagName === "SELECT") {
      const drawn = [...el.options].find((o) => o.defaultSelected) || el.options[0];
      if (drawn && drawn.value === f.was) el.value = f.value;
    } else if (el.defaultValue === f.was) {
      el.value = f.value;
    }
  }
}

function renderHeader() {
  const status = document.getElementById("conn-status");
  const agoraConn = S.route === "agora" && S.agora && S.agora.connState ? S.agora.connState : null;
  const showConn = (S.route === "table" && !S.fatal && !S.needName) || agoraConn !== null;
  const connState = agoraConn || S.connState;
  status.hidden = !showConn;
  status.className = `conn ${connState}`;
  status.textContent = t("conn." + connState);
  const sel = document.getElementById("lang");
  if (sel.value !== getLang()) sel.value = getLang();
  for (const opt of sel.options) opt.textContent = t("lang." + opt.value);
  document.getElementById("lang-label").textContent = t("lang.label");
  document.getElementById("home-link").setAttribute("aria-label", t("a11y.home"));
  document.getElementById("skip-link").textContent = t("a11y.skip");
}

/** Screen readers hear new notices from one quiet live region (the list itself is redrawn). */
export function announce(text) {
  const box = document.getElementById("announce");
  if (!box) return;
  const p = document.createElement("p");
  p.textContent = text;
  box.appendChild(p);
  while (box.childElementCount > 5) box.firstElementChild.remove();
}
