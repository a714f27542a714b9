// Machiavelox browser client: state, routing, the connection and every player action.
//
// The page renders only what the server says (snapshot/update views); a command is sent and
// nothing changes until the server's next view arrives. A refusal shows the server's sentence
// (or its translation) and changes nothing. The only local state is presentation: the order
// the player arranged their hand in, the selection, the language, the removed-cards toggle.
import { t, setLang, getLang, onLangChange, refusalText } from "./i18n.js";
import { api, Connection, ApiError } from "./net.js";
import { applyFrame, fullEvents } from "./changes.js";
import { h, toast, dockToast, tickClocks, setClockBase, confirmDialog, cssKey } from "./ui.js";
import { reconcileOrder, sortBySuit, sortByRank } from "./cards.js";
import { installDnd } from "./dnd.js";
import { describeEvent, faces } from "./notices.js";
import { renderHome } from "./home.js";
import { renderTable } from "./table.js";
import { createAgora, renderAgora, isAgoraCode } from "./agora.js";
import { createRanking, renderRanking, renderHistory } from "./ranking.js";
import { initAccount } from "./account.js";

const LS = {
  session: "mvx.session",   // {token, name}
  table: "mvx.table",       // the code of the table this browser sits at
  order: "mvx.order.",      // + code: the hand arrangement
  sort: "mvx.sort",
  removed: "mvx.showRemoved",
};

function load(key, fallback = null) {
  try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch (e) { return fallback; }
}
function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: fine */ }
}

export const S = {
  actions: null,          // set to Actions below (the table view calls back through it)
  route: "home",
  session: load(LS.session),
  code: null,
  conn: null,
  connState: "closed",
  fatal: null,            // a message that replaces the table (no such table...)
  needName: false,        // /t/CODE opened without a session: ask for a name first
  spectator: false,
  seat: null,
  version: -1,
  game: null,
  gameVersion: null,      // the version S.game is the view of (updates carry changes from it)
  awaitingSnapshot: true, // a snapshot is on its way (after connecting, or asked for on a gap)
  table: null,
  notices: [],            // {key, ev}
  seenEvents: new Set(),
  selection: [],          // [{zone: "hand"|"staging"|"table", face, occ, meld}]
  handOrder: [],
  sortMode: load(LS.sort, "suit"),
  showRemoved: load(LS.removed, true),
  busy: false,
  player: null,           // the player whose history /#player/{id} shows ("me": mine)
  homeError: null,
  showHelp: false,
  fresh: new Map(),       // face -> how many copies just arrived in my hand
  lastHand: null,
  hint: null,             // the last hint: {steps, index (the current step), created: Map "n1" -> meld id, snap, stale}
  botLevel: "casual",     // the level the waiting room's "Add a bot" seats
  botBusy: false,         // a bot request is on its way
  botError: null,         // the server's sentence for the last refused bot request
};

// ---------------------------------------------------------------- routing

// /t/CODE is a table; on / the hash names the other pages (the server serves index.html for
// / and /t/CODE only): #agora (the queue), #ranking, #player/{id} (#player/me: mine).
function parseRoute() {
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]+)\/?$/);
  if (m) return { route: "table", code: m[1].toUpperCase() };
  const hash = location.hash.replace(/^#\/?/, "");
  if (hash === "agora" || hash === "ranking") return { route: hash };
  const p = hash.match(/^player\/([^/]+)$/);
  if (p) { try { return { route: "player", player: decodeURIComponent(p[1]) }; } catch (e) { /* bad escape */ } }
  return { route: "home" };
}

export function navigate(path, replace = false) {
  if (location.pathname + location.hash !== path) history[replace ? "replaceState" : "pushState"]({}, "", path);
  route();
}

window.addEventListener("popstate", () => route());

function route() {
  const r = parseRoute();
  if (r.route === "table") {
    if (S.route !== "table" || S.code !== r.code) openTable(r.code);
    Agora.away();
    Ranks.leave();
  } else {
    leaveTableView();
    const was = S.route, wasPlayer = S.player;
    S.route = r.route;
    S.player = r.player || null;
    if (r.route !== "agora") Agora.away(); // another page: leaving the queue
    if (r.route === "agora" && was !== "agora") Agora.enter();
    if (r.route !== "ranking") Ranks.leave();
    if (r.route === "ranking" && was !== "ranking") Ranks.enterRanking();
    if (r.route === "player" && (was !== "player" || wasPlayer !== S.player)) Ranks.enterPlayer(S.player);
    if (r.route === "home" && was !== "home") S.rank.preview = undefined; // fresh on each visit
    render();
  }
}

function leaveTableView() {
  if (S.conn) S.conn.close();
  S.conn = null;
  S.code = null;
  S.game = null;
  S.table = null;
  S.seat = null;
  S.fatal = null;
  S.replaced = false;
  S.needName = false;
  S.spectator = false;
  S.notices = [];
  S.seenEvents = new Set();
  S.selection = [];
  S.version = -1;
  S.gameVersion = null;
  S.awaitingSnapshot = true;
  S.lastHand = null;
  S.fresh = new Map();
  S.hint = null;
  S.botBusy = false;
  S.botError = null;
}

// ---------------------------------------------------------------- session and tables

async function ensureSession(name) {
  name = (name || "").trim();
  if (S.session && S.session.token && (!name || S.session.name === name)) return S.session;
  if (!name) throw new ApiError(400, "name_required", "");
  let res;
  try {
    res = await api("POST", "/api/session", { name });
  } catch (e) {
    if (e instanceof ApiError && e.code === "bad_field") throw new ApiError(e.status, "bad_name", e.message);
    throw e;
  }
  S.session = { token: res.token, name: res.name || name };
  save(LS.session, S.session);
  return S.session;
}

