// The replay page, /replay/{code}/{hand}: a finished hand watched again from its log.
// GET /api/tables/{code}/hands/{hand}/replay gives every frame of the hand (the server ran
// the engine again: docs/protocol.md, "Replays"); this page only shows them: a timeline in
// hand seconds to scrub, play/pause, speed 1x/2x/4x/8x, every player's cards, the table as
// it stood, the chain undos marked on the timeline and in the notices of their moment. A
// classic hand (issue 35) shows whose turn it is, every hand, the one stock and what each
// turn did, in the classic table's words (classiccards.js turnText).
import { t, setLang, getLang, onLangChange, refusalText } from "./i18n.js";
import { h, cardEl } from "./ui.js";
import { describeEvent } from "./notices.js";
import { classicCard, turnText } from "./classiccards.js";
import { sinceMyTurn } from "./classicview.js";

export const SPEEDS = [1, 2, 4, 8];
/** Notices kept on screen, newest first. */
const NOTICES = 14;

const R = {
  code: "", hand: 0,
  data: null, error: null,
  clock: 0, // seconds since the hand began, on the replay's own clock
  frame: 0, // the index of the frame shown
  playing: false, speed: 1, lastTick: 0,
};

/** {code, hand} of /replay/{code}/{hand}, or null. */
export function parsePath(path) {
  const m = /^\/replay\/([^/]+)\/(\d+)\/?$/.exec(path);
  return m ? { code: decodeURIComponent(m[1]).toUpperCase(), hand: Number(m[2]) } : null;
}

/** The index of the last frame whose time is at or before `clock` (0 before the first). */
export function frameAt(frames, clock) {
  let lo = 0, hi = frames.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (frames[mid].t <= clock + 1e-9) lo = mid; else hi = mid - 1;
  }
  return lo;
}

function fmt(s) {
  const whole = Math.max(0, s);
  const m = Math.floor(whole / 60), sec = whole - m * 60;
  return `${m}:${sec < 10 ? "0" : ""}${sec.toFixed(1)}`;
}

