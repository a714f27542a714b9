// Views as changes (docs/protocol.md, "Updates as changes"): the browser's one applier.
// The same rules as server/changes.py: an update carries `changes` of the shared view (the
// same for every seat) since its `base` version and `mine` (the seat's own `you`/`hand`).
// Views are never changed in place: each frame gives new objects for what changed and
// shares the rest (the page may hold on to the previous view, e.g. for the hint).

function applyTable(melds, ch) {
  const gone = new Set(ch.del || []);
  const put = new Map(); // keeps the order given (an object would sort integer keys)
  for (const m of ch.put || []) put.set(m.id, m);
  let out = [];
  for (const m of melds) {
    if (gone.has(m.id)) continue;
    if (put.has(m.id)) { out.push(put.get(m.id)); put.delete(m.id); } else out.push(m);
  }
  for (const m of put.values()) out.push(m); // new melds, in the order given
  if (ch.order) {
    const byId = new Map(out.map((m) => [m.id, m]));
    out = ch.order.map((id) => byId.get(id));
  }
  return out;
}

/** The GAME_VIEW after `changes` and `mine`; `game` is not changed. */
export function applyChanges(game, changes, mine) {
  const next = { ...game, ...(changes.set || {}) };
  const hc = changes.hand;
  if (hc) {
    const hand = { ...next.hand, ...(hc.set || {}) };
    const players = hc.players;
    if (players) {
      hand.players = hand.players.map((p) =>
        Object.prototype.hasOwnProperty.call(players, p.name) ? { ...p, ...players[p.name] } : p);
    }
    if (hc.table) hand.table = applyTable(hand.table, hc.table);
    next.hand = hand;
  }
  if (mine && next.hand) next.hand = { ...next.hand, ...mine };
  return next;
}

/**
 * A client's state after an `update` or `snapshot` frame: {ok, game}. `ok` is false on a gap
 * (changes whose `base` is not `version`, the version whose view `game` is): keep `game` and
 * ask for a snapshot (`{"type": "resume", "last_version": version}`). A replay update (missed
 * events; a snapshot follows) leaves the state as it is.
 */
export function applyFrame(game, version, frame) {
  if (frame.type === "snapshot" || "game" in frame) return { ok: true, game: frame.game ?? null };
  if (frame.replay || !("changes" in frame)) return { ok: true, game };
  if (!game || version === null || version === undefined || frame.base !== version) return { ok: false, game };
  return { ok: true, game: applyChanges(game, frame.changes, frame.mine) };
}
