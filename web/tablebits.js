// Small pieces the table screen's modules share: seat colours, card occurrences, and the
// current hint step's highlights (set once per render by table.js, read by board.js, dock.js).

const COLOURS = 3; // seat colours --seat-0..2 in style.css

/** The current hint step's highlights (A.hintMarks()), worked out once per render. */
export const marks = { current: { hand: new Map(), staging: new Map(), melds: new Set(), table: new Set(), newMeld: false } };

/** The colour index (0..2) of player `name`'s seat in GAME_VIEW `game`. */
export function seatIndex(game, name) {
  const i = game.seats.findIndex((s) => s.name === name);
  return i < 0 ? 0 : i % COLOURS;
}

/** The CSS colour of player `name`'s seat. */
export function colourVar(game, name) { return `var(--seat-${seatIndex(game, name)})`; }

/** For each face of `list`, how many equal faces come before it (0, 1, …): a card's key. */
export function occurrences(list) {
  const seen = new Map();
  return list.map((f) => { const n = seen.get(f) || 0; seen.set(f, n + 1); return n; });
}