function apiErrorText(e) {
  if (e.code === "network") return t("err.network");
  const known = t("err." + e.code, {}, null);
  if (known) return known;
  if (getLang() === "en" && e.message) return e.message;
  return refusalText(e.code, e.message);
}

/** A refused bot request: the server's sentence (in English), else its translation by code. */
function botErrorText(e) {
  if (e.code === "network") return t("err.network");
  if (getLang() === "en" && e.message) return e.message;
  return t("bots.err." + e.code, {}, null) || apiErrorText(e);
}

// Bot seats. The TABLE_SUMMARY lists them (`bots`); with an older server that does not, this
// browser remembers the names the bot endpoint answered with (per table, sessionStorage), and
// otherwise recognises the names the server gives its bots ("Casual bot", "Shark bot 2").
const BOT_NAME = /^(Casual|Shark) bot( \d+)?$/;
function rememberedBots(code) {
  try { const v = JSON.parse(sessionStorage.getItem("mvx.bots." + code) || "[]"); return Array.isArray(v) ? v : []; } catch (e) { return []; }
}
function rememberBots(code, names) {
  try { sessionStorage.setItem("mvx.bots." + code, JSON.stringify([...new Set([...rememberedBots(code), ...names])])); } catch (e) { /* fine */ }
}
function isBotSeat(name) {
  if (typeof name !== "string") return false;
  if (S.table && Array.isArray(S.table.bots)) return S.table.bots.includes(name);
  return BOT_NAME.test(name) || (!!S.code && rememberedBots(S.code).includes(name));
}

/** Was this table matched by the agora? The server's summary says so; older servers do not,
 * and then this browser's own memory of its agora tables decides. */
function isAgoraTable() {
  if (S.table && typeof S.table.agora === "boolean") return S.table.agora;
  return !!S.code && isAgoraCode(S.code);
}

