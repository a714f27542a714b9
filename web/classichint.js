// A hint at a classic table (docs/protocol.md, "hint"; bots lane: the shark's whole turn as
// classic commands, new melds named "n1"…): asked with the Hint button on my turn, shown as a
// numbered list in words under the buttons, its cards (those still in my hand) and melds
// highlighted, until my turn ends or the player closes it.
import { t } from "./i18n.js";
import { h, toast } from "./ui.js";
import { CS } from "./classicstate.js";
import { shortFace, shortFaces } from "./classiccards.js";
import { S } from "./state.js";
import { render } from "./render.js";

/** Ask for a hint (once at a time); CS.hint = {steps, cards, melds, version, turn}. */
export async function askHint() {
  if (!S.conn || CS.hintBusy) return;
  CS.hintBusy = true;
  render();
  const res = await S.conn.hint();
  CS.hintBusy = false;
  if (!res) { toast(t("suggest.failed"), "info"); render(); return; }
  if (res.type !== "hint") { render(); return; } // refused: its sentence is shown already
  const v = S.game;
  CS.hint = { steps: res.steps || [], cards: res.cards || [], melds: res.melds || [], version: res.version,
    turn: v && v.turn ? v.turn.started : null, advice: res.advice || null };
  render();
}

/** The hint shown now, or null (another turn: gone). */
export function currentHint(v) {
  const hint = CS.hint;
  if (!hint) return null;
  if (!v.turn || v.turn.player !== v.you || v.turn.started !== hint.turn) { CS.hint = null; return null; }
  return hint;
}

function meldName(m) {
  if (typeof m === "string" && /^n\d+$/.test(m)) return t("ct.step.new_meld", { n: m.slice(1) });
  if (m === "new") return t("ct.step.a_new_meld");
  return t("meld.badge", { n: m });
}

/** One step of a hint in words. */
export function stepText(step) {
  switch (step.do) {
    case "lay": return t("ct.step.lay", { cards: shortFaces(step.cards) });
    case "add": return t("ct.step.add", { card: shortFace(step.card), meld: meldName(step.meld) });
    case "move": {
      const as = step.as ? " " + t("ct.step.as", { card: shortFace(step.as) }) : "";
      if (step.meld === "loose") return t("ct.step.place_loose", { meld: meldName(step.to) }) + as;
      return t("ct.step.move", { card: shortFace(step.card), from: meldName(step.meld), to: meldName(step.to) }) + as;
    }
    case "free": return t("ct.step.free", { card: shortFace(step.card), meld: meldName(step.meld) });
    case "swap": return t("ct.step.swap", { card: shortFace(step.card), meld: meldName(step.meld) });
    case "end": return t("ct.end_turn");
    case "draw": return t("ct.draw");
    case "pass": return t("ct.pass");
    default: return step.do;
  }
}

/** The hint's box under the buttons. */
export function hintBox(hint) {
  return h("div", { class: "c-hintbox", id: "hint-box", role: "status" },
    h("strong", {}, t("ct.hint_title")), " ",
    h("ol", { class: "c-steps" }, hint.steps.map((s, i) => h("li", {}, h("b", { "aria-hidden": "true" }, `${i + 1}.`), " ", stepText(s)))),
    h("button", { class: "btn tiny ghost", type: "button", id: "btn-hint-close", onclick: () => { CS.hint = null; render(); } }, t("btn.close")));
}
