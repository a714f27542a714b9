// Keyboard shortcuts at a table (the help lists them: table.js helpPanel). The keys are the
// same in every language; only their names in the help are translated.
import { S } from "./state.js";
import { render } from "./render.js";

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
      if (el.tagName === "BUTTON") return; // buttons handle themselves
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
    const fn = SHORTCUTS[ev.key.length === 1 ? ev.key.toLowerCase() : ev.key];
    if (fn && S.seat && !S.spectator) { ev.preventDefault(); fn(); }
    else if (fn && (ev.key === "?" || ev.key.toLowerCase() === "h")) { ev.preventDefault(); fn(); }
  });
}
