// A classic table's page state beside S (state.js): the events of this hand (for "since your
// last turn"), the selection, the last End turn refused, the joker face being chosen. Kept
// per table code (openTable resets S; CS follows S.code). tableconn.js hands classic views
// and events here (applyClassicGame, addClassicEvents).
import { reconcileOrder } from "./cards.js";
import { setClockBase } from "./ui.js";
import { t } from "./i18n.js";
import { LS, save } from "./state.js";
import { announce } from "./render.js";

/** The classic page's own state: every field declared here. */
export const CS = {
  code: null,        // the table these fields belong to
  events: [],        // the classic events seen, oldest first (at most 400), each with `hand`
  keys: new Set(),   // their keys (seen once)
  sel: [],           // [{zone: "hand"|"table"|"loose", face, occ, meld}]: the selection
  refusal: null,     // {code, message}: the last End turn (or other move) refused, shown by the buttons
  refusalVersion: null, // the view version it was refused at (a later change clears it)
  ready: false,      // I asked for the next deal in this pause
  lastHandNo: null,  // the hand the fields are about
  hint: null,        // the hint shown (classichint.js): {steps, cards, melds, version, turn, advice}
  hintBusy: false,   // a hint is on its way
  resultAside: null, // the hand whose result the player put aside to look at the final table
  newsSeen: null,    // the seq of the event whose "your turn was ended for you" line was dismissed
};

/** Forget the fields when another table (or a new hand) is shown. */
export function syncTable(S) {
  if (CS.code === S.code) return;
  CS.code = S.code;
  CS.events = loadEvents(S.code);
  CS.keys = new Set(CS.events.map(eventKey));
  CS.sel = [];
  CS.refusal = null;
  CS.ready = false;
  CS.lastHandNo = null;
  CS.hint = null;
  CS.resultAside = null;
  CS.newsSeen = loadNewsSeen(S.code);
}

/** "Your turn was ended for you" read (OK): kept beside the events, so a reload does not say it again. */
export function markNewsSeen(seq) {
  CS.newsSeen = seq;
  if (!CS.code) return;
  try { sessionStorage.setItem("mvx.cnews." + CS.code, String(seq)); } catch (e) { /* full: fine */ }
}

function loadNewsSeen(code) {
  try {
    const v = sessionStorage.getItem("mvx.cnews." + code);
    return v === null ? null : Number(v);
  } catch (e) { return null; }
}

/** A classic view arrived (snapshot or update: the seat's whole view). */
export function applyClassicGame(S, game) {
  syncTable(S);
  const before = S.game && S.game.turn ? S.game.turn.player + ":" + S.game.turn.started : null;
  S.game = game || null;
  const turn = game && game.turn ? game.turn : null;
  // Screen readers hear whose turn it is when it changes (the banner is redrawn each time).
  if (turn && before !== turn.player + ":" + turn.started) {
    announce(turn.player === game.you ? t("ct.your_turn") : t("ct.their_turn", { name: turn.player }));
  }
  setClockBase(game ? game.t : null, game ? game.t : null);
  const mine = game && Array.isArray(game.hand) ? game.hand : [];
  S.handOrder = reconcileOrder(S.handOrder, mine, S.sortMode);
  if (S.code) save(LS.order + S.code, S.handOrder);
  const handNo = game && game.match ? game.match.hand : null;
  if (handNo !== CS.lastHandNo) { CS.lastHandNo = handNo; CS.sel = []; CS.refusal = null; }
  if (game && game.match && game.match.pause_until === null) CS.ready = false;
  if (CS.refusal && CS.refusalVersion !== null && game && game.version > CS.refusalVersion) CS.refusal = null;
  pruneSel(game);
}

/** Keep only selected cards still where they were. */
function pruneSel(game) {
  if (!game) { CS.sel = []; return; }
  const count = (list, f) => list.filter((x) => x === f).length;
  CS.sel = CS.sel.filter((s) => {
    if (s.zone === "hand") return Array.isArray(game.hand) && count(game.hand, s.face) > s.occ;
    if (s.zone === "loose") return game.loose > 0;
    const m = (game.table || []).find((x) => x.id === s.meld);
    return !!m && count(m.cards, s.face) > s.occ;
  });
  if (!game.turn || game.turn.player !== game.you) CS.sel = CS.sel.filter((s) => s.zone === "hand");
}

/** Events of a frame: kept (once each) for the turn summary. */
export function addClassicEvents(S, events) {
  syncTable(S);
  for (const ev of events) {
    const key = eventKey(ev);
    if (CS.keys.has(key)) continue;
    CS.keys.add(key);
    CS.events.push(ev);
  }
  CS.events.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  if (CS.events.length > 400) CS.events.splice(0, CS.events.length - 400);
  saveEvents(S.code, CS.events);
}

function eventKey(ev) { return `${ev.hand ?? "g"}:${ev.seq}:${ev.kind}:${ev.player ?? ""}`; }

// The events live in sessionStorage per table, beside tableconn.js's notices: a reload resumes
// from the last version seen and keeps "since your last turn" whole.
function loadEvents(code) {
  try {
    const list = JSON.parse(sessionStorage.getItem("mvx.cev." + code) || "[]");
    return Array.isArray(list) ? list.filter((e) => e && typeof e.kind === "string") : [];
  } catch (e) { return []; }
}

function saveEvents(code, events) {
  if (!code) return;
  try { sessionStorage.setItem("mvx.cev." + code, JSON.stringify(events)); } catch (e) { /* full: fine */ }
}
