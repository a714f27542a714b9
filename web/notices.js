// Events → notices in the player's language. Each notice keeps its event and is worded at
// render time, so switching language rewords the whole list.
import { t } from "./i18n.js";
import { parseFace } from "./cards.js";

/** "7♣ 8♣" for a list of faces. */
export function faces(list) {
  return (list || []).map((f) => { const p = parseFace(f); return p.joker ? "\u2605" : p.rank + p.symbol; }).join(" ");
}

/** The sentence about me ("You left the hand") or about another player ("Bob left the hand"). */
function tm(key, mine, vars) {
  return t(mine ? key + ".me" : key, vars);
}

function who(name, me) {
  return name === me ? t("word.you_obj") : (name ?? "?");
}

/** The reason codes the engine gives (engine/melds.py WHY_CODES, and R9's no_own_card). */
const WHY = ["too_short", "too_many_jokers", "too_few_real", "set_too_big", "set_duplicate_suit",
  "set_mixed_ranks", "run_mixed_suits", "run_duplicate", "run_too_long", "run_ace_wrap",
  "run_ace_high", "run_gap", "not_a_meld"];

/** A wounded meld named by its cards, in the order they were put there: "the run 5♥ 6♥ 8♥". */
function meldName(w) {
  const kind = w.why.startsWith("set_") ? "set" : w.why.startsWith("run_") ? "run" : "meld";
  return t("rs.meld." + kind, { cards: faces(w.cards) });
}

/** Why one meld of a failed play is not valid, in words (a wound of play_ended / chain_undo). */
export function whyText(w, mine) {
  if (w.why === "no_own_card") return t(mine ? "why.no_own_card.me" : "why.no_own_card");
  const code = WHY.includes(w.why) ? w.why : "not_a_meld";
  return t("why." + code, { meld: meldName(w), card: w.card ? faces([w.card]) : "",
    // run_gap names the missing ranks and the suit, not faces (no card off the table is named).
    missing: faces((w.missing || []).map((r) => r + (w.suit || ""))), need: w.need ?? 3, most: w.most ?? "" });
}

function whys(wounds, mine) {
  return (wounds || []).map((w) => whyText(w, mine)).join("; ");
}

/**
 * Which events become notices and how they look: {level: "alert"|"info"|"minor", text}.
 * Returns null for events that are only visible on the table (a card staged, moved...).
 */
