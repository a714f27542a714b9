// Cards in R1 notation ("10H", "QS", "AC"; "JK" for a joker in classic rule sets):
// parsing, the suit symbols and colours, and the two hand sorts.

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
