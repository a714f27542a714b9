// Small DOM helpers: element building, countdowns, the toast and the confirmation dialog.
import { t } from "./i18n.js";
import { parseFace } from "./cards.js";

/** h("div", {class: "x", onclick: fn, "aria-label": "..."}, child, "text", [more]) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else if (v === true) el.setAttribute(k, "");
      else el.setAttribute(k, String(v));
    }
  }
  appendAll(el, children);
  return el;
}

function appendAll(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) appendAll(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** A card's spoken name: "10 of hearts". */
export function cardLabel(face) {
  const p = parseFace(face);
  if (p.joker) return t("card.joker");
  return t("card.name", { rank: t("rank." + p.rank), suit: t("suit." + p.suit) });
}

/** A card face as an element; `opts` adds classes, data and attributes. */
export function cardEl(face, opts = {}) {
  const p = parseFace(face);
  const cls = ["card", p.red ? "red" : "black", p.joker ? "joker" : ""];
  if (opts.small) cls.push("small");
  if (opts.classes) cls.push(...opts.classes);
  const el = h("div", {
    class: cls.filter(Boolean).join(" "),
    role: opts.role || "img",
    tabindex: opts.focusable ? "0" : null,
    "aria-label": opts.label || cardLabel(face),
    "aria-pressed": opts.pressed === undefined ? null : String(!!opts.pressed),
    title: opts.title || null,
    dataset: { face, ...(opts.data || {}) },
  },
  h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, p.rank), h("span", { class: "suit" }, p.symbol)),
  h("span", { class: "pip", "aria-hidden": "true" }, p.joker ? "\u2605" : p.symbol));
  return el;
}

// ---- countdowns -------------------------------------------------------------------------
// A clock element carries its deadline and the frame it is in: `data-until` seconds in the
// hand frame (view.t is "now" there) or the game frame (game.game_t). The frames' "now" at
// receipt and the receipt time come from setClockBase; ticking never touches anything else.
const base = { hand: null, game: null, at: 0, frozen: false };

export function setClockBase(handT, gameT) {
  base.hand = handT;
  base.game = gameT;
  base.at = performance.now();
}

export function secondsLeft(until, frame = "hand") {
  const now0 = base[frame];
  if (now0 === null || until === null || until === undefined) return null;
  const elapsed = (performance.now() - base.at) / 1000;
  return Math.max(0, until - (now0 + elapsed));
}

export function fmtSeconds(s) {
  if (s === null) return "";
  const whole = Math.ceil(s);
  if (whole < 60) return `${whole}s`;
  const m = Math.floor(whole / 60), r = whole % 60;
  return `${m}:${String(r).padStart(2, "0")}`;
}

/** A live countdown: a span updated by tickClocks. `total` (seconds) draws the bar. */
export function clockEl(until, { frame = "hand", total = null, label = "", kind = "" } = {}) {
  const el = h("span", {
    class: `clock ${kind}`,
    role: "timer",
    "aria-label": label || null,
    dataset: { until: String(until), frame, total: total === null ? "" : String(total) },
  },
  h("span", { class: "clock-bar", "aria-hidden": "true" }, h("span", { class: "clock-fill" })),
  h("span", { class: "clock-text" }, fmtSeconds(secondsLeft(until, frame))));
  updateClock(el);
  return el;
}

function updateClock(el) {
  const left = secondsLeft(parseFloat(el.dataset.until), el.dataset.frame);
  const txt = el.querySelector(".clock-text");
  const s = fmtSeconds(left);
  if (txt.textContent !== s) txt.textContent = s;
  const total = parseFloat(el.dataset.total);
  const fill = el.querySelector(".clock-fill");
  if (total > 0 && left !== null) fill.style.width = `${Math.min(100, (left / total) * 100)}%`;
  else fill.style.width = "0";
  el.classList.toggle("urgent", left !== null && left <= 10);
  el.classList.toggle("expired", left !== null && left <= 0);
}

export function tickClocks() {
  for (const el of document.querySelectorAll(".clock[data-until]")) updateClock(el);
}