async function load() {
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(R.code)}/hands/${R.hand}/replay`);
    const body = await r.json().catch(() => ({}));
    if (!r.ok) { R.error = { code: body.code || "unknown", message: body.message || "" }; return; }
    R.data = body;
  } catch (e) {
    R.error = { code: "not_sent", message: "" };
  }
}

// ---- time ---------------------------------------------------------------------------------

function setFrame(i, { clock } = {}) {
  const frames = R.data.frames;
  R.frame = Math.max(0, Math.min(frames.length - 1, i));
  R.clock = clock === undefined ? frames[R.frame].t : clock;
  update();
}

function atEnd() {
  return R.data && R.frame === R.data.frames.length - 1 && R.clock >= R.data.duration - 1e-9;
}

function play() {
  if (!R.data) return;
  if (atEnd()) setFrame(0);
  R.playing = true;
  R.lastTick = performance.now();
  requestAnimationFrame(tick);
  update();
}

function pause() {
  R.playing = false;
  update();
}

function tick(now) {
  if (!R.playing) return;
  const dt = Math.max(0, now - R.lastTick) / 1000;
  R.lastTick = now;
  const d = R.data;
  const clock = Math.min(d.duration, R.clock + dt * R.speed);
  const i = frameAt(d.frames, clock);
  R.frame = Math.max(R.frame, i);
  R.clock = clock;
  if (clock >= d.duration) {
    R.frame = d.frames.length - 1;
    R.playing = false;
  }
  update();
  if (R.playing) requestAnimationFrame(tick);
}

// ---- drawing ------------------------------------------------------------------------------

/** Whether the replay is of a classic hand (its `variant` a classic preset). */
function classic() {
  return !!(R.data && R.data.variant && R.data.variant !== "machiavelox");
}

function cards(list, label) {
  if (!list || !list.length) return h("span", { class: "muted none" }, t("replay.no_cards"));
  const make = classic() ? classicCard : cardEl; // a classic joker shows the card it stands for
  return h("div", { class: "rp-cards", role: "list", "aria-label": label },
    list.map((f) => { const el = make(f, { small: true }); el.setAttribute("role", "listitem"); return el; }));
}

function tableView(view) {
  const melds = view.table || [];
  return h("section", { class: "panel rp-table", id: "rp-table", "aria-labelledby": "rp-table-title" },
    h("h2", { id: "rp-table-title" }, t("replay.table")),
    melds.length
      ? h("div", { class: "rp-melds" }, melds.map((m) => h("div", {
        class: "rp-meld" + (m.valid ? "" : " invalid") + (m.reworked_by && m.reworked_by.length ? " reworked" : ""),
        dataset: { meld: m.id }, title: m.valid ? null : t("replay.invalid"),
      }, h("span", { class: "rp-meld-id" }, "#" + m.id), cards(m.cards, t("replay.meld", { id: m.id })))))
      : h("p", { class: "muted" }, t("replay.empty_table")));
}

function playersView(frame) {
  const d = R.data;
  return h("section", { class: "rp-players", id: "rp-players" }, frame.view.players.map((p, i) => {
    const bot = d.bots.includes(p.name);
    return h("section", { class: `panel rp-player seat-c${i}`, dataset: { player: p.name, status: p.status } },
      h("h3", {}, p.name, bot ? h("span", { class: "badge bot-badge" }, t("bots.badge")) : null,
        p.status !== "active" ? h("span", { class: "badge" }, t("replay.status." + p.status, {}, p.status)) : null),
      h("div", { class: "rp-row rp-hand" }, h("span", { class: "rp-label" }, t("replay.hand_cards", { n: (frame.hands[p.name] || []).length })),
        cards(frame.hands[p.name], t("replay.hand_of", { name: p.name }))),
      p.staging.length ? h("div", { class: "rp-row rp-staging" }, h("span", { class: "rp-label" }, t("replay.staging")),
        cards(p.staging, t("replay.staging"))) : null,
      h("div", { class: "rp-row rp-stock" }, h("span", { class: "rp-label" }, t("replay.stock", { n: (frame.stocks[p.name] || []).length })),
        cards(frame.stocks[p.name], t("replay.stock", { n: (frame.stocks[p.name] || []).length }))));
  }));
}

/** A classic hand's players: whose turn it is, each hand, and the one shared stock. */
function classicPlayersView(frame) {
  const d = R.data, v = frame.view;
  const seats = v.players.map((p, i) => {
    const bot = d.bots.includes(p.name), onTurn = v.turn === p.name;
    const hand = frame.hands[p.name] || [];
    return h("section", { class: `panel rp-player seat-c${i}${onTurn ? " on-turn" : ""}`,
      dataset: { player: p.name, status: p.status, turn: String(onTurn) } },
    h("h3", {}, p.name, bot ? h("span", { class: "badge bot-badge" }, t("bots.badge")) : null,
      onTurn ? h("span", { class: "badge turn-badge" }, t("replay.on_turn")) : null,
      p.status !== "active" ? h("span", { class: "badge" }, t("replay.status." + p.status, {}, p.status)) : null),
    h("div", { class: "rp-row rp-hand" }, h("span", { class: "rp-label" }, t("replay.hand_cards", { n: hand.length })),
      cards(hand, t("replay.hand_of", { name: p.name }))));
  });
  const stock = frame.stock || [];
  seats.push(h("section", { class: "panel rp-player rp-shared-stock", id: "rp-stock" },
    h("div", { class: "rp-row rp-stock" }, h("span", { class: "rp-label" }, t("replay.stock", { n: stock.length })),
      cards(stock, t("replay.stock", { n: stock.length })))));
  return h("section", { class: "rp-players", id: "rp-players" }, seats);
}

/** A classic hand's turns up to the frame shown, newest first, each in words. */
function classicNoticesView() {
  const d = R.data;
  const events = d.frames.slice(0, R.frame + 1).flatMap((f) => f.events);
  const { turns } = sinceMyTurn(events, null);
  const items = turns.slice(-NOTICES).reverse().map((tn) =>
    h("li", { class: "notice info", dataset: { player: tn.player, end: tn.end } },
      h("strong", {}, tn.player), " ", turnText(tn)));
  return h("section", { class: "panel rp-notices", "aria-labelledby": "rp-notices-title" },
    h("h2", { id: "rp-notices-title" }, t("replay.turns")),
    items.length ? h("ol", { class: "notices", id: "rp-notice-list", "aria-live": "polite" }, items)
      : h("p", { class: "muted" }, t("replay.nothing_yet")));
}

function noticesView() {
  if (classic()) return classicNoticesView();
  const d = R.data;
  const items = [];
  for (let i = R.frame; i >= 0 && items.length < NOTICES; i--) {
    const f = d.frames[i];
    for (let j = f.events.length - 1; j >= 0 && items.length < NOTICES; j--) {
      const ev = f.events[j];
      const n = describeEvent(ev, null);
      if (!n) continue;
      const undo = ev.kind === "chain_undo";
      items.push(h("li", { class: `notice ${n.level}${undo ? " rp-undo" : ""}${i === R.frame ? " now" : ""}`, dataset: { kind: ev.kind, frame: i } },
        h("span", { class: "rp-time" }, fmt(f.t)),
        undo ? h("span", { class: "rp-undo-icon", "aria-hidden": "true" }, "\u21BA") : null,
        " ", n.text));
    }
  }
  return h("section", { class: "panel rp-notices", "aria-labelledby": "rp-notices-title" },
    h("h2", { id: "rp-notices-title" }, t("replay.events")),
    items.length ? h("ol", { class: "notices", id: "rp-notice-list", "aria-live": "polite" }, items)
      : h("p", { class: "muted" }, t("replay.nothing_yet")));
}

function resultView(view) {
  const res = view.result;
  if (!res) return null;
  const names = R.data.seats;
  const end = t((classic() ? "ct.end." : "end.") + res.end, {}, res.end); // a classic hand's own ends (C24)
  return h("section", { class: "panel rp-result", id: "rp-result" },
    h("h2", {}, res.winner ? t("replay.won", { name: res.winner, end }) : t("replay.no_winner", { end })),
    h("table", { class: "scores" }, h("tbody", {}, names.map((n) => h("tr", {},
      h("th", { scope: "row" }, n), h("td", { class: "num" }, String(res.scores[n] ?? 0)))))));
}

function controls() {
  const d = R.data;
  const max = Math.round(d.duration * 1000);
  const slider = h("input", {
    type: "range", id: "rp-timeline", min: 0, max: Math.max(1, max), step: 1, value: Math.round(R.clock * 1000),
    "aria-label": t("replay.timeline"),
    oninput: (e) => { const c = Number(e.target.value) / 1000; setFrame(frameAt(d.frames, c), { clock: c }); },
  });
  const marks = h("div", { class: "rp-marks", "aria-label": t("replay.undos") }, d.undos.map((i) => {
    const f = d.frames[i];
    const at = d.duration > 0 ? (100 * f.t) / d.duration : 0;
    return h("button", {
      type: "button", class: "rp-undo-mark", style: `left: ${at}%`, dataset: { frame: i },
      title: t("replay.undo_at", { t: fmt(f.t) }), "aria-label": t("replay.undo_at", { t: fmt(f.t) }),
      onclick: () => { pause(); setFrame(i); },
    }, h("span", { "aria-hidden": "true" }, "\u21BA"));
  }));
  const speeds = h("div", { class: "rp-speeds", role: "radiogroup", "aria-label": t("replay.speed") },
    h("span", { class: "rp-label" }, t("replay.speed")),
    SPEEDS.map((s) => h("button", {
      type: "button", class: "btn tiny" + (R.speed === s ? " on" : ""), role: "radio",
      "aria-checked": String(R.speed === s), dataset: { speed: s }, id: `rp-speed-${s}`,
      onclick: () => { R.speed = s; update(); },
    }, `${s}\u00D7`)));
  return h("div", { class: "panel rp-controls", id: "rp-controls" },
    h("div", { class: "row rp-buttons" },
      h("button", { type: "button", class: "btn", id: "rp-start", onclick: () => { pause(); setFrame(0); } }, "\u25C0\u25C0 ", t("replay.start")),
      h("button", { type: "button", class: "btn", id: "rp-prev", disabled: R.frame === 0, onclick: () => { pause(); setFrame(R.frame - 1); } }, "\u25C0 ", t("replay.prev")),
      h("button", { type: "button", class: "btn primary", id: "rp-play", onclick: () => (R.playing ? pause() : play()) },
        R.playing ? t("replay.pause") : atEnd() ? t("replay.again") : t("replay.play")),
      h("button", { type: "button", class: "btn", id: "rp-next", disabled: R.frame >= d.frames.length - 1, onclick: () => { pause(); setFrame(R.frame + 1); } }, t("replay.next"), " \u25B6"),
      speeds,
      h("span", { class: "chip rp-clock", id: "rp-clock" }, t("replay.time", { now: fmt(R.clock), total: fmt(d.duration) }))),
    h("div", { class: "rp-timeline" }, slider, marks));
}

let shownFrame = -1;
let shownKey = "";

/** Redraw what changed: the controls always, the table and notices when the frame did. */
function update() {
  const root = document.getElementById("replay");
  const d = R.data;
  root.dataset.frame = String(R.frame);
  root.dataset.ended = String(atEnd());
  root.dataset.playing = String(R.playing);
  const key = `${R.frame}|${getLang()}`;
  const ctl = document.getElementById("rp-controls");
  if (ctl && shownKey === key) {
    // Only the clock moved: keep the slider under the pointer while it is dragged.
    const slider = document.getElementById("rp-timeline");
    if (document.activeElement !== slider) slider.value = String(Math.round(R.clock * 1000));
    document.getElementById("rp-clock").textContent = t("replay.time", { now: fmt(R.clock), total: fmt(d.duration) });
    document.getElementById("rp-play").textContent = R.playing ? t("replay.pause") : atEnd() ? t("replay.again") : t("replay.play");
    for (const b of root.querySelectorAll(".rp-speeds [data-speed]")) {
      const on = Number(b.dataset.speed) === R.speed;
      b.classList.toggle("on", on);
      b.setAttribute("aria-checked", String(on));
    }
    return;
  }
  const focused = document.activeElement && document.activeElement.id;
  shownKey = key;
  shownFrame = R.frame;
  const frame = d.frames[R.frame];
  root.replaceChildren(...[
    h("h1", { id: "rp-title" }, t("replay.title", { code: d.code, hand: d.hand })),
    h("p", { class: "muted rp-sub" }, t("replay.sub", { players: d.seats.join(", ") }), " ",
      h("a", { href: `/t/${d.code}`, id: "rp-table-link" }, t("replay.to_table"))),
    controls(),
    frame.undos ? h("p", { class: "rp-undo-now", role: "status", id: "rp-undo-now" }, h("strong", {}, t("replay.undo")), " ", t("replay.undo_here", { n: frame.undos })) : null,
    h("div", { class: "rp-main" },
      h("div", { class: "rp-left" }, tableView(frame.view), classic() ? classicPlayersView(frame) : playersView(frame)),
      h("div", { class: "rp-right" }, frame.view.result ? resultView(frame.view) : null, noticesView())),
  ].filter(Boolean));
  if (focused) { const el = document.getElementById(focused); if (el) el.focus(); }
}

function renderError() {
  const root = document.getElementById("replay");
  root.dataset.state = "error";
  const e = R.error;
  root.replaceChildren(h("section", { class: "panel rp-error", role: "alert", id: "rp-error", dataset: { code: e.code } },
    h("h1", {}, t("replay.failed")),
    h("p", {}, refusalText(e.code, e.message)),
    h("p", { class: "row" }, R.code ? h("a", { class: "btn", href: `/t/${R.code}` }, t("replay.to_table")) : null,
      h("a", { class: "btn ghost", href: "/" }, t("btn.home")))));
}

function renderAll() {
  document.documentElement.lang = getLang();
  document.title = t("replay.page_title");
  const label = document.getElementById("lang-label");
  if (label) label.textContent = t("lang.label", {}, "Language");
  if (R.error) { renderError(); return; }
  if (!R.data) {
    document.getElementById("replay").replaceChildren(h("p", { class: "muted" }, t("replay.loading")));
    return;
  }
  shownKey = "";
  update();
}

function onKey(e) {
  if (!R.data || e.target.tagName === "SELECT" || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === " " && e.target.tagName !== "BUTTON") { e.preventDefault(); R.playing ? pause() : play(); }
  else if (e.key === "ArrowLeft" && e.target.id !== "rp-timeline") { pause(); setFrame(R.frame - 1); }
  else if (e.key === "ArrowRight" && e.target.id !== "rp-timeline") { pause(); setFrame(R.frame + 1); }
}

async function main() {
  const sel = document.getElementById("lang");
  if (sel) {
    sel.value = getLang();
    sel.addEventListener("change", () => setLang(sel.value));
  }
  onLangChange(renderAll);
  const where = parsePath(location.pathname);
  if (!where) { R.error = { code: "not_found", message: "" }; renderAll(); return; }
  R.code = where.code;
  R.hand = where.hand;
  renderAll();
  await load();
  const root = document.getElementById("replay");
  root.dataset.state = R.error ? "error" : "ready";
  renderAll();
  document.addEventListener("keydown", onKey);
  if (typeof window !== "undefined") window.__mvxReplay = R;
}

if (typeof document !== "undefined" && document.getElementById("replay")) main();
