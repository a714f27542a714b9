// The table of melds (the board): the one region of the screen that scrolls, its cards
// overlapping within a meld and sized to fit the room (tableCardSize), drop targets for dnd.js.
import { t } from "./i18n.js";
import { h, cardEl, cardLabel, cssKey } from "./ui.js";
import { marks, colourVar, occurrences } from "./tablebits.js";
import { tableCardSize } from "./tablefit.js";

// ---------------------------------------------------------------- the board (table)

export function board(S, A) {
  const game = S.game, hv = game.hand;
  const canAct = !!S.seat && !S.spectator && !hv.result;
  const notFinal = new Map(); // meld id -> [players]
  for (const pl of hv.plays) {
    if (pl.status !== "confirmed") continue;
    for (const m of pl.melds) {
      if (!notFinal.has(m)) notFinal.set(m, []);
      if (!notFinal.get(m).includes(pl.player)) notFinal.get(m).push(pl.player);
    }
  }
  const reserved = new Map(hv.reserved.map((r) => [r.card, r.player]));
  const melds = hv.table.map((m) => meldBox(S, A, m, notFinal.get(m.id) || [], reserved, canAct));
  const hold = hv.holds.find((x) => x.player === S.seat);
  const newTile = canAct ? h("div", {
    class: "meld new-meld" + (marks.current.newMeld ? " hinted" : ""),
    role: "button",
    tabindex: "0",
    "aria-label": t("board.new_meld_label"),
    dataset: { drop: "new", key: "new" },
    onclick: () => A.activateZone("new"),
  }, h("span", { class: "plus", "aria-hidden": "true" }, "+"), h("span", {}, t(hold ? "board.new_meld_drop" : "board.new_meld"))) : null;

  const size = tableCardSize(hv.table, lastRoom || viewportSize());
  const el = h("section", {
    class: "board panel", "aria-label": t("a11y.board"), id: "board",
    // The one scrolling region of the screen; dnd.js scrolls it when a drag nears its edges.
    dataset: { scroll: "board", autoscroll: "1", size: String(size.tier) },
    style: `--tc-w:${size.w}px;--tc-h:${size.h}px;--tc-step:${size.step}px`,
  },
  removedCorner(S, A),
  h("h2", { class: "visually-hidden" }, t("a11y.board")),
  hv.table.length === 0 ? h("p", { class: "muted empty-board" }, t("board.empty")) : null,
  h("div", { class: "melds", "data-group": "melds" }, melds, newTile),
  legend());
  fitCards(el, hv.table);
  return el;
}

// The table's measured room ({w, h} px inside its padding), kept from one render to the next;
// null until the table has been laid out once (then viewportSize() estimates it).
let lastRoom = null;
let fitObserver = null;

/** Watch the table's size: when it changes (window resized, the dock or the head grew), the
 * cards take the size that fits the room (tableCardSize), without waiting for a new view. */
function fitCards(el, melds) {
  if (typeof ResizeObserver === "undefined") return;
  if (fitObserver) fitObserver.disconnect();
  fitObserver = new ResizeObserver(() => {
    if (!el.isConnected || !el.clientHeight) return;
    const cs = getComputedStyle(el);
    lastRoom = {
      w: el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
      // A table that does not scroll (a window too low for the dock, style.css) grows with
      // its cards: only its width counts then.
      h: cs.overflowY === "visible" ? Infinity : el.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom),
    };
    const size = tableCardSize(melds, lastRoom);
    if (String(size.tier) === el.dataset.size) return;
    el.dataset.size = String(size.tier);
    el.style.setProperty("--tc-w", `${size.w}px`);
    el.style.setProperty("--tc-h", `${size.h}px`);
    el.style.setProperty("--tc-step", `${size.step}px`);
  });
  fitObserver.observe(el);
}

/** The table's room in CSS pixels, estimated from the window (the layout is in style.css):
 * {w, h}. On a wide screen the notices column sits beside it; the rest is head, opponents and
 * the docked hand. */
function viewportSize() {
  const W = window.innerWidth, H = window.innerHeight;
  if (W > 960) return { w: Math.min(W, 1500) - 330, h: H - 560 };
  return { w: W - 30, h: H - 600 };
}

function legend() {
  return h("p", { class: "legend muted", "aria-hidden": "true" },
    h("span", { class: "lg lg-rework" }), t("legend.rework"), " ",
    h("span", { class: "lg lg-unsafe" }), t("legend.unsafe"), " ",
    h("span", { class: "lg lg-trial" }), t("legend.trial"), " ",
    h("span", { class: "lg lg-held" }), t("legend.held"), " ",
    h("span", { class: "lg lg-wound" }), t("legend.wound"));
}

