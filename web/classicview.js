// The classic table page's pure parts (no imports, no DOM; tests/js/classicview.test.mjs),
// all read from the seat's classic view (engine/classic/view.py's docstring gives its shape):
// whether a table is classic, the seats around the table, the order of play, the opening
// counter (C17), what the player may do now (C13–C16), the faces a joker may take (C8), and
// what the others did since my last turn (from the events of their turns).

/** Is this a classic table? Its summary's `variant` says so, else the view's shape does. */
export function isClassic(table, game) {
  if (table && typeof table.variant === "string") return table.variant !== "machiavelox";
  return !!game && typeof game === "object" && "turn" in game && "match" in game;
}

/** A face: {joker, as (the face a joker stands for, e.g. "7H", or null), base ("JK" or the face)}. */
export function jokerFace(face) {
  if (typeof face !== "string") return { joker: false, as: null, base: face };
  if (face === "JK") return { joker: true, as: null, base: "JK" };
  if (face.startsWith("JK=")) return { joker: true, as: face.slice(3), base: "JK" };
  return { joker: false, as: null, base: face };
}

const RANKS = { A: 1, J: 11, Q: 12, K: 13, T: 10 };

/** A real face's rank 1..13 and suit: "10H" -> {rank: 10, suit: "H"}; null for a joker. */
export function rankSuit(face) {
  if (typeof face !== "string" || face.startsWith("JK")) return null;
  const suit = face.slice(-1), r = face.slice(0, -1);
  const rank = RANKS[r] ?? parseInt(r, 10);
  return Number.isFinite(rank) ? { rank, suit } : null;
}

const RANK_TEXT = { 1: "A", 11: "J", 12: "Q", 13: "K", 14: "A" };
function faceOf(rank, suit) { return (RANK_TEXT[rank] || String(rank)) + suit; }

/** C17's worth of one rank: A 1, 2–10 the number, J Q K 10 (an ace high in a run too: 1). */
export function rankWorth(rank) { return rank === 1 || rank === 14 ? 1 : Math.min(rank, 10); }

/**
 * A meld's worth toward the opening (C17), as the view shows it: real cards by rankWorth, a
 * joker the card it stands for: in a set (reals of one rank, suits distinct, at most four
 * cards) the set's rank, in a run its face (`JK=7H`) or the place it holds (the view lists
 * runs in run order).
 */
export function meldWorth(cards) {
  const reals = cards.map(rankSuit);
  const known = reals.filter(Boolean);
  const isSet = known.length > 0 && cards.length <= 4 && known.every((c) => c.rank === known[0].rank)
    && new Set(known.map((c) => c.suit)).size === known.length;
  // The run's first rank, from a real card other than an ace if there is one (Q K A).
  let start = null;
  const k0 = reals.findIndex((c) => c && c.rank !== 1);
  if (k0 >= 0) start = reals[k0].rank - k0;
  else if (known.length) start = 1 - reals.findIndex(Boolean);
  let total = 0;
  cards.forEach((f, k) => {
    const c = reals[k];
    if (c) { total += rankWorth(c.rank); return; }
    const j = jokerFace(f);
    if (isSet) total += rankWorth(known[0].rank);
    else if (j.as && rankSuit(j.as)) total += rankWorth(rankSuit(j.as).rank);
    else if (start !== null && start + k >= 1) total += rankWorth(start + k);
  });
  return total;
}

/**
 * The opening counter (C17) while `you` have not opened: {need, have} (points of the melds
 * laid this turn: an unopened player can change only melds made this turn, so the changed
 * melds are new ones), or null (no opening minimum, opened, or no hand).
 */
export function openingProgress(view) {
  if (!view || !view.you) return null;
  const need = view.options ? Number(view.options.opening) || 0 : 0;
  const me = (view.players || []).find((p) => p.name === view.you);
  if (need <= 0 || !me || me.opened || !me.in_hand) return null;
  const mine = view.turn && view.turn.player === view.you;
  const have = mine ? (view.table || []).filter((m) => m.changed).reduce((s, m) => s + meldWorth(m.cards), 0) : 0;
  return { need, have };
}

