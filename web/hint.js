// Hints, step by step. Pure: no DOM, no state; run by tests/js/hint.test.mjs under `node --test`.
//
// A hint is the server's ordered list of commands (docs/protocol.md "Hints"). The page shows
// it as numbered steps and highlights only the current step's card(s) and meld(s). Each new
// view is compared with what the steps done so far predict: a step the player carried out
// moves the hint on; anything else that touches the hint (my hand, my staging area, a meld
// it names) makes it stale: its highlights go and it asks to be asked again.
//
// A followed hint: {steps, index (the step shown), done (steps carried out), created (Map:
// a step's name for a meld it makes, "n1", -> the meld id it got), snap (what the hint needs
// of the last view), stale, moved, cards, advice}.

function countOf(list, face) { let n = 0; for (const f of list || []) if (f === face) n++; return n; }

/** What the hint needs of a hand view `hv` for seat `seat`: my hand, my staging area, the melds' cards by id. */
export function hintSnap(hv, seat) {
  const me = hv ? hv.players.find((p) => p.name === seat) : null;
  return {
    hand: [...((hv && hv.hand) || [])],
    staging: [...(me ? me.staging : [])],
    melds: new Map((hv ? hv.table : []).map((m) => [m.id, [...m.cards]])),
  };
}

/** A new followed hint from the server's "hint" reply `res`, given the view it was asked in. */
export function newHint(res, hv, seat) {
  return {
    steps: res.steps || [], index: 0, done: 0, created: new Map(), snap: hintSnap(hv, seat), stale: false,
    moved: res.moved || 0, cards: res.cards || [], advice: res.advice || null,
  };
}

function removeOne(list, face) { const i = list.indexOf(face); if (i >= 0) list.splice(i, 1); return i >= 0; }

/** A meld reference of a step: a table id, or a name ("n1") of a meld an earlier step made; null if not made yet. */
export function hintMeldId(hint, ref) {
  if (typeof ref === "number") return ref;
  return hint && hint.created.has(ref) ? hint.created.get(ref) : null;
}

/** A meld in `now` that is not in `before` and holds `faces`: the one a step just made. */
function newMeldWith(before, now, faces) {
  for (const [id, cards] of now.melds) {
    if (before.melds.has(id)) continue;
    if (faces.every((f) => cards.includes(f))) return id;
  }
  return null;
}

/** Did the view `now` carry out `step` since `snap`? If so, `snap` as the step leaves it
 * (and a meld the step made is named in `hint.created`); else null. */
function stepDone(hint, step, snap, now) {
  const c = step.card;
  const cnt = (list, f) => countOf(list || [], f);
  const next = { hand: [...snap.hand], staging: [...snap.staging], melds: new Map([...snap.melds].map(([k, v]) => [k, [...v]])) };
  const put = (ref, face) => { const id = hintMeldId(hint, ref); if (id !== null && next.melds.has(id)) next.melds.get(id).push(face); };
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
      const src = hintMeldId(hint, step.meld);
      if (src === null || cnt(now.melds.get(src), c) >= cnt(snap.melds.get(src), c)) return null;
      removeOne(next.melds.get(src) || [], c);
      if (step.to === "new") {
        const id = newMeldWith(snap, now, [c]);
        if (id === null) return null;
        if (step.creates) hint.created.set(step.creates, id);
        next.melds.set(id, [c]);
      } else put(step.to, c);
      return next;
    }
    case "lay": {
      const cards = step.cards || [];
      if (!cards.length || cnt(now.staging, cards[0]) >= cnt(snap.staging, cards[0])) return null;
      const id = newMeldWith(snap, now, cards);
      if (id === null) return null;
      if (step.creates) hint.created.set(step.creates, id);
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
function hintMeldsAhead(hint) {
  const ids = new Set();
  for (const st of hint.steps.slice(hint.done)) {
    for (const ref of [st.meld, st.to]) {
      const id = ref === undefined || ref === "new" ? null : hintMeldId(hint, ref);
      if (id !== null) ids.add(id);
    }
  }
  return ids;
}

/**
 * A new hand view `hv` arrived: move `hint` on past the steps it shows carried out, or mark
 * it stale. Returns the hint to keep: null when there was none, the hand is over, or every
 * step was carried out; otherwise `hint` itself (changed in place).
 */
export function followHint(hint, hv, seat) {
  if (!hint) return null;
  if (hint.stale) return hint;
  if (!hv || hv.result) return null;
  const now = hintSnap(hv, seat);
  let snap = hint.snap;
  while (hint.done < hint.steps.length) {
    const next = stepDone(hint, hint.steps[hint.done], snap, now);
    if (!next) break;
    snap = next;
    hint.done += 1;
  }
  if (hint.done >= hint.steps.length) return null; // carried out to the end
  hint.index = Math.max(hint.index, hint.done);
  const touched = !sameCards(snap.hand, now.hand) || !sameCards(snap.staging, now.staging)
    || [...hintMeldsAhead(hint)].some((id) => !sameCards(snap.melds.get(id), now.melds.get(id)));
  if (touched) { hint.stale = true; return hint; }
  hint.snap = now;
  return hint;
}

/** Show step `index + delta` (never before the steps carried out, never past the last). */
export function stepHint(hint, delta) {
  hint.index = Math.max(hint.done, Math.min(hint.steps.length - 1, hint.index + delta));
  return hint;
}

/** The current step's highlights: {hand: Map face->copies, staging: Map, melds: Set, table: Set "meld:face", newMeld}. */
export function hintMarks(hint) {
  const marks = { hand: new Map(), staging: new Map(), melds: new Set(), table: new Set(), newMeld: false };
  const hn = hint;
  if (!hn || hn.stale || hn.index >= hn.steps.length) return marks;
  const st = hn.steps[hn.index];
  const one = (m, f) => m.set(f, (m.get(f) || 0) + 1);
  const meld = (ref) => {
    if (ref === "new") { marks.newMeld = true; return null; }
    const id = hintMeldId(hn, ref);
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