export function describeEvent(ev, me) {
  const p = ev.player;
  const mine = p !== null && p === me;
  switch (ev.kind) {
    case "chain_undo": {
      const cause = ev.cause_player === me ? t("word.your_play", { n: ev.cause }) : t("word.play_of", { name: ev.cause_player, n: ev.cause });
      const cards = faces(ev.cards_back);
      const why = whys(ev.wounds, ev.cause_player === me);
      const tail = why ? " " + t("rs.chain_why", { why }) : "";
      // R8: a play that leaned on a cancelled play falls with it; say so, not "failed".
      const sfx = ev.cause_reason === "cancel" ? "_cancel" : "";
      if (mine) {
        return { level: "alert", hitsMe: true, text: (cards
          ? t("ev.chain_undo.me" + sfx, { cards, cause })
          : t("ev.chain_undo.me_nocards" + sfx, { cause })) + tail };
      }
      return { level: "info", text: (cards
        ? t("ev.chain_undo.other" + sfx, { name: p, cards, cause })
        : t("ev.chain_undo.other_nocards" + sfx, { name: p, cause })) + tail };
    }
    case "play_ended": {
      const fell = faces(ev.fell), back = faces(ev.staged_back);
      // Another player's play confirmed with nothing falling back is routine: the table and
      // their adds, moves and lays already say it. Only mine, failures and fallen cards show.
      if (!mine && ev.outcome === "confirmed" && !fell && !back) return null;
      const reason = t("reason.play." + ev.reason);
      const why = whys(ev.wounds, mine);
      const vars = { name: p, n: ev.play, reason, why };
      const ok = ev.outcome === "confirmed";
      const base = why
        ? (ok ? tm("rs.ok", mine, vars) : tm("rs.void", mine, vars))
        : (ok ? tm("ev.play_ended.ok", mine, vars) : tm("ev.play_ended.void", mine, vars));
      const parts = [base];
      if (Array.isArray(ev.fell_hand) && Array.isArray(ev.fell_table)) {
        // Own cards and table cards apart (logs older than the split have only `fell`).
        const hand = faces(ev.fell_hand), table = faces(ev.fell_table);
        if (hand) parts.push(tm("rs.back_hand", mine, { name: p, cards: hand }));
        if (table) parts.push(t("rs.back_table", { cards: table }));
      } else if (fell) parts.push(t("ev.play_ended.fell", { cards: fell }));
      if (back) parts.push(t("ev.play_ended.staged_back", { cards: back }));
      return { level: (fell || ev.outcome !== "confirmed") && mine ? "alert" : (fell ? "info" : "minor"), text: parts.join(" ") };
    }
    case "play_fallen": {
      // A confirmed play that fell for its own wounded melds (R10's final sweep); one that a
      // chain brought down is told by chain_undo, with the failed play's reasons.
      if (ev.cause !== ev.play || !(ev.wounds || []).length) return null;
      return { level: mine ? "alert" : "info", text: tm("rs.fallen", mine, { name: p, n: ev.play, why: whys(ev.wounds, mine) }) };
    }
    case "hold_ended":
      if (ev.reason === "expired") return { level: mine ? "alert" : "minor", text: tm("ev.hold_expired", mine, { name: p, card: faces([ev.card]) }) };
      if (ev.reason === "dropped_back") return { level: "minor", text: tm("ev.hold_dropped_back", mine, { name: p, card: faces([ev.card]) }) };
      return null;
    case "stop":
      return { level: "alert", text: mine ? t("ev.stop.me") : t("ev.stop", { name: p }) };
    case "freeze_ended":
      return { level: "alert", text: tm("ev.freeze_ended." + (ev.how || "timeout"), mine, { name: p }) + (ev.restored ? " " + t("ev.freeze_ended.restored") : "") };
    case "play_resumed":
      return mine ? { level: "info", text: t("ev.play_resumed.me") } : null;
    case "eliminated":
      return { level: "alert", text: tm("ev.eliminated." + (ev.reason || "other"), mine, { name: p }) };
    case "left":
      return { level: "alert", text: tm("ev.left." + (ev.reason || "leave"), mine, { name: p }) };
    case "absence_started":
      return mine ? null : { level: "info", text: t("ev.absence_started", { name: p }) };
    case "disconnected":
      return mine ? null : { level: "minor", text: t("ev.disconnected", { name: p }) };
    case "reconnected":
      return mine ? null : { level: "minor", text: t("ev.reconnected", { name: p }) };
    case "tiebreak_started":
      return { level: "alert", text: t("ev.tiebreak_started", { names: (ev.players || []).map((x) => who(x, me)).join(", ") }) };
    case "went_out":
      return { level: "alert", text: mine ? t("ev.went_out.me") : t("ev.went_out", { name: p }) };
    case "hand_ended":
      return { level: "alert", text: ev.winner ? tm("ev.hand_ended.winner", ev.winner === me, { name: ev.winner, end: t("end." + ev.end) }) : t("ev.hand_ended.nowinner", { end: t("end." + ev.end) }) };
    case "pause_started":
      return { level: "info", text: t("ev.pause_started") };
    case "ready":
      return { level: "minor", text: tm("ev.ready", mine, { name: p }) };
    case "left_game":
      return { level: "alert", text: tm("ev.left_game." + (ev.reason === "absence" ? "absence" : "leave"), mine, { name: p }) };
    case "game_ended":
      return { level: "alert", text: ev.winner ? tm("ev.game_ended.winner", ev.winner === me, { name: ev.winner }) : (ev.long_draw ? t("ev.game_ended.draw") : t("ev.game_ended.nobody")) };
    case "hand_dealt":
      return { level: "info", text: t("ev.hand_dealt", { n: ev.hand }) };
    case "inactivity":
      return { level: "info", text: (ev.forced || []).length ? t("ev.inactivity.forced") : t("ev.inactivity.silence") };
    case "forced_draw":
      if (!mine) return null;
      if (ev.deferred === "pending") return { level: "info", text: t("ev.forced_draw.pending") };
      return { level: "info", text: ev.card ? t("ev.forced_draw.card", { card: faces([ev.card]) }) : t("ev.forced_draw") };
    case "split":
      return { level: "minor", text: t("ev.split", { meld: ev.meld, into: (ev.into || []).join(", ") }) };
    case "reserved":
      return { level: mine ? "info" : "alert", text: t("ev.reserved", { card: faces([ev.card]), name: who(p, me) }) };
    case "added":
      return { level: "minor", text: tm("ev.added", mine, { name: p, card: faces([ev.card]), meld: ev.meld }) };
    case "placed":
      return { level: "minor", text: tm("ev.placed", mine, { name: p, card: faces([ev.card]), meld: ev.meld }) };
    case "moved":
      return { level: "minor", text: tm("ev.moved", mine, { name: p, card: faces([ev.card]), from: ev.from, to: ev.to }) };
    case "laid":
      return { level: "minor", text: tm("ev.laid", mine, { name: p, cards: faces(ev.cards), meld: ev.meld }) };
    default:
      return null;
  }
}

/** A score's reason in words. The engine writes English sentences; we read their numbers. */
export function scoreReason(reason) {
  if (!reason) return "";
  if (["lost", "eliminated", "left"].includes(reason)) return t("score." + reason);
  let m = reason.match(/^draw: (-?\d+) - (\d+) pile cards$/);
  if (m) return t("score.draw", { base: m[1], pile: m[2] });
  m = reason.match(/^tie-break: (-?\d+) \+ (\d+) pile cards of the others \+ (\d+) cards outside$/);
  if (m) return t("score.tiebreak", { base: m[1], pile: m[2], outside: m[3] });
  m = reason.match(/^(-?\d+) - (\d+) in stock \+ (\d+) in opponents' hands( \+ (\d+) for an empty stock)?$/);
  if (m) return t("score.win", { base: m[1], stock: m[2], others: m[3] }) + (m[5] ? " " + t("score.bonus", { bonus: m[5] }) : "");
  return reason;
}