/**
 * The seats around the table as `you` see them: you at the bottom, the others in the order
 * of play after you (clockwise: left, across, right). [{name, place: "left"|"top"|"right",
 * order (1: next after you)}]; a spectator sees the first seat's view of the order.
 */
export function seatLayout(names, you) {
  const n = names.length;
  const at = names.indexOf(you);
  const others = [];
  for (let k = 1; k < n + (at < 0 ? 1 : 0); k++) others.push(names[((at < 0 ? -1 : at) + k) % n]);
  const m = others.length;
  return others.map((name, i) => {
    let place = "top";
    if (m >= 2 && i === 0) place = "left";
    if (m >= 2 && i === m - 1) place = "right";
    return { name, place, order: i + 1 };
  });
}

/** The order of play from whoever is on turn: names, the one on turn first (then clockwise). */
export function playOrder(view) {
  const live = (view.players || []).filter((p) => p.in_hand).map((p) => p.name);
  const on = view.turn ? live.indexOf(view.turn.player) : -1;
  return on < 0 ? live : live.slice(on).concat(live.slice(0, on));
}

/**
 * What `you` may do now: {myTurn, changed, draw, pass, end, reset, loose}. Draw and pass only
 * with nothing changed (C14, C15; changed: a touched meld or a loose joker); pass when the
 * stock is empty, draw otherwise. Read from `turn` alone (docs/protocol.md): the view keeps
 * the last hand's `result` through the next hand, so it does not say a hand is over.
 */
export function legalNow(view) {
  const none = { myTurn: false, changed: false, draw: false, pass: false, end: false, reset: false, loose: 0 };
  if (!view || !view.you || !view.turn) return none;
  const myTurn = view.turn.player === view.you;
  if (!myTurn) return none;
  const changed = (view.table || []).some((m) => m.changed) || view.loose > 0;
  const empty = view.stock <= 0;
  return { myTurn, changed, draw: !empty && !changed, pass: empty && !changed, end: true, reset: changed, loose: view.loose };
}

/**
 * The faces a joker at index `i` of meld `cards` (as the view lists it) may stand for when
 * that is a choice (C8): a run of one suit that could lie lower or higher. [] when there is
 * no choice (a set, a joker between two real cards, an invalid meld). `ace`: the table's
 * `ace` option ("low", "high", "low_or_high"...): whether A may sit below 2 and above K.
 */
export function jokerChoices(cards, i, ace = "low_or_high") {
  const reals = cards.map(rankSuit);
  const known = reals.filter(Boolean);
  if (!known.length || !jokerFace(cards[i]).joker) return [];
  const suit = known[0].suit;
  if (known.some((c) => c.suit !== suit)) return [];
  if (known.length > 1 && known.every((c) => c.rank === known[0].rank)) return [];
  const low = ace !== "high", high = ace !== "low";
  const L = cards.length;
  const fixed = new Set(known.map((c) => c.rank));
  const out = new Set();
  for (let start = 1; start + L - 1 <= 14; start++) {
    const ranks = Array.from({ length: L }, (_, k) => start + k);
    if (!low && ranks.includes(1)) continue;
    if (!high && ranks.includes(14)) continue;
    const have = new Set(ranks.map((r) => (r === 14 ? 1 : r)));
    if (have.size < L) continue;
    if (![...fixed].every((r) => have.has(r) || (r === 1 && ranks.includes(14)))) continue;
    for (const r of ranks) if (!fixed.has(r === 14 ? 1 : r)) out.add(r);
  }
  const jokers = cards.filter((f) => jokerFace(f).joker).length;
  const faces = [...new Set([...out].sort((a, b) => a - b).map((r) => faceOf(r, suit)))];
  return faces.length <= jokers ? [] : faces;
}

