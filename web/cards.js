// Cards in R1 notation ("10H", "QS", "AC"; "JK" for a joker in classic rule sets):
// parsing, the suit symbols and colours, and the hand order (the two sorts, the player's own
// arrangement kept across views, moving cards in it). Pure: tests/js/cards.test.mjs.

export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RANK_VALUE = { A: 1, J: 11, Q: 12, K: 13, T: 10 };
// Suit order for "by suit": alternating colours reads best (spades, hearts, clubs, diamonds).
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

/** {rank: "10", value: 10, suit: "H", symbol: "♥", red: true, joker: false} for a face. */
export function parseFace(face) {
  if (face === "JK") return { rank: "\u2605", value: 0, suit: "", symbol: "", red: false, joker: true };
  const suit = face.slice(-1);
  const rank = face.slice(0, -1) === "T" ? "10" : face.slice(0, -1);
  const value = RANK_VALUE[rank] ?? parseInt(rank, 10);
  return { rank, value, suit, symbol: SUIT_SYMBOL[suit] || "?", red: suit === "H" || suit === "D", joker: false };
}

export function sortBySuit(faces) {
  return [...faces].sort((a, b) => {
    const pa = parseFace(a), pb = parseFace(b);
    return (SUIT_ORDER[pa.suit] ?? 9) - (SUIT_ORDER[pb.suit] ?? 9) || pa.value - pb.value;
  });
}

export function sortByRank(faces) {
  return [...faces].sort((a, b) => {
    const pa = parseFace(a), pb = parseFace(b);
    return pa.value - pb.value || (SUIT_ORDER[pa.suit] ?? 9) - (SUIT_ORDER[pb.suit] ?? 9);
  });
}

/**
 * Keep the player's own arrangement of the hand across server updates: cards still held keep
 * their place (faces can appear twice: two packs), new cards join at the end, or in sorted
 * position when a sort mode is on. Returns the new order; the multiset always equals `faces`.
 */
export function reconcileOrder(previous, faces, mode) {
  if (mode === "suit") return sortBySuit(faces);
  if (mode === "rank") return sortByRank(faces);
  const left = new Map();
  for (const f of faces) left.set(f, (left.get(f) || 0) + 1);
  const out = [];
  for (const f of previous) {
    const n = left.get(f) || 0;
    if (n > 0) { out.push(f); left.set(f, n - 1); }
  }
  for (const f of faces) {
    const n = left.get(f) || 0;
    if (n > 0) { out.push(f); left.set(f, n - 1); }
  }
  return out;
}

/** How many copies of `face` are in `list`. */
export function countOf(list, face) { let n = 0; for (const f of list || []) if (f === face) n++; return n; }

/** The position of the `occ`-th copy (0-based) of `face` in `list`, or -1. */
export function nthIndex(list, face, occ) {
  let n = 0;
  for (let i = 0; i < list.length; i++) if (list[i] === face) { if (n === occ) return i; n++; }
  return -1;
}

/**
 * The hand `order` with the cards `items` ([{face, occ}], in any order) taken out and put,
 * in their order in the hand, before the card that was at position `index` (order.length:
 * at the end). Items not in the hand are ignored. A new list; the multiset is unchanged.
 */
export function moveInOrder(order, items, index) {
  const positions = items.map((s) => nthIndex(order, s.face, s.occ)).filter((i) => i >= 0).sort((a, b) => a - b);
  const moving = positions.map((i) => order[i]);
  const rest = order.filter((_, i) => !positions.includes(i));
  const before = positions.filter((i) => i < index).length;
  const at = Math.max(0, Math.min(rest.length, index - before));
  return [...rest.slice(0, at), ...moving, ...rest.slice(at)];
}

/**
 * Keyboard rearranging: the `occ`-th copy of `face` swapped with its neighbour `delta` (-1:
 * left, +1: right). Returns {order, occ} (the card's occurrence number where it now is), or
 * null when it cannot move (not in the hand, or at that end already).
 */
export function shiftInOrder(order, face, occ, delta) {
  const i = nthIndex(order, face, occ);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= order.length) return null;
  const out = [...order];
  [out[i], out[j]] = [out[j], out[i]];
  return { order: out, occ: countOf(out.slice(0, j), face) };
}
