// One table open in the page: joining its seat, its socket (net.js Connection), and what each
// server message does to S (docs/protocol.md): views applied as changes (changes.js), events
// turned into notices (notices.js), the hand order and the hint followed across views.
import { t, refusalText } from "./i18n.js";
import { api, Connection, ApiError } from "./net.js";
import { applyFrame, fullEvents } from "./changes.js";
import { toast, setClockBase } from "./ui.js";
import { reconcileOrder } from "./cards.js";
import { describeEvent } from "./notices.js";
import { followHint } from "./hint.js";
import { againOf } from "./again.js";
import { S, LS, load, save, resetTable } from "./state.js";
import { ensureSession, apiErrorText } from "./session.js";
import { pruneSelection } from "./selection.js";
import { render, announce } from "./render.js";
import { revokedSession } from "./account.js";
import { isClassic } from "./classicview.js";
import { applyClassicGame, addClassicEvents } from "./classicstate.js";
import { isClassic as isClassicVariant } from "./tablerules.js";

/** Close the table's socket and forget the table (another page, or another table, opens). */
export function leaveTableView() {
  if (S.conn) S.conn.close();
  resetTable();
}

/** Show the table `code`: look at it, take a seat if there is one (a name first, if needed), connect.
 * A classic table not yet joined from this browser shows its invitation (its rules, a Sit down
 * button: home.js joinGate) first; `opts.sit` (that button) sits down. */
export async function openTable(code, opts = {}) {
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
  const seatsOf = (sm) => (sm && typeof sm.size === "number" ? sm.size : 3); // classic: 2–6
  const full = !!summary && summary.seats.length >= seatsOf(summary);
  if (summary) S.table = summary; // the invitation shows its rules
  if (!S.session) {
    if (full) { S.spectator = true; connect(); return; } // just watch
    S.needName = true;
    render();
    return;
  }
  if (!opts.sit && !full && invitationFirst(summary, code)) { S.needName = true; render(); return; }
  let seated = null; // null: the welcome will tell
  if (!full) {
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

/** A classic table waiting for players, that this browser has not sat at (nor a seat of this
 * session's name: the creator through the API, another window): its invitation first. */
function invitationFirst(summary, code) {
  return !!summary && isClassicVariant(summary.variant) && summary.phase === "waiting" && load(LS.table) !== code
    && !(S.session && summary.seats.includes(S.session.name));
}

/** Open the table's socket (resuming from this tab's memory of it, if any). */
export function connect() {
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
        if (code === 4402) { revokedSession(); S.fatal = t("err.session_revoked"); render(); return; } // logged out (issue 18)
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
      if (msg.table) setTable(msg.table, msg);
      applyGame(msg.game);
      break;
    case "update": {
      if (typeof msg.version === "number") {
        if (msg.version < S.version) return; // an older view than the one shown
        S.version = msg.version;
      }
      // Changes since version - 1 (web/changes.js); on a gap, ask for a snapshot once.
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
      setTable(msg.table, msg);
      break;
    case "again":
      // A seated player asked to play again (docs/protocol.md "Play again"): the new table.
      S.again = againOf(msg);
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

/** A TABLE_SUMMARY arrived (alone or with a snapshot); its `again` (or the frame's) says
 * whether someone asked to play again (a reconnect learns it here). */
function setTable(table, frame) {
  S.table = table;
  if ("again" in table) S.again = againOf(table.again);
  else if ("again" in frame) S.again = againOf(frame.again);
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
  if (isClassic(S.table, S.game)) { addClassicEvents(S, events); return; }
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

function applyGame(game) {
  if (isClassic(S.table, game)) { applyClassicGame(S, game); return; }
  S.game = game || null;
  const hv = game && game.hand;
  setClockBase(hv ? hv.t : null, game ? game.game_t : null);
  const mine = hv && hv.hand ? hv.hand : [];
  markFresh(game, mine);
  S.hint = followHint(S.hint, hv, S.seat);
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