// ---------------------------------------------------------------- since your last turn

const TABLE_KINDS = new Set(["laid", "added", "moved", "freed", "swapped"]);

/**
 * What the others did since `you` last ended a turn, from `events` (oldest first, each with
 * `kind`, `player`, `hand` and its fields: engine/classic/turn.py emits them): a list of
 * {player, did: [{kind, cards, meld}], end: "ended"|"drew"|"passed"|"penalty"|"left"|null}
 * per turn, only turns that are over, and `melds`: the ids of melds those turns changed.
 * A turn's table moves count only if it ended with an accepted End turn (a reset, a draw, a
 * clock's penalty put them back).
 */
export function sinceMyTurn(events, you) {
  let turns = [];
  let cur = null;
  let hand = null;
  const ENDS = { ended: "ended", drew: "drew", passed: "passed", penalty_card: "penalty", left_hand: "left" };
  for (const ev of events) {
    if ((ev.hand !== undefined && ev.hand !== hand) || ev.kind === "hand_started") { hand = ev.hand; turns = []; cur = null; }
    // A turn whose start came before this page was open (its events since are here).
    // A leaving on one's own turn ends it as at C20 first (C31 (b)): the penalty card or pass
    // and the leaving, at one instant, are one end ("left the hand (penalty card)").
    const last = turns[turns.length - 1];
    if (ev.kind === "left_hand" && last && last.player === ev.player && last.t === ev.t
        && (last.end === "penalty" || last.end === "passed")) {
      last.end = last.end === "penalty" ? "left_penalty" : "left";
      continue;
    }
    const afterLeaving = !!last && last.player === ev.player && last.end === "left" && ev.kind in ENDS;
    if (ev.kind !== "turn_started" && ev.player && ev.player !== you && !afterLeaving
        && (TABLE_KINDS.has(ev.kind) || ev.kind === "reset" || ev.kind in ENDS)
        && (!cur || cur.player !== ev.player)) cur = { player: ev.player, did: [], end: null };
    const theirs = cur && ev.player === cur.player;
    if (ev.kind === "turn_started") {
      cur = ev.player === you ? null : { player: ev.player, did: [], end: null };
    } else if (ev.player === you && you && ev.kind in ENDS) {
      turns = []; // my own turn ended: what the others do from now on is "since my last turn"
      cur = null;
    } else if (theirs && ev.kind === "reset") {
      cur.did = [];
    } else if (theirs && ev.kind in ENDS) {
      if (ev.kind !== "ended") cur.did = []; // a draw, a pass, the clock: the table was put back
      cur.end = ENDS[ev.kind];
      cur.t = ev.t;
      turns.push(cur);
      cur = null;
    } else if (theirs && TABLE_KINDS.has(ev.kind)) {
      cur.did.push({ kind: ev.kind, cards: ev.cards ? [...ev.cards] : ev.card ? [ev.card] : [], meld: meldOf(ev),
        from: typeof ev.from === "number" ? ev.from : null, as: ev.as || null });
    }
  }
  const melds = new Set();
  for (const tn of turns) for (const d of tn.did) for (const m of [d.meld, d.from]) if (typeof m === "number") melds.add(m);
  return { turns, melds };
}

function meldOf(ev) {
  if (ev.kind === "moved") return typeof ev.to === "number" ? ev.to : null;
  return typeof ev.meld === "number" ? ev.meld : null;
}

/**
 * The cards I drew (or got as a penalty) since I last ended a turn with End turn: the faces
 * of my own `drew`/`penalty_card` events (their private `card`), this hand only; they stay
 * marked through my next turn.
 */
export function drawnCards(events, you) {
  let out = [];
  for (const ev of events) {
    if (ev.kind === "hand_started") out = [];
    if (ev.player !== you) continue;
    if (ev.kind === "ended") out = [];
    if ((ev.kind === "drew" || ev.kind === "penalty_card") && typeof ev.card === "string") out.push(ev.card);
  }
  return out;
}
