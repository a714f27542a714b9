// Play again at a finished friendly table (docs/protocol.md "Play again"; server/again.py):
// what the page makes of the server's `again` frames. Pure: tests/js/again.test.mjs.

/** {code, by, declined} from an "again" frame or a TABLE_SUMMARY's `again`; null for none. */
export function againOf(frame) {
  if (!frame || typeof frame.code !== "string" || !frame.code) return null;
  return {
    code: frame.code,
    by: typeof frame.by === "string" ? frame.by : "",
    declined: Array.isArray(frame.declined) ? frame.declined.filter((n) => typeof n === "string") : [],
  };
}

/**
 * What the game-over panel offers seat `seat`, given the table's `again` (or null) and
 * whether this page has just declined (`declinedHere`, before the server's frame says so):
 * {mode, by, others}. mode "offer": a Play again button (nobody asked, or I asked myself);
 * "ask": {by} asks, accept or decline; "declined": I said no. `others`: the other seats that
 * declined, for everyone to read.
 */
export function againView(again, seat, declinedHere = false) {
  if (!again) return { mode: "offer", by: null, others: [] };
  const others = again.declined.filter((n) => n !== seat);
  if (declinedHere || again.declined.includes(seat)) return { mode: "declined", by: again.by, others };
  if (again.by !== seat) return { mode: "ask", by: again.by, others };
  return { mode: "offer", by: again.by, others };
}
