// The end of a hand and of a game (table.js resultPanel shows these): "Watch the replay" for
// a finished hand (/replay/{code}/{hand}, the replay page), and at the end of the game what
// comes next: Home; at a friendly table "Play again" (a new table with the same seats and
// bots: the others are asked, and accept or decline); at an agora table the ranking and
// "Back to the queue".
import { t } from "./i18n.js";
import { h } from "./ui.js";
import { againView } from "./again.js";

/** The link to watch a finished hand of this table again: `hand` (a classic table's, whose
 * view says which hand ended), else the Machiavelox game's current hand once it is over;
 * null before. */
export function replayLink(S, hand) {
  if (hand === undefined) {
    const game = S.game, hv = game && game.hand;
    if (!hv || !hv.result) return null;
    hand = game.hand_no || 1;
  }
  if (!hand || !S.code) return null;
  return h("p", { class: "row replay-row" },
    h("a", { class: "btn ghost", id: "replay-link", href: `/replay/${encodeURIComponent(S.code)}/${hand}` }, t("again.replay")));
}

/** "Play again" and its answers, for a player seated at a finished friendly table. */
function againBox(S, A) {
  const v = againView(S.again, S.seat, S.againDeclined);
  const busy = S.againBusy ? true : null;
  const parts = [];
  if (v.mode === "ask") {
    parts.push(h("p", { class: "again-ask", id: "again-ask", role: "status" }, t("again.asks", { name: v.by })));
    parts.push(h("div", { class: "row" },
      h("button", { class: "btn primary", type: "button", id: "btn-again-accept", disabled: busy, onclick: () => A.acceptAgain() }, t("again.accept")),
      h("button", { class: "btn", type: "button", id: "btn-again-decline", disabled: busy, onclick: () => A.declineAgain() }, t("again.decline"))));
  } else {
    // Nobody asked yet, I asked (in another window), or I declined and may still change my mind.
    if (v.mode === "declined") parts.push(h("p", { class: "muted", id: "again-you-declined" }, t("again.you_declined")));
    parts.push(h("div", { class: "row" },
      h("button", { class: "btn primary", type: "button", id: "btn-again", disabled: busy, onclick: () => A.playAgain() },
        S.againBusy === "again" ? t("again.going") : t("again.play"))));
  }
  if (v.others.length) parts.push(h("p", { class: "muted", id: "again-declined", role: "status" }, t("again.declined", { names: v.others.join(", ") })));
  return h("div", { class: "again", id: "again" }, parts);
}

/** What the game-over panel offers. */
export function endButtons(S, A) {
  const seated = !!S.seat && !S.spectator;
  const agora = A.isAgora();
  return h("div", { class: "end-actions" },
    seated && !agora ? againBox(S, A) : null,
    h("div", { class: "row" },
      agora && seated ? h("button", { class: "btn primary", type: "button", id: "btn-agora-again", onclick: () => A.agoraAgain() }, t("btn.agora_again")) : null,
      agora ? h("button", { class: "btn", type: "button", id: "btn-ranking", onclick: () => A.toRanking() }, t("btn.ranking")) : null,
      h("button", { class: agora || seated ? "btn" : "btn primary", type: "button", id: "btn-home", onclick: () => A.home() }, t("btn.home"))));
}
