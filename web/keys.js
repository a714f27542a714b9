// Keyboard shortcuts at a table (the help lists them: help.js). The keys are the same in
// every language; only their names in the help are translated ("Invio / Spazio").
import { S } from "./state.js";
import { render } from "./render.js";

/** The help's list: [key (a letter, shown as is, or an i18n key "key.*"), what it does (i18n key)]. */
export const HELP_KEYS = [
  ["D", "help.draw"], ["S", "help.stage"], ["U", "help.unstage"], ["L", "help.lay"], ["T", "help.take"],
  ["N", "help.new"], ["E", "help.end"], ["X", "help.cancel"], ["!", "help.stop"], ["O", "help.sort"],
  ["H", "help.removed"], ["J", "help.jump_hand"], ["K", "help.jump_table"],
  ["key.enter_space", "help.select"], ["key.esc", "help.escape"], ["key.arrows", "help.arrows"],
  ["key.alt_arrows", "help.rearrange"], ["?", "help.help"],
];

/** Keys that work for someone watching, too (the others act for a seated player only). */
const ANYONE = new Set(["?", "h", "k"]);

/**
 * Move the keyboard focus to my hand ("hand": its first card) or to the table ("table": its
 * first meld, or the New meld tile), so that nobody needs 15 Tab presses to get there.
 * False when that part is not on the page.
 */
export function focusZone(which) {
  const group = document.querySelector(which === "hand" ? "[data-group='hand']" : "[data-group='melds']");
  if (!group) return false;
  const first = [...group.querySelectorAll("[data-key]")].find((x) => x.tabIndex >= 0);
  const target = first || group;
  if (!first && group.tabIndex < 0) group.setAttribute("tabindex", "-1");
  target.focus();
  if (target.scrollIntoView) target.scrollIntoView({ block: "nearest", inline: "nearest" });
  return document.activeElement === target;
}

/** Letter (or symbol) -> what it does; `A` is the table's actions (actions.js). */
function shortcuts(A) {
  return {
    d: () => A.draw(),
    s: () => A.stage(),
    u: () => A.unstage(),
    l: () => A.lay(),
    t: () => A.take(),
    n: () => A.toNew(),
    e: () => A.end(),
    x: () => A.cancel(),
    "!": () => A.stop(),
    o: () => A.sort(S.sortMode === "suit" ? "rank" : "suit"),
    h: () => A.toggleRemoved(),
    j: () => focusZone("hand"),
    k: () => focusZone("table"),
    "?": () => A.toggleHelp(),
  };
}

/** Listen to the page's keys (once, at boot). */
export function installKeys(A) {
  const SHORTCUTS = shortcuts(A);
  document.addEventListener("keydown", (ev) => {
    const tag = (ev.target.tagName || "").toLowerCase();
    const typing = tag === "input" || tag === "textarea" || tag === "select" || ev.target.isContentEditable;
    if (document.querySelector("dialog[open]")) return;
    if (S.route !== "table" || typing || ev.ctrlKey || ev.metaKey) return;
    const el = ev.target.closest ? ev.target.closest("[data-key]") : null;
    if (ev.key === "Escape") {
      if (S.showHelp) { S.showHelp = false; render(); return; }
      if (S.selection.length) { ev.preventDefault(); A.clearSelection(); }
      return;
    }
    if (el && (ev.key === "Enter" || ev.key === " ")) {
      // Buttons handle themselves, also one inside a card or meld (a joker's faces, C8).
      if (ev.target.closest("button")) return;
      ev.preventDefault();
      if (el.dataset.zone) A.activateCard(el.dataset.zone, el.dataset.face, parseInt(el.dataset.occ, 10), el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined);
      else if (el.dataset.drop) A.activateZone(el.dataset.drop, el.dataset.meld ? parseInt(el.dataset.meld, 10) : undefined);
      return;
    }
    if (el && el.dataset.zone === "hand" && ev.altKey && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) {
      ev.preventDefault();
      A.shiftHandCard(el.dataset.face, parseInt(el.dataset.occ, 10), ev.key === "ArrowLeft" ? -1 : 1);
      return;
    }
    if (el && !ev.altKey && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(ev.key)) {
      // Move focus among the cards and melds of the same group.
      const group = el.closest("[data-group]");
      if (!group) return;
      const items = [...group.querySelectorAll("[data-key]")].filter((x) => x.tabIndex >= 0);
      const i = items.indexOf(el);
      const next = items[i + (ev.key === "ArrowLeft" || ev.key === "ArrowUp" ? -1 : 1)];
      if (next) { ev.preventDefault(); next.focus(); }
      return;
    }
    if (ev.altKey) return;
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    const fn = SHORTCUTS[key];
    if (fn && ((S.seat && !S.spectator) || ANYONE.has(key))) { ev.preventDefault(); fn(); }
  });
}