export const Home = {
  async create(name, mode) {
    S.homeError = null;
    try {
      const sess = await ensureSession(name);
      const res = await api("POST", "/api/tables", { mode }, sess.token);
      save(LS.table, res.code);
      navigate(`/t/${res.code}`);
    } catch (e) {
      S.homeError = e instanceof ApiError ? apiErrorText(e) : String(e);
      render();
    }
  },
  async join(name, codeText) {
    S.homeError = null;
    const code = (codeText || "").trim().replace(/^.*\/t\//, "").replace(/[^A-Za-z0-9_-]/g, "").toUpperCase();
    if (!code) { S.homeError = t("err.code_required"); render(); return; }
    try {
      await ensureSession(name);
      navigate(`/t/${code}`);
    } catch (e) {
      S.homeError = e instanceof ApiError ? apiErrorText(e) : String(e);
      render();
    }
  },
  async nameThenJoin(name) {
    S.homeError = null;
    try {
      await ensureSession(name);
      S.needName = false;
      const code = S.code;
      S.code = null;
      openTable(code);
    } catch (e) {
      S.homeError = e instanceof ApiError ? apiErrorText(e) : String(e);
      render();
    }
  },
  /** Join the agora queue (agora.js) under this name. */
  agora(name) {
    return Agora.start(name);
  },
  backHome() {
    navigate("/");
  },
};

// The agora queue, the ranking and players' histories: their own modules, fed from here.
const Agora = createAgora({
  S, render, navigate, ensureSession,
  errorText: (e) => (e instanceof ApiError ? apiErrorText(e) : String(e)),
  saveTable: (code) => save(LS.table, code),
  announce: (text) => announce(text),
});
initAccount({ S, render, saveSession: (session) => save(LS.session, session), errorText: (e) => (e instanceof ApiError ? apiErrorText(e) : String(e)) });
const Ranks = createRanking({ S, render, errorText: (e) => (e instanceof ApiError ? apiErrorText(e) : String(e)) });

/** In-page links: real hrefs (open in a new tab, copy) that navigate without a reload. */
const go = {
  to: (path) => navigate(path),
  link(href, text, attrs = {}) {
    return h("a", { ...attrs, href, onclick: (ev) => {
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
      ev.preventDefault();
      navigate(href);
    } }, text);
  },
};

async function openTable(code) {
  leaveTableView();
  S.route = "table";
  S.code = code;
  S.handOrder = load(LS.order + code, []);
  const mem = loadTableMemory(code);
  if (mem) {
    S.notices = mem.notices;
    for (const n of mem.notices) S.seenEvents.add(n.key);
    S.resumeFrom = typeof mem.version === "number" && mem.version >= 0 ? mem.version : null;
  }
  render();
  // Look first: a full table is joined only by its own players (the socket's welcome names
  // our seat, or none: we watch), so nobody gets a needless 409 in the console.
  let summary = null;
  try {
    summary = await api("GET", `/api/tables/${encodeURIComponent(code)}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) { S.fatal = t("err.no_table", { code }); render(); return; }
  }
  if (S.code !== code) return;
  if (!S.session) {
    if (summary && summary.seats.length >= 3) { S.spectator = true; connect(); return; } // just watch
    S.needName = true;
    render();
    return;
  }
  let seated = null; // null: the welcome will tell
  if (!summary || summary.seats.length < 3) {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await api("POST", `/api/tables/${encodeURIComponent(code)}/join`, {}, S.session.token);
        seated = true;
        break;
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        if (e.status === 401 && attempt === 0) {
          // The server no longer knows this token (restarted with a new secret): same name, new token.
          const name = S.session.name;
          S.session = null;
          try { await ensureSession(name); continue; } catch (e2) { S.fatal = apiErrorText(e2); render(); return; }
        }
        if (e.status === 404) { S.fatal = t("err.no_table", { code }); render(); return; }
        if (e.code === "network") break; // the socket will retry
        seated = false; // taken meanwhile: watch
        toast(t("info.watching_because", { why: apiErrorText(e) }), "info");
        break;
      }
    }
  }
  if (S.code !== code) return;
  if (seated !== false) save(LS.table, code);
  S.spectator = seated === false;
  connect();
}

function connect() {
  const conn = new Connection(S.code, S.session ? S.session.token : null, {
    onMessage: onMessage,
    onState: (state, code, reason) => {
      S.connState = state;
      if (state === "open") S.awaitingSnapshot = true; // the resume brings one
      if (state === "failed") {
        if (code === 4401 && S.session && !S.retriedToken) {
          // The server no longer accepts this token (restarted with a new secret): new session, same name.
          S.retriedToken = true;
          const name = S.session.name, table = S.code;
          S.session = null;
          ensureSession(name).then(() => { S.code = null; openTable(table); }, (e) => { S.fatal = apiErrorText(e); render(); });
          return;
        }
        if (code === 4409) {
          // Replaced by a newer window of this seat: say so and wait; never reconnect by
          // ourselves (the two windows would take the seat from each other forever).
          S.replaced = true;
          render();
          return;
        }
        S.fatal = code === 4404 ? t("err.no_table", { code: S.code })
          : code === 4403 ? t("err.bad_origin")
          : code === 4429 ? t("err.too_many_sockets")
          : (reason || t("err.closed", { code }));
      }
      render();
    },
  });
  if (S.resumeFrom !== null && S.resumeFrom !== undefined) conn.lastVersion = S.resumeFrom;
  S.resumeFrom = null;
  S.conn = conn;
  window.__mvx = { S, conn }; // handy in the console and for the browser tests
  conn.connect();
}

// ---------------------------------------------------------------- server messages

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      S.seat = msg.seat ?? null;
      S.spectator = S.seat === null;
      if (S.seat !== null) save(LS.table, S.code);
      render();
      return;
    case "snapshot":
      if (typeof msg.version === "number") S.version = Math.max(S.version, msg.version);
      S.gameVersion = msg.version;
      S.awaitingSnapshot = false;
      saveTableMemory();
      if (msg.table) S.table = msg.table;
      applyGame(msg.game);
      break;
    case "update": {
      if (typeof msg.version === "number") {
        if (msg.version < S.version) return; // an older view than the one shown
        S.version = msg.version;
      }
      // Changes since version - 1 (server/web/changes.js); on a gap, ask for a snapshot once.
      const next = applyFrame(S.game, S.gameVersion, msg);
      // The events leave out the `t` and `hand` the view says; those of a frame that could
      // not be applied come again, whole, in the replay that answers the resume.
      const events = msg.events || [];
      addEvents(next.ok ? fullEvents(events, next.game) : events.filter((e) => "t" in e && "hand" in e));
      if (!next.ok) {
        if (!S.awaitingSnapshot && S.conn) {
          S.awaitingSnapshot = true;
          S.conn.raw({ type: "resume", last_version: S.gameVersion });
        }
        break;
      }
      if (msg.replay) break; // the missed events; the snapshot follows
      S.gameVersion = msg.version;
      applyGame(next.game);
      break;
    }
    case "table":
      S.table = msg.table;
      break;
    case "refused":
      toast(refusalText(msg.code, msg.message));
      return;
    case "error":
      toast(msg.message || msg.code);
      return;
    default:
      return; // ack, pong
  }
  render();
}

// Notices and the last version seen live in sessionStorage per table: a reload keeps the
// notices and resumes from that version (the server replays what was missed meanwhile).
function saveTableMemory() {
  if (!S.code) return;
  try {
    sessionStorage.setItem("mvx.mem." + S.code, JSON.stringify({ version: S.version, notices: S.notices.slice(0, 60) }));
  } catch (e) { /* full or unavailable: fine */ }
}

function loadTableMemory(code) {
  try {
    const m = JSON.parse(sessionStorage.getItem("mvx.mem." + code) || "null");
    if (m && Array.isArray(m.notices)) return m;
  } catch (e) { /* ignore */ }
  return null;
}

function addEvents(events) {
  for (const ev of events) {
    const key = `${ev.hand ?? "g"}:${ev.seq}:${ev.kind}:${ev.player ?? ""}`;
    if (S.seenEvents.has(key)) continue;
    S.seenEvents.add(key);
    const d = describeEvent(ev, S.seat);
    if (!d) continue;
    S.notices.unshift({ key, ev });
    if (d.level === "alert" && d.hitsMe) toast(d.text, "alert");
    else if (d.level !== "minor") announce(d.text);
  }
  if (S.notices.length > 60) S.notices.length = 60;
  saveTableMemory();
}

/** Screen readers hear new notices from one quiet live region (the list itself is redrawn). */
function announce(text) {
  const box = document.getElementById("announce");
  if (!box) return;
  const p = document.createElement("p");
  p.textContent = text;
  box.appendChild(p);
  while (box.childElementCount > 5) box.firstElementChild.remove();
}

function applyGame(game) {
  S.game = game || null;
  const hv = game && game.hand;
  setClockBase(hv ? hv.t : null, game ? game.game_t : null);
  const mine = hv && hv.hand ? hv.hand : [];
  markFresh(game, mine);
  followHint(hv);
  S.handOrder = reconcileOrder(S.handOrder, mine, S.sortMode);
  if (S.code) save(LS.order + S.code, S.handOrder);
  pruneSelection();
}

/** Cards that just arrived in my hand (a draw, a card that came back) glow for a moment. */
let freshTimer = null;
function markFresh(game, mine) {
  const handNo = game ? game.hand_no : null;
  const prev = S.lastHand;
  S.lastHand = { handNo, cards: [...mine] };
  if (!prev || prev.handNo !== handNo) return;
  const left = new Map();
  for (const f of prev.cards) left.set(f, (left.get(f) || 0) + 1);
  const fresh = new Map();
  for (const f of mine) {
    const n = left.get(f) || 0;
    if (n > 0) left.set(f, n - 1);
    else fresh.set(f, (fresh.get(f) || 0) + 1);
  }
  if (!fresh.size) return;
  S.fresh = fresh;
  clearTimeout(freshTimer);
  freshTimer = setTimeout(() => { S.fresh = new Map(); render(); }, 2500);
}

// ---- hints, step by step ---------------------------------------------------------------
// A hint is the server's ordered list of commands (docs/protocol.md "Hints"). The page shows
// it as numbered steps and highlights only the current step's card(s) and meld(s). Each new
// view is compared with what the steps done so far predict: a step the player carried out
// moves the hint on; anything else that touches the hint (my hand, my staging area, a meld
// it names) makes it stale: its highlights go and it asks to be asked again.

/** What the hint needs of a view: my hand, my staging area, the melds' cards by id. */
function hintSnap(hv) {
  const me = hv ? hv.players.find((p) => p.name === S.seat) : null;
  return {
    hand: [...((hv && hv.hand) || [])],
    staging: [...(me ? me.staging : [])],
    melds: new Map((hv ? hv.table : []).map((m) => [m.id, [...m.cards]])),
  };
}

function removeOne(list, face) { const i = list.indexOf(face); if (i >= 0) list.splice(i, 1); return i >= 0; }

/** A meld reference of a step: a table id, or a name ("n1") of a meld an earlier step made. */
export function hintMeldId(ref) {
  if (typeof ref === "number") return ref;
  return S.hint && S.hint.created.has(ref) ? S.hint.created.get(ref) : null;
}

/** A meld in `now` that is not in `before` and holds `faces`: the one a step just made. */
function newMeldWith(before, now, faces) {
  for (const [id, cards] of now.melds) {
    if (before.melds.has(id)) continue;
    if (faces.every((f) => cards.includes(f))) return id;
  }
  return null;
}

/** Did the view `now` carry out `step` since `snap`? If so, `snap` as the step leaves it. */
function stepDone(step, snap, now) {
  const c = step.card;
  const cnt = (list, f) => countOf(list || [], f);
  const next = { hand: [...snap.hand], staging: [...snap.staging], melds: new Map([...snap.melds].map(([k, v]) => [k, [...v]])) };
  const put = (ref, face) => { const id = hintMeldId(ref); if (id !== null && next.melds.has(id)) next.melds.get(id).push(face); };
  switch (step.do) {
    case "stage":
      if (cnt(now.staging, c) <= cnt(snap.staging, c)) return null;
      removeOne(next.hand, c); next.staging.push(c); return next;
    case "add":
    case "place": {
      const from = step.do === "add" ? "hand" : "staging";
      if (cnt(now[from], c) >= cnt(snap[from], c)) return null;
      removeOne(next[from], c); put(step.meld, c); return next;
    }
    case "move": {
      const src = hintMeldId(step.meld);
      if (src === null || cnt(now.melds.get(src), c) >= cnt(snap.melds.get(src), c)) return null;
      removeOne(next.melds.get(src) || [], c);
      if (step.to === "new") {
        const id = newMeldWith(snap, now, [c]);
        if (id === null) return null;
        if (step.creates) S.hint.created.set(step.creates, id);
        next.melds.set(id, [c]);
      } else put(step.to, c);
      return next;
    }
    case "lay": {
      const cards = step.cards || [];
      if (!cards.length || cnt(now.staging, cards[0]) >= cnt(snap.staging, cards[0])) return null;
      const id = newMeldWith(snap, now, cards);
      if (id === null) return null;
      if (step.creates) S.hint.created.set(step.creates, id);
      for (const f of cards) removeOne(next.staging, f);
      next.melds.set(id, [...cards]);
      return next;
    }
    default:
      return null;
  }
}

function sameCards(a, b) {
  if (!a || !b) return a === b;
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

/** The melds the steps from the current one on still name (those already known by id). */
function hintMeldsAhead() {
  const ids = new Set();
  for (const st of S.hint.steps.slice(S.hint.done)) {
    for (const ref of [st.meld, st.to]) {
      const id = ref === undefined || ref === "new" ? null : hintMeldId(ref);
      if (id !== null) ids.add(id);
    }
  }
  return ids;
}

function setHint(res, hv) {
  S.hint = { steps: res.steps || [], index: 0, done: 0, created: new Map(), snap: hintSnap(hv), stale: false, moved: res.moved || 0, cards: res.cards || [] };
}

/** A new view: move the hint on past the steps it shows carried out, or mark it stale. */
function followHint(hv) {
  const h0 = S.hint;
  if (!h0 || h0.stale) return;
  if (!hv || hv.result) { S.hint = null; return; }
  const now = hintSnap(hv);
  let snap = h0.snap;
  while (h0.done < h0.steps.length) {
    const next = stepDone(h0.steps[h0.done], snap, now);
    if (!next) break;
    snap = next;
    h0.done += 1;
  }
  if (h0.done >= h0.steps.length) { S.hint = null; return; } // carried out to the end
  h0.index = Math.max(h0.index, h0.done);
  const touched = !sameCards(snap.hand, now.hand) || !sameCards(snap.staging, now.staging)
    || [...hintMeldsAhead()].some((id) => !sameCards(snap.melds.get(id), now.melds.get(id)));
  if (touched) { h0.stale = true; return; }
  h0.snap = now;
}

/** The current step's highlights: {hand: Map face->copies, staging: Map, melds: Set, table: Set "meld:face", newMeld}. */
export function hintMarks() {
  const marks = { hand: new Map(), staging: new Map(), melds: new Set(), table: new Set(), newMeld: false };
  const hn = S.hint;
  if (!hn || hn.stale || hn.index >= hn.steps.length) return marks;
  const st = hn.steps[hn.index];
  const one = (m, f) => m.set(f, (m.get(f) || 0) + 1);
  const meld = (ref) => {
    if (ref === "new") { marks.newMeld = true; return null; }
    const id = hintMeldId(ref);
    if (id === null) marks.newMeld = true; else marks.melds.add(id);
    return id;
  };
  if (st.do === "stage") one(marks.hand, st.card);
  else if (st.do === "add") { one(marks.hand, st.card); meld(st.meld); }
  else if (st.do === "place") { one(marks.staging, st.card); meld(st.meld); }
  else if (st.do === "move") { const id = meld(st.meld); if (id !== null) marks.table.add(`${id}:${st.card}`); meld(st.to); }
  else if (st.do === "lay") { for (const f of st.cards || []) one(marks.staging, f); marks.newMeld = true; }
  return marks;
}

/** Keep only selected cards that are still where they were. */
function pruneSelection() {
  const hv = S.game && S.game.hand;
  if (!hv) { S.selection = []; return; }
  const me = hv.players.find((p) => p.name === S.seat);
  S.selection = S.selection.filter((s) => {
    if (s.zone === "hand") return countOf(S.handOrder, s.face) > s.occ;
    if (s.zone === "staging") return me && countOf(me.staging, s.face) > s.occ;
    if (s.zone === "pile") {
      const piles = hv.tiebreak ? Object.entries(hv.tiebreak.pile).filter(([n]) => n !== S.seat).flatMap(([, f]) => f) : [];
      return countOf(piles, s.face) > s.occ;
    }
    if (s.zone === "table") {
      const m = hv.table.find((x) => x.id === s.meld);
      return m && countOf(m.cards, s.face) > s.occ && !heldByOther(hv, s.face, s.meld);
    }
    return false;
  });
}

function countOf(list, face) { let n = 0; for (const f of list || []) if (f === face) n++; return n; }

export function heldByOther(hv, face, meld) {
  return hv.holds.some((x) => x.card === face && x.meld === meld && x.player !== S.seat);
}

export function myHold() {
  const hv = S.game && S.game.hand;
  return hv ? hv.holds.find((x) => x.player === S.seat) || null : null;
}

export function meView() {
  const hv = S.game && S.game.hand;
  return hv ? hv.players.find((p) => p.name === S.seat) || null : null;
}

// ---------------------------------------------------------------- rendering

let renderQueued = false;
export function render() {
  if (renderQueued) return;
  renderQueued = true;
  queueMicrotask(() => { renderQueued = false; renderNow(); });
}

function renderNow() {
  const app = document.getElementById("app");
  const active = document.activeElement;
  const focusKey = active && active.dataset ? active.dataset.key : null;
  const scrolls = {};
  for (const el of app.querySelectorAll("[data-scroll]")) scrolls[el.dataset.scroll] = [el.scrollLeft, el.scrollTop];
  app.textContent = "";
  document.documentElement.lang = getLang();
  document.title = S.route === "table" && S.code ? `${S.code} · Machiavelox` : "Machiavelox";
  renderHeader();
  app.appendChild(S.route === "table" && !S.needName ? renderTable(S, Actions)
    : S.route === "agora" ? renderAgora(S, Agora, go)
      : S.route === "ranking" ? renderRanking(S, Ranks, Agora, go)
        : S.route === "player" ? renderHistory(S, Ranks, go)
          : renderHome(S, Home, Ranks, go));
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

// ---------------------------------------------------------------- actions

function sendSeq(cmds) {
  // Commands one after the other, stopping at the first refusal (whose sentence shows).
  return (async () => {
    if (!S.conn) return false;
    for (const [what, fields] of cmds) {
      const res = await S.conn.command(what, fields);
      if (!res.ok) return false;
    }
    return true;
  })();
}

function clearSelection() { S.selection = []; }

function group(zone) { return zone === "pile" ? "hand" : zone; }

function selectedIn(zone) { return S.selection.filter((s) => group(s.zone) === zone); }

function isSelected(zone, face, occ, meld) {
  return S.selection.some((s) => s.zone === zone && s.face === face && s.occ === occ && (zone !== "table" || s.meld === meld));
}

function toggle(item) {
  const i = S.selection.findIndex((s) => s.zone === item.zone && s.face === item.face && s.occ === item.occ && s.meld === item.meld);
  if (i >= 0) { S.selection.splice(i, 1); return; }
  if (item.zone === "table") S.selection = [item]; // one table card at a time (§6)
  else S.selection = S.selection.filter((s) => group(s.zone) === group(item.zone)).concat([item]);
}

/** What dropping or clicking `items` onto `target` means, as commands. */
function commandsFor(items, target) {
  if (!items.length) return null;
  const zone = items[0].zone === "pile" ? "hand" : items[0].zone; // tie-break pile cards play like hand cards (R19)
  const faces = items.map((s) => s.face);
  const hold = myHold();
  if (target.kind === "staging") {
    if (zone === "hand") return faces.map((f) => ["stage", { card: f }]);
    return null;
  }
  if (target.kind === "hand") {
    if (zone === "staging") return faces.map((f) => ["unstage", { card: f }]);
    if (zone === "table") return { hint: t("hint.table_to_hand") };
    return null;
  }
  if (target.kind === "meld") {
    if (zone === "hand") return faces.map((f) => ["add", { card: f, meld: target.meld }]);
    if (zone === "staging") return faces.map((f) => ["place", { card: f, meld: target.meld }]);
    if (zone === "table") {
      const it = items[0];
      if (hold && hold.card === it.face && hold.meld === it.meld) return [["drop", { to: target.meld }]];
      if (it.meld === target.meld) return [];
      return [["move", { card: it.face, meld: it.meld, to: target.meld }]];
    }
  }
  if (target.kind === "new") {
    if (zone === "hand") return faces.map((f) => ["stage", { card: f }]).concat([["lay", { cards: faces }]]);
    if (zone === "staging") return [["lay", { cards: faces }]];
    if (zone === "table") {
      const it = items[0];
      if (hold && hold.card === it.face && hold.meld === it.meld) return [["drop", { to: "new" }]];
      return [["move", { card: it.face, meld: it.meld, to: "new" }]];
    }
  }
  return null;
}

async function actOn(items, target) {
  const cmds = commandsFor(items, target);
  if (cmds === null) return false;
  if (!Array.isArray(cmds)) { toast(cmds.hint, "info"); return false; }
  if (!cmds.length) { clearSelection(); render(); return false; }
  clearSelection();
  render();
  return sendSeq(cmds);
}

const DRAW_REPEAT_MS = 300;
let lastDrawAt = -Infinity;

export const Actions = {
  isSelected,
  selectedIn,
  hasSelection: () => S.selection.length > 0,
  hintMarks: () => hintMarks(),
  hintMeldId: (ref) => hintMeldId(ref),

  /** A card was clicked or activated with Enter/Space. */
  activateCard(zone, face, occ, meld) {
    const item = { zone, face, occ, meld: zone === "table" ? meld : undefined };
    const sel = S.selection;
    const selZone = sel.length ? group(sel[0].zone) : null;
    const hold = myHold();
    if (zone === "table") {
      if (selZone === "hand" || selZone === "staging") return actOn(sel, { kind: "meld", meld });
      if (selZone === "table" && sel[0].meld !== meld) return actOn(sel, { kind: "meld", meld });
      if (!sel.length && hold && !(hold.card === face && hold.meld === meld) && hold.meld !== meld) {
        return sendSeq([["drop", { to: meld }]]);
      }
      const hv = S.game.hand;
      if (heldByOther(hv, face, meld)) { toast(refusalText("held"), "info"); return; }
    } else if ((zone === "hand" || zone === "pile") && selZone === "staging") {
      return actOn(sel, { kind: "hand" });
    } else if (zone === "staging" && selZone === "hand") {
      return actOn(sel, { kind: "staging" });
    }
    toggle(item);
    render();
  },

  /** A zone (meld box, staging area, hand, new-meld tile) was clicked or activated. */
  activateZone(kind, meld) {
    if (kind === "new" && selectedIn("staging").length) return actOn(stagedToLay(), { kind });
    const hold = myHold();
    if (!S.selection.length) {
      if (hold && (kind === "meld" || kind === "new")) {
        if (kind === "meld" && hold.meld === meld) return;
        return sendSeq([["drop", { to: kind === "new" ? "new" : meld }]]);
      }
      return;
    }
    return actOn(S.selection, { kind, meld });
  },

  /** Drag payload for a pressed card element (dnd.js). */
  payloadFor(el) {
    const zone = el.dataset.zone;
    if (!zone || !S.seat || S.spectator) return null;
    const face = el.dataset.face, occ = parseInt(el.dataset.occ, 10);
    const meld = el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined;
    let items;
    if (isSelected(zone, face, occ, meld) && zone !== "table") items = selectedIn(group(zone));
    else items = [{ zone, face, occ, meld }];
    const elements = items.map((s) => document.querySelector(`[data-key="${cssKey(s)}"]`)).filter(Boolean);
    return { items, elements };
  },

  onDrop(payload, targetEl, x) {
    const kind = targetEl.dataset.drop;
    const items = payload.items;
    if (kind === "hand" && items[0].zone === "hand") {
      // Rearranging my hand: local only.
      const cardEl = [...targetEl.querySelectorAll(".card[data-zone='hand']")];
      let index = cardEl.length;
      for (let i = 0; i < cardEl.length; i++) {
        const r = cardEl[i].getBoundingClientRect();
        if (x < r.left + r.width / 2) { index = i; break; }
      }
      Actions.moveInHand(items, index);
      return;
    }
    const meld = targetEl.dataset.meld ? parseInt(targetEl.dataset.meld, 10) : undefined;
    // A staged card dropped on "New meld" lays as L does: the selected staged cards when
    // several are selected, otherwise the whole staging area.
    // (Dragging a selected card drags the whole selection.)
    if (kind === "new" && items[0].zone === "staging") { actOn(items.length > 1 ? items : allStaged(), { kind }); return; }
    actOn(items, { kind, meld });
  },

  moveInHand(items, index) {
    // Remove the dragged cards (by position) and insert them before `index`.
    const positions = items.map((s) => nthIndex(S.handOrder, s.face, s.occ)).filter((i) => i >= 0).sort((a, b) => a - b);
    const moving = positions.map((i) => S.handOrder[i]);
    const rest = S.handOrder.filter((_, i) => !positions.includes(i));
    const before = positions.filter((i) => i < index).length;
    const at = Math.max(0, Math.min(rest.length, index - before));
    S.handOrder = [...rest.slice(0, at), ...moving, ...rest.slice(at)];
    S.sortMode = "custom";
    save(LS.sort, S.sortMode);
    save(LS.order + S.code, S.handOrder);
    clearSelection();
    render();
  },

  /** Keyboard rearranging: move the focused hand card one place left (-1) or right (+1). */
  shiftHandCard(face, occ, delta) {
    const i = nthIndex(S.handOrder, face, occ);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= S.handOrder.length) return;
    const order = [...S.handOrder];
    [order[i], order[j]] = [order[j], order[i]];
    S.handOrder = order;
    S.sortMode = "custom";
    save(LS.sort, S.sortMode);
    save(LS.order + S.code, S.handOrder);
    renderNow();
    const newOcc = countOf(order.slice(0, j), face);
    const el = document.querySelector(`[data-key="${cssKey({ zone: "hand", face, occ: newOcc })}"]`);
    if (el) el.focus();
  },

  sort(mode) {
    S.sortMode = mode;
    save(LS.sort, mode);
    S.handOrder = mode === "rank" ? sortByRank(S.handOrder) : sortBySuit(S.handOrder);
    save(LS.order + S.code, S.handOrder);
    clearSelection();
    render();
  },

  toggleRemoved() {
    S.showRemoved = !S.showRemoved;
    save(LS.removed, S.showRemoved);
    render();
  },

  toggleHelp() { S.showHelp = !S.showHelp; render(); },

  clearSelection() { clearSelection(); render(); },

  /** Ask the server for a hint (friendly games) and highlight the play it suggests. */
  async hint() {
    if (!S.conn) return;
    const res = await S.conn.hint();
    if (!res) { toast(t("suggest.failed"), "info"); return; }
    if (res.type !== "hint") return; // refused: its sentence is shown already
    const steps = res.steps || [];
    if (!res.cards || !res.cards.length) {
      S.hint = null;
      toast(t(steps.length && steps[0].do === "draw" ? "suggest.draw" : "suggest.nothing"), "info");
    } else {
      setHint(res, S.game && S.game.hand);
      toast(t(res.moved ? "suggest.rework" : "suggest.play", { cards: faces(res.cards), n: res.moved }), "info");
    }
    render();
  },
  /** Step through the hint's steps (delta -1 / +1); close it (delta 0). */
  hintStep(delta) {
    if (!S.hint) return;
    if (delta === 0) S.hint = null;
    else S.hint.index = Math.max(S.hint.done, Math.min(S.hint.steps.length - 1, S.hint.index + delta));
    render();
  },
  /** Draw: a second Draw within 300 ms (a double click, a bouncing D key) is ignored. */
  draw() {
    const now = performance.now();
    if (now - lastDrawAt < DRAW_REPEAT_MS) return false;
    lastDrawAt = now;
    return sendSeq([["draw", {}]]);
  },
  end: () => sendSeq([["end", {}]]),
  cancel: () => sendSeq([["cancel", {}]]),
  stop: () => sendSeq([["stop", {}]]),
  ready: () => sendSeq([["ready", {}]]),
  async giveUp() {
    if (await confirmDialog(t("confirm.give_up"), t("btn.give_up"))) sendSeq([["give_up", {}]]);
  },
  async leaveHand() {
    if (await confirmDialog(t("confirm.leave"), t("btn.leave"))) sendSeq([["leave", {}]]);
  },
  async leaveGame() {
    if (await confirmDialog(t("confirm.leave_game"), t("btn.leave_game"))) sendSeq([["leave_game", {}]]);
  },
  stage() {
    const sel = selectedIn("hand");
    if (!sel.length) { toast(t("hint.select_hand"), "info"); return; }
    actOn(sel, { kind: "staging" });
  },
  unstage() {
    const sel = selectedIn("staging");
    if (!sel.length) { toast(t("hint.select_staged"), "info"); return; }
    actOn(sel, { kind: "hand" });
  },
  lay() {
    const me = meView();
    let items = selectedIn("staging").length ? stagedToLay() : selectedIn("hand");
    if (!items.length && me && me.staging.length) items = stagedToLay();
    if (!items.length) { toast(t("hint.select_lay"), "info"); return; }
    actOn(items, { kind: "new" });
  },
  take() {
    const sel = selectedIn("table");
    if (!sel.length) { toast(t("hint.select_table"), "info"); return; }
    const s = sel[0];
    clearSelection();
    render();
    sendSeq([["take", { card: s.face, meld: s.meld }]]);
  },
  toNew() {
    if (selectedIn("staging").length) return actOn(stagedToLay(), { kind: "new" });
    if (S.selection.length) return actOn(S.selection, { kind: "new" });
    if (myHold()) return sendSeq([["drop", { to: "new" }]]);
    toast(t("hint.select_new"), "info");
  },
  home() {
    try {
      localStorage.removeItem(LS.table);
      if (S.code && S.game && S.game.phase === "over") localStorage.removeItem(LS.order + S.code);
    } catch (e) { /* ignore */ }
    navigate("/");
  },
  /** This window takes the seat back from the other window (which is told the same). */
  playHere() {
    S.replaced = false;
    if (S.conn) S.conn.close();
    connect();
    render();
  },
  reconnectNow() {
    if (S.conn) { S.conn.attempt = 0; S.conn.dropForTest(); }
  },
  /** Was this table matched by the agora (the server's flag, else this browser's memory)? */
  isAgora: () => isAgoraTable(),
  /** Is this seat one of the server's bots? */
  isBot: (name) => isBotSeat(name),
  setBotLevel(level) {
    S.botLevel = level === "shark" ? "shark" : "casual";
    render();
  },
  /** Seat one bot of the chosen level in a free seat (a friendly table, before the deal). */
  async addBot() {
    if (!S.session || !S.code || S.botBusy) return;
    const code = S.code;
    S.botBusy = true;
    S.botError = null;
    render();
    try {
      const res = await api("POST", `/api/tables/${encodeURIComponent(code)}/bots`,
        { level: S.botLevel === "shark" ? "shark" : "casual", count: 1 }, S.session.token);
      rememberBots(code, Array.isArray(res.bots) ? res.bots : []);
      if (S.code === code) announce(t("bots.added", { names: (res.bots || []).join(", ") }));
    } catch (e) {
      if (S.code === code) S.botError = e instanceof ApiError ? botErrorText(e) : String(e);
    } finally {
      if (S.code === code) S.botBusy = false;
      render(); // the seats themselves come with the socket's "table" message
    }
  },
  toRanking() { forgetFinishedTable(); navigate("/#ranking"); },
  agoraAgain() {
    forgetFinishedTable();
    if (S.session) Agora.start(S.session.name);
    else navigate("/#agora");
  },
};

/** Leaving a finished table for another page: as Actions.home does. */
function forgetFinishedTable() {
  try {
    localStorage.removeItem(LS.table);
    if (S.code && S.game && S.game.phase === "over") localStorage.removeItem(LS.order + S.code);
  } catch (e) { /* ignore */ }
}

/** The staged cards a new meld is laid from: the selected ones when several are selected,
 * otherwise all of them (one selected staged card alone never makes a meld). */
function stagedToLay() {
  const sel = selectedIn("staging");
  return sel.length > 1 ? sel : allStaged();
}

function allStaged() {
  const me = meView();
  const staging = me ? me.staging : [];
  return staging.map((f, i) => ({ zone: "staging", face: f, occ: countOf(staging.slice(0, i), f) }));
}

function nthIndex(list, face, occ) {
  let n = 0;
  for (let i = 0; i < list.length; i++) if (list[i] === face) { if (n === occ) return i; n++; }
  return -1;
}


// ---------------------------------------------------------------- keyboard

const SHORTCUTS = {
  d: () => Actions.draw(),
  s: () => Actions.stage(),
  u: () => Actions.unstage(),
  l: () => Actions.lay(),
  t: () => Actions.take(),
  n: () => Actions.toNew(),
  e: () => Actions.end(),
  x: () => Actions.cancel(),
  "!": () => Actions.stop(),
  o: () => Actions.sort(S.sortMode === "suit" ? "rank" : "suit"),
  h: () => Actions.toggleRemoved(),
  "?": () => Actions.toggleHelp(),
};

document.addEventListener("keydown", (ev) => {
  const tag = (ev.target.tagName || "").toLowerCase();
  const typing = tag === "input" || tag === "textarea" || tag === "select" || ev.target.isContentEditable;
  if (document.querySelector("dialog[open]")) return;
  if (S.route !== "table" || typing || ev.ctrlKey || ev.metaKey) return;
  const el = ev.target.closest ? ev.target.closest("[data-key]") : null;
  if (ev.key === "Escape") {
    if (S.showHelp) { S.showHelp = false; render(); return; }
    if (S.selection.length) { ev.preventDefault(); Actions.clearSelection(); }
    return;
  }
  if (el && (ev.key === "Enter" || ev.key === " ")) {
    if (el.tagName === "BUTTON") return; // buttons handle themselves
    ev.preventDefault();
    if (el.dataset.zone) Actions.activateCard(el.dataset.zone, el.dataset.face, parseInt(el.dataset.occ, 10), el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined);
    else if (el.dataset.drop) Actions.activateZone(el.dataset.drop, el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined);
    return;
  }
  if (el && el.dataset.zone === "hand" && ev.altKey && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) {
    ev.preventDefault();
    Actions.shiftHandCard(el.dataset.face, parseInt(el.dataset.occ, 10), ev.key === "ArrowLeft" ? -1 : 1);
    return;
  }
  if (el && !ev.altKey && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(ev.key)) {
    // Move focus among the cards and melds of the same group.
    const group = el.closest("[data-group]");
    if (!group) return;
    const items = [...group.querySelectorAll("[data-key]")].filter((x) => x.tabIndex >= 0);
    const i = items.indexOf(el);
    const next = items[i + (ev.key === "ArrowLeft" || ev.key === "ArrowUp" ? -1 : 1)];
    if (next) { ev.preventDefault(); next.focus(); }
    return;
  }
  if (ev.altKey) return;
  const fn = SHORTCUTS[ev.key.length === 1 ? ev.key.toLowerCase() : ev.key];
  if (fn && S.seat && !S.spectator) { ev.preventDefault(); fn(); }
  else if (fn && (ev.key === "?" || ev.key.toLowerCase() === "h")) { ev.preventDefault(); fn(); }
});

// ---------------------------------------------------------------- boot

S.actions = Actions;

function boot() {
  const sel = document.getElementById("lang");
  sel.value = getLang();
  sel.addEventListener("change", () => setLang(sel.value));
  onLangChange(() => render());
  document.getElementById("home-link").addEventListener("click", (ev) => {
    ev.preventDefault();
    navigate("/");
  });
  installDnd({ payloadFor: Actions.payloadFor, onDrop: Actions.onDrop });
  setInterval(tickClocks, 250);
  route();
}

boot();
