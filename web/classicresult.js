// The end of a classic hand and of the match (C22–C28): who won and how (result.end), each
// player's points in hand (result.values, C25) and score with its reason by the table's
// scoring (C26: the winner scores the others' hands, or each their own penalty), the match
// totals, the pause before the next deal with Ready (C31), the match's end. And the waiting
// room of a classic table before its first deal (table.size seats).
import { t } from "./i18n.js";
import { h, clockEl, fmtNumber, fmtScore } from "./ui.js";
import { CS } from "./classicstate.js";
import { botControl } from "./botseats.js";
import { outMove, outMoveText } from "./classicnews.js";
import { endButtons, replayLink } from "./endscreen.js";

/** Why `name` scored what they did in `res` under `options` (scoring, values): a sentence. */
export function scoreReason(res, options, name) {
  const v = res.values[name] ?? 0;
  const penalty = options.scoring === "penalty";
  if (res.end === "dead") return t("ct.why.dead");
  if (res.end === "abandoned") return t("ct.why.abandoned");
  if (name === res.winner) {
    const how = t("ct.how." + res.end, {}, "");
    if (penalty) return t("ct.why.winner_penalty", { how });
    return t("ct.why.winner_scores", { how, n: res.scores[name] ?? 0 });
  }
  if (res.winner === null) {
    return penalty ? t("ct.why.penalty", { n: v }) : t("ct.why.nobody_won");
  }
  return penalty ? t("ct.why.penalty", { n: v }) : t("ct.why.to_winner", { n: v, name: res.winner });
}

function valuesNote(options) {
  return t(options.values === "low" ? "ct.values.low" : "ct.values.high");
}

export function resultPanel(S, A, v) {
  const parts = [];
  const names = v.players.map((p) => p.name);
  const res = v.result;
  if (res) {
    const title = res.winner ? t(res.winner === v.you ? "ct.won.me" : "ct.won", { name: res.winner }) : t("ct.nobody_won");
    parts.push(h("div", { class: "row c-result-head" },
      h("h2", { id: "result-title" }, title, " ", h("span", { class: "chip", id: "result-end" }, t("ct.end." + res.end, {}, res.end))),
      // The final table stays under the panel: put it aside to look, Show the result brings it back.
      h("button", { class: "btn", type: "button", id: "btn-hide-result", onclick: () => A.hideResult() }, t("ct.look_table"))));
    // The move that went out (C22), from the events of the hand (none on a page opened after it).
    const move = res.end === "out" ? outMove(CS.events, res.winner) : null;
    if (move) parts.push(h("p", { class: "c-out-move", id: "out-move" }, outMoveText(move, v.you)));
    parts.push(h("table", { class: "scores", id: "hand-scores" },
      h("caption", {}, t("ct.scores_caption", { n: v.match.hand }), " ", h("span", { class: "muted small" }, valuesNote(v.options))),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("result.player")), h("th", { scope: "col" }, t("ct.in_hand")),
        h("th", { scope: "col" }, t("result.points")), h("th", { scope: "col" }, t("result.why")))),
      h("tbody", {}, names.map((n) => h("tr", { class: n === res.winner ? "winner" : "", dataset: { player: n } },
        h("th", { scope: "row" }, n),
        h("td", { class: "num" }, res.values[n] === undefined ? "" : t("ct.in_hand_n", { n: res.values[n] })),
        h("td", { class: "num" }, res.scores[n] === undefined ? "" : fmtScore(res.scores[n])),
        h("td", { class: "why" }, scoreReason(res, v.options, n)))))));
  }
  const m = v.match;
  if (v.options.match !== "single") {
    parts.push(h("table", { class: "scores totals", id: "match-totals" },
      h("caption", {}, t("ct.totals", {}), " ", h("span", { class: "muted small" }, matchGoal(v.options))),
      h("tbody", {}, names.map((n) => h("tr", { class: m.winner === n ? "winner" : "", dataset: { player: n } },
        h("th", { scope: "row" }, n), h("td", { class: "num" }, fmtNumber(m.totals[n] ?? 0)))))));
  }
  if (m.pause_until !== null && !m.over) {
    const me = v.players.find((p) => p.name === v.you);
    parts.push(h("div", { class: "pause-box", id: "pause-box" },
      h("p", {}, t("ct.next_deal"), " ", clockEl(m.pause_until, { frame: "hand", total: v.options.pause || 60, label: t("clock.pause") })),
      me && me.in_match && !S.spectator ? h("div", { class: "actions" },
        h("button", { class: "btn primary", type: "button", id: "btn-ready", disabled: CS.ready ? true : null, onclick: () => A.ready() },
          CS.ready ? t("btn.ready_done") : t("btn.ready")),
        h("button", { class: "btn ghost danger-text", type: "button", id: "btn-leave-game", onclick: () => A.leaveGame() }, t("btn.leave_game"))) : null));
  }
  // The hand just ended (no turn): watch it again (issue 35, the replay page).
  if (res && !v.turn) parts.push(replayLink(S, m.hand));
  if (m.over) {
    // Play again, Accept/Decline, Home: the one end screen of both variants (endscreen.js).
    parts.push(h("div", { class: "final", id: "final-result" },
      h("h2", {}, t("result.game_over")),
      h("p", { class: "final-text" }, m.winner ? t(m.winner === v.you ? "result.game_winner.me" : "result.game_winner", { name: m.winner }) : t("result.nobody")),
      endButtons(S, A)));
  } else if (res && m.pause_until === null) {
    parts.push(h("div", { class: "row" }, h("button", { class: "btn", type: "button", id: "btn-home", onclick: () => A.home() }, t("btn.home"))));
  }
  return h("section", { class: "result panel c-result", id: "result", role: "region", "aria-labelledby": res ? "result-title" : null }, parts);
}

