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

/** Redraw at once, keeping focus (by data-key) and the scroll of [data-scroll] boxes. */
export function renderNow() {
  const app = document.getElementById("app");
  const active = document.activeElement;
  const focusKey = active && active.dataset ? active.dataset.key : null;
  const scrolls = {};
  for (const el of app.querySelectorAll("[data-scroll]")) scrolls[el.dataset.scroll] = [el.scrollLeft, el.scrollTop];
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
  if (focusKey) {
    const el = app.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (el) el.focus({ preventScroll: true });
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