// ---- toast (refusals, errors) ---------------------------------------------------------
// The message box is one element kept across renders. It never floats over the page: each
// render docks it in the page's flow, in the table's status line (#status-slot, just under the
// action buttons, with its height reserved) or else at the top of the page, so it covers no
// button and no card. It keeps role="alert": screen readers still hear every message.
let toastTimer = null;
let toastNode = null;
function toastBox() {
  if (!toastNode) toastNode = document.getElementById("toast");
  return toastNode;
}

/** Put the message box in `slot` (an element of the page), else first in `fallback`. */
export function dockToast(slot, fallback) {
  const box = toastBox();
  if (!box) return;
  box.classList.add("docked");
  if (slot) { if (box.parentNode !== slot) slot.appendChild(box); }
  else if (fallback && fallback.firstChild !== box) fallback.insertBefore(box, fallback.firstChild);
}

export function toast(text, kind = "error") {
  const box = toastBox();
  if (!box) return;
  box.textContent = "";
  box.className = `toast docked ${kind}`;
  box.appendChild(h("span", { class: "toast-text" }, text));
  box.appendChild(h("button", {
    class: "toast-close", type: "button", "aria-label": t("a11y.dismiss"),
    onclick: () => { box.hidden = true; },
  }, "\u00d7"));
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 7000);
}

// ---- confirmation dialog --------------------------------------------------------------
/** Resolves true when the player confirms. Uses the page's <dialog id="confirm">. */
export function confirmDialog(message, okLabel) {
  const dlg = document.getElementById("confirm");
  return new Promise((resolve) => {
    dlg.textContent = "";
    const form = h("form", { method: "dialog", class: "confirm-form" },
      h("p", { id: "confirm-text" }, message),
      h("div", { class: "confirm-buttons" },
        h("button", { type: "submit", value: "cancel", class: "btn", id: "confirm-cancel" }, t("btn.cancel_dialog")),
        h("button", { type: "submit", value: "ok", class: "btn danger", id: "confirm-ok" }, okLabel || t("btn.confirm"))));
    dlg.appendChild(form);
    dlg.setAttribute("aria-labelledby", "confirm-text");
    const done = () => { dlg.removeEventListener("close", done); resolve(dlg.returnValue === "ok"); };
    dlg.addEventListener("close", done);
    dlg.returnValue = "cancel";
    dlg.showModal();
    dlg.querySelector("#confirm-cancel").focus();
  });
}

/** The stable key of a card element (focus and drag find it again after a re-render). */
export function cssKey(s) {
  return s.zone === "table" ? `table:${s.meld}:${s.face}:${s.occ}` : `${s.zone}:${s.face}:${s.occ}`;
}

/** A number as shown: negative ones with the minus sign U+2212 ("−15", not "-15"). */
export function fmtNumber(n) {
  return typeof n === "number" && n < 0 ? `\u2212${-n}` : String(n);
}

/** A hand's score: "+12", "0", "−15". */
export function fmtScore(n) {
  return typeof n === "number" && n > 0 ? `+${n}` : fmtNumber(n);
}

/**
 * A command that must not go twice (Draw, Pass): busy from the send until the server's ack or
 * refusal, however slow the network (a phone, a reconnect: the same id is re-sent), and for at
 * least `repeatMs` after a press (a double click or a bouncing key on a fast link), so a second
 * press meanwhile does nothing. `run()` returns a promise of true/false; `changed()`
 * re-renders, so the button shows it is busy. `go.busy()` says whether a press now would be
 * dropped (on its way, or inside the repeat window), so a button drawn from it is never
 * enabled while it would ignore a press.
 */
export function oncePending(run, changed, repeatMs = 300) {
  let busy = false;
  let last = -Infinity;
  const go = async () => {
    if (go.busy()) return false;
    busy = true;
    last = performance.now();
    changed();
    try { return await run(); } finally {
      busy = false;
      changed();
      // An ack quicker than the repeat window: still busy until it ends, then redrawn enabled.
      const left = repeatMs - (performance.now() - last);
      if (left > 0) setTimeout(changed, left + 1);
    }
  };
  go.busy = () => busy || performance.now() - last < repeatMs;
  return go;
}