function matchGoal(o) {
  if (o.match === "deals") return t("ct.goal.deals", { n: o.deals });
  if (o.match === "threshold") return t("ct.goal.threshold", { n: o.threshold });
  return t("ct.goal.target", { n: o.target });
}

// ---------------------------------------------------------------- waiting room

export function classicWaiting(S, A) {
  const tb = S.table || {};
  const size = tb.size || 4;
  const seats = tb.seats || [];
  const link = `${location.origin}/t/${S.code}`;
  return h("section", { class: "panel waiting c-waiting", "aria-labelledby": "wait-title" },
    h("h2", { id: "wait-title" }, t("wait.title")),
    h("p", { class: "table-code-big" }, h("span", { class: "muted" }, t("wait.code")), " ", h("strong", { id: "table-code" }, S.code)),
    h("p", {}, t("ct.preset." + ((tb.rules && tb.rules.preset) || tb.variant), {}, tb.variant || ""), " \u00b7 ",
      t(tb.mode === "long" ? "mode.long" : "mode.single")),
    h("p", {}, t("wait.share")),
    h("div", { class: "share" }, h("input", { class: "input", readonly: true, value: link, "aria-label": t("wait.link"), id: "share-link" })),
    h("h3", {}, t("ct.seats_taken", { n: seats.length, size })),
    h("ol", { class: "seat-list", id: "seat-list" }, Array.from({ length: size }, (_, i) => h("li", { class: "seat" + (seats[i] ? "" : " empty") },
      seats[i] ? [seats[i], seats[i] === S.seat ? ` (${t("word.you")})` : "", A.isBot(seats[i]) ? [" ", h("span", { class: "badge bot-badge" }, t("bots.badge"))] : null] : t("wait.empty_seat")))),
    h("p", { class: "muted" }, t(S.connState === "open" ? "ct.starts" : "conn." + S.connState)),
    botControl(S, A, tb, seats, size), // the level and Add a bot (botseats.js)
    S.spectator ? h("p", { class: "note" }, t("table.spectating")) : null);
}
