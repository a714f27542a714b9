// Classic card faces on the page: cards.js/ui.js's card element, and a joker that stands for a
// card (the view's "JK=7H") drawn as a joker showing that card (7♥ in its corner).
import { t } from "./i18n.js";
import { cardEl, cardLabel, h } from "./ui.js";
import { parseFace } from "./cards.js";
import { jokerFace } from "./classicview.js";

/** A card element for a classic face ("7H", "JK", "JK=7H"); `opts` as ui.js cardEl takes. */
export function classicCard(face, opts = {}) {
  const j = jokerFace(face);
  if (!j.joker || !j.as) return cardEl(j.base, opts);
  // A joker standing for a card shows that card, marked as a joker (a star badge, a tint).
  const label = opts.label || t("ct.joker_as", { card: cardLabel(j.as) });
  const el = cardEl(j.as, { ...opts, label, classes: [...(opts.classes || []), "joker-as"] });
  el.dataset.face = face;
  el.appendChild(h("span", { class: "joker-badge", "aria-hidden": "true" }, "\u2605"));
  return el;
}

/** "7♥" (a joker standing for one: "★7♥"; a plain joker "★") for sentences. */
export function shortFace(face) {
  const j = jokerFace(face);
  if (j.joker) { if (!j.as) return "\u2605"; const p = parseFace(j.as); return "\u2605" + p.rank + p.symbol; }
  const p = parseFace(face);
  return p.rank + p.symbol;
}

export function shortFaces(list) { return (list || []).map(shortFace).join(" "); }

/** One thing a turn did to the table (a `did` of classicview.js sinceMyTurn), in words. */
export function didText(d) {
  const cards = shortFaces(d.cards);
  switch (d.kind) {
    case "laid": return t("ct.did.laid", { cards });
    case "added": return t("ct.did.added", { cards, meld: d.meld });
    case "moved":
      if (d.from === d.meld && d.as) return t("ct.did.joker_as", { meld: d.meld, card: shortFace(d.as) });
      return t(d.from === null ? "ct.did.moved_loose" : "ct.did.moved", { cards, meld: d.meld, from: d.from });
    case "freed": return t("ct.did.freed", { cards, meld: d.meld });
    case "swapped": return t("ct.did.swapped", { cards, meld: d.meld });
    default: return d.kind;
  }
}

/** A finished turn (classicview.js sinceMyTurn) in words: what it did, then how it ended. */
export function turnText(tn) {
  const parts = tn.did.map((d) => didText(d));
  const END = { drew: "ct.did.drew", passed: "ct.did.passed", penalty: "ct.did.penalty",
    left: "ct.did.left", left_penalty: "ct.did.left_penalty" };
  if (END[tn.end]) parts.push(t(END[tn.end]));
  return parts.join(", ");
}