function removedCorner(S, A) {
  const hv = S.game.hand;
  return h("div", { class: "removed-corner" + (S.showRemoved ? "" : " collapsed") },
    h("button", { class: "btn tiny ghost", type: "button", id: "toggle-removed", "aria-expanded": String(S.showRemoved), "aria-controls": "removed-cards", "aria-keyshortcuts": "H", onclick: () => A.toggleRemoved() },
      t(S.showRemoved ? "board.hide_removed" : "board.show_removed", { n: hv.removed.length })),
    S.showRemoved ? h("div", { class: "cards small-row", id: "removed-cards", "aria-label": t("board.removed_label") },
      hv.removed.map((f, i) => cardEl(f, { small: true, data: { key: `removed:${f}:${i}` } }))) : null);
}

function meldBox(S, A, m, unsafeBy, reserved, canAct) {
  const game = S.game, hv = game.hand;
  const occ = occurrences(m.cards);
  const trial = [...m.on_trial];
  const held = [...m.held];
  const holdsHere = hv.holds.filter((x) => x.meld === m.id);
  const cards = m.cards.map((f, i) => {
    const classes = [];
    let title = null;
    const ti = trial.indexOf(f);
    if (ti >= 0) { classes.push("on-trial"); trial.splice(ti, 1); }
    const hi = held.indexOf(f);
    let heldBy = null;
    if (hi >= 0) {
      held.splice(hi, 1);
      const hd = holdsHere.find((x) => x.card === f);
      heldBy = hd ? hd.player : "?";
      classes.push("held");
      if (heldBy === S.seat) classes.push("held-by-me");
      title = t("card.held_by", { name: heldBy === S.seat ? t("word.you_obj") : heldBy });
    }
    const res = reserved.get(f);
    if (res) { classes.push("reserved"); title = t("card.reserved_for", { name: res === S.seat ? t("word.you_obj") : res }); }
    const sel = A.isSelected("table", f, occ[i], m.id);
    if (sel) classes.push("selected");
    if (marks.current.table.has(`${m.id}:${f}`)) classes.push("hinted");
    const draggable = canAct && (!heldBy || heldBy === S.seat);
    const label = cardLabel(f) + (heldBy ? ", " + t("card.held_by", { name: heldBy }) : "") + (classes.includes("on-trial") ? ", " + t("card.on_trial") : "")
      + (res ? ", " + t("card.reserved_for", { name: res }) : "");
    const el = cardEl(f, {
      classes, title, label,
      focusable: canAct,
      role: canAct ? "button" : "img",
      pressed: canAct ? sel : undefined,
      data: { zone: "table", meld: String(m.id), occ: String(occ[i]), key: cssKey({ zone: "table", meld: m.id, face: f, occ: occ[i] }), ...(draggable ? { drag: "1" } : {}) },
    });
    if (heldBy) {
      el.style.setProperty("--c", colourVar(game, heldBy));
      el.appendChild(h("span", { class: "held-tag", "aria-hidden": "true" }, t("card.taken")));
    } else if (res) {
      el.style.setProperty("--c", colourVar(game, res));
      el.appendChild(h("span", { class: "held-tag", "aria-hidden": "true" }, t("card.reserved")));
    }
    if (canAct) el.addEventListener("click", (ev) => { ev.stopPropagation(); A.activateCard("table", f, occ[i], m.id); });
    return el;
  });
  const rw = m.reworked_by || [];
  const shadows = rw.map((p, i) => `0 0 0 ${3 + i * 3}px ${colourVar(game, p)}`).join(", ");
  const classes = ["meld"];
  if (rw.length) classes.push("reworked");
  if (unsafeBy.length) classes.push("unsafe");
  if (!m.valid) classes.push("wounded");
  if (marks.current.melds.has(m.id)) classes.push("hinted");
  const tags = [];
  for (const p of rw) tags.push(h("span", { class: "meld-tag rw", style: `--c:${colourVar(game, p)}` }, t(p === S.seat ? "meld.reworked_by.me" : "meld.reworked_by", { name: p })));
  if (unsafeBy.length) tags.push(h("span", { class: "meld-tag unsafe" }, t("meld.not_final")));
  if (!m.valid) tags.push(h("span", { class: "meld-tag wound" }, "\u26a0 ", t("meld.invalid")));
  const labelParts = [t("meld.label", { n: m.id, cards: m.cards.map(cardLabel).join(", ") })];
  if (rw.length) labelParts.push(t("meld.reworked_by", { name: rw.join(", ") }));
  if (unsafeBy.length) labelParts.push(t("meld.not_final"));
  if (!m.valid) labelParts.push(t("meld.invalid"));
  return h("div", {
    class: classes.join(" "),
    style: shadows ? `box-shadow: ${shadows}` : null,
    role: "group",
    tabindex: canAct ? "0" : null,
    "aria-label": labelParts.join(". "),
    dataset: { drop: canAct ? "meld" : "", meld: String(m.id), key: `meld:${m.id}` },
    onclick: canAct ? () => A.activateZone("meld", m.id) : null,
  },
  h("div", { class: "meld-head" }, h("span", { class: "meld-id" }, t("meld.badge", { n: m.id })), tags),
  h("div", { class: "cards meld-cards", "data-group": `meld-${m.id}` }, cards));
}

