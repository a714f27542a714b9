// What happened that the player did not do themself, in words (issue 35, item 2), read from
// the classic events of this hand (engine/classic/turn.py, engine/classic/match.py emit them):
// * my own turn ended for me (C20: the turn clock; C31: my absence, or my leaving on my own
//   turn): the table put back, the penalty card I drew (its face: a private field of my own
//   event), or a pass when the stock was empty, and whether I left the hand;
// * the move that went out: the winner's last turn, what they laid or added (C22);
// * one table move of a turn in words ("laid 7♣ 8♣ 9♣", also for "since your last turn").
// No DOM here (tests/js/classicnews.test.mjs); classicdock.js and classicresult.js show them.
import { t } from "./i18n.js";
import { shortFace, shortFaces } from "./classiccards.js";
import { sinceMyTurn } from "./classicview.js";

/** The events of the latest hand only (the ones after its `hand_started`, or with its `hand`). */
function latestHand(events) {
  let hand = null, start = 0;
  events.forEach((ev, i) => {
    if ((ev.hand !== undefined && ev.hand !== hand) || ev.kind === "hand_started") { hand = ev.hand; start = i; }
  });
  return events.slice(start);
}

/**
 * How `you`r latest turn ended when it was ended for you, this hand: {how: "clock" | "absence"
 * | "leave", card: face | null (the penalty card, C20), passed (the stock was empty: the turn
 * counts as a pass), left (you left the hand, C31), seq} or null (your latest turn you ended
 * yourself, or none was ended for you). An absence while it was not your turn: how "absence",
 * card null, passed false, left true.
 */
export function forcedEnd(events, you) {
  if (!you) return null;
  let news = null, cause = null;
  for (const ev of latestHand(events)) {
    if (ev.player !== you) continue;
    switch (ev.kind) {
      case "turn_timeout": cause = "clock"; break;
      case "absent_left": cause = "absence"; break;
      case "penalty_card":
        news = { how: cause || "leave", card: typeof ev.card === "string" ? ev.card : null, passed: false, left: false, seq: ev.seq };
        cause = cause === "absence" ? cause : null;
        break;
      case "passed":
        if (ev.by === "clock") {
          news = { how: cause || "leave", card: null, passed: true, left: false, seq: ev.seq };
          cause = cause === "absence" ? cause : null;
        } else { news = null; cause = null; }
        break;
      case "left_hand":
        if (news && (news.how === "leave" || news.how === cause) && !news.left) news.left = true;
        else if (cause === "absence") news = { how: "absence", card: null, passed: false, left: true, seq: ev.seq };
        else news = null; // left the hand myself, not on my turn: nothing was done for me
        cause = null;
        break;
      case "ended": case "drew": case "reset": case "laid": case "added": case "moved": case "freed": case "swapped":
        news = null; cause = null; break;
      default: break;
    }
  }
  return news;
}

/** forcedEnd's sentence: "Time's up: the table is back as it was and you drew a penalty card: K♣." */
export function forcedEndText(news) {
  if (!news) return "";
  const back = news.card ? t("ct.news.penalty", { card: shortFace(news.card) })
    : news.passed ? t("ct.news.pass") : "";
  if (news.how === "clock") return t("ct.news.clock", { what: back });
  if (news.how === "absence") return back ? t("ct.news.absence_turn", { what: back }) : t("ct.news.absence");
  return t("ct.news.leave", { what: back });
}

/**
 * The move that went out (C22): {player, did: [{kind, cards, meld, from, as}], melds: [ids]}
 * for `winner`'s last turn of this hand, when it ended with End turn; null otherwise (another
 * end, or the events are not here: a page opened after the hand).
 */
export function outMove(events, winner) {
  if (!winner) return null;
  const { turns } = sinceMyTurn(latestHand(events), null);
  const last = turns[turns.length - 1];
  if (!last || last.player !== winner || last.end !== "ended") return null;
  const melds = new Set();
  for (const d of last.did) for (const m of [d.meld, d.from]) if (typeof m === "number") melds.add(m);
  return { player: winner, did: last.did, melds: [...melds] };
}

/** One table move of a turn in words: "laid 7♣ 8♣ 9♣", "added 5♣ to meld 3"... */
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

/** outMove's sentence: "Ada went out: laid 7♣ 8♣ 9♣." ("You went out." for `you`: the
 * moves are said in the third person; the board marks the melds). */
export function outMoveText(move, you) {
  if (!move) return "";
  if (move.player === you) return t("ct.out_move.me_plain");
  const did = move.did.map(didText).join(", ");
  return t(did ? "ct.out_move" : "ct.out_move_plain", { name: move.player, did });
}
