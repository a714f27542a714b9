// The page's one state object, every field declared here, and the functions that change it
// as a whole (resetting the table part) or read it (my seat's view, my hold).
//
// The page renders only what the server says (snapshot/update views); the only local state is
// presentation: the order the player arranged their hand in, the selection, the language,
// the removed-cards toggle, the hint being followed.

export const LS = {
  session: "mvx.session",   // {token, name}
  table: "mvx.table",       // the code of the table this browser sits at
  order: "mvx.order.",      // + code: the hand arrangement
  sort: "mvx.sort",
  removed: "mvx.showRemoved",
};

export function load(key, fallback = null) {
  try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch (e) { return fallback; }
}
export function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: fine */ }
}

/** The fields of one table's view; resetTable() puts them back before another table opens. */
function tableFields() {
  return {
    code: null,             // the table's code (route "table"), else null
    conn: null,             // its Connection (net.js), or null
    fatal: null,            // a message that replaces the table (no such table...)
    replaced: false,        // another window of this seat took the socket (4409): wait for "Play here"
    resumeFrom: null,       // the version the table's socket resumes from (this tab's memory), or null
    needName: false,        // /t/CODE opened without a session: ask for a name first
    spectator: false,       // watching, not seated
    seat: null,             // my seat's name (the welcome says), or null
    version: -1,            // the highest view version seen
    game: null,             // the GAME_VIEW shown (engine/view.py)
    gameVersion: null,      // the version S.game is the view of (updates carry changes from it)
    awaitingSnapshot: true, // a snapshot is on its way (after connecting, or asked for on a gap)
    table: null,            // the TABLE_SUMMARY (seats, bots, agora, phase...)
    notices: [],            // [{key, ev}], newest first, at most 60
    seenEvents: new Set(),  // the keys of the events already noticed
    selection: [],          // [{zone: "hand"|"staging"|"table"|"pile", face, occ, meld}]
    lastHand: null,         // {handNo, cards}: my hand in the view before (for `fresh`)
    fresh: new Map(),       // face -> how many copies just arrived in my hand
    hint: null,             // the hint being followed (hint.js): {steps, index, done, created, snap, stale, moved, cards, advice}
    botBusy: false,         // a bot request is on its way
    botError: null,         // the server's sentence for the last refused bot request
    again: null,            // a "play again" asked at this finished table: {code (the new table), by, declined: [names]}
    againBusy: false,       // false, or my request on its way: "again" (Play again / Accept) | "decline"
    againDeclined: false,   // I declined to play again (before the server's frame says so)
  };
}

export const S = {
  actions: null,          // the table's actions (actions.js): table.js calls back through S.actions
  route: "home",          // "home" | "table" | "agora" | "ranking" | "player"
  session: load(LS.session), // {token, name} or null
  retriedToken: false,    // a 4401 on a table socket already made us ask for a new session (once a page)
  connState: "closed",    // the table socket's: "connecting" | "open" | "closed" | "failed"
  player: null,           // the player whose history /#player/{id} shows ("me": mine)
  homeError: null,        // the home (or join gate) form's error sentence
  showHelp: false,        // the keyboard help is open
  handOrder: [],          // my hand as I arranged it (faces), kept per table in localStorage
  sortMode: load(LS.sort, "suit"), // "suit" | "rank" | "custom"
  showRemoved: load(LS.removed, true),
  botLevel: "casual",     // the level the waiting room's "Add a bot" seats
  newTable: null,         // the home form's choices (newtable.js newTableDraft): variant, preset, options, bots
  agora: null,            // the agora page's state: agora.js (createAgora) sets it
  rank: null,             // the ranking's state: ranking.js (createRanking) sets it
  hist: null,             // a player's history: ranking.js
  agoraCount: null,       // players waiting in the agora (home page): ranking.js
  ...tableFields(),
};

/** Forget the table shown (its socket is closed by the caller). */
export function resetTable() {
  Object.assign(S, tableFields());
}

/** My seat in the hand view, or null. */
export function meView() {
  const hv = S.game && S.game.hand;
  return hv ? hv.players.find((p) => p.name === S.seat) || null : null;
}

/** My hold (§6: a table card I took and have not placed yet), or null. */
export function myHold() {
  const hv = S.game && S.game.hand;
  return hv ? hv.holds.find((x) => x.player === S.seat) || null : null;
}

/** Is this table card held by another player? */
export function heldByOther(hv, face, meld) {
  return hv.holds.some((x) => x.card === face && x.meld === meld && x.player !== S.seat);
}
