// "Add a bot" in a friendly table's waiting room: the level (casual or shark) and one bot per
// click into a free seat (POST /api/tables/{code}/bots, actions.js addBot). Machiavelox's
// waiting room (table.js) and a classic table's (classicresult.js, 2–6 seats) show it.
import { t } from "./i18n.js";
import { h } from "./ui.js";

/** The bot control for a player seated at a friendly table (null otherwise); `size`: the
 * table's seats (Machiavelox 3, classic 2–6). */
export function botControl(S, A, tb, seats, size = 3) {
  if (!tb || tb.agora || S.spectator || !S.seat || !seats.includes(S.seat)) return null;
  const open = tb.phase === "waiting" && seats.length < size && !S.game;
  const level = S.botLevel === "shark" ? "shark" : "casual";
  const radio = (value) => h("label", { class: "bot-level" },
    h("input", { type: "radio", name: "bot-level", value, id: `bot-level-${value}`, checked: level === value ? true : null,
      disabled: !open || S.botBusy ? true : null, onchange: () => A.setBotLevel(value) }),
    " ", h("strong", {}, t("bots.level." + value)), " ", h("span", { class: "muted" }, t("bots.level." + value + ".text")));
  return h("fieldset", { class: "bots", id: "bot-control" },
    h("legend", {}, t("bots.title")),
    h("p", { class: "muted small" }, t("bots.text")),
    h("div", { class: "row bot-levels" }, radio("casual"), radio("shark")),
    h("div", { class: "row" },
      h("button", { class: "btn", type: "button", id: "btn-add-bot", disabled: !open || S.botBusy ? true : null, onclick: () => A.addBot() },
        t("bots.add"))),
    S.botError ? h("p", { class: "error", role: "alert", id: "bot-error" }, S.botError) : null);
}
