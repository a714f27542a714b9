// The home page's "New friendly game" choices (issue 16): Machiavelox or classic, and for a
// classic table its preset (C2), every C1 option (filled from the preset, each one open to
// change), the number of seats and the bots that fill some; and a table's rules in words for
// the invitation (/t/CODE before sitting down). The rules' values: tablerules.js.
import { t } from "./i18n.js";
import { h } from "./ui.js";
import {
  OPTIONS, PRESETS, FEWEST_PLAYERS, MOST_PLAYERS, DEFAULT_PLAYERS, isClassic, presetValues,
  parseOption, mostPlayers, rulesInWords,
} from "./tablerules.js";

/** The form's state (kept across redraws: the page is rebuilt on every render). */
export function newTableDraft() {
  return { variant: "machiavelox", preset: "classic", players: DEFAULT_PLAYERS,
    values: presetValues("classic"), botLevel: "casual", botCount: 0, error: null };
}

/** The choices to send (tablerules.js createBody): Machiavelox, or the classic preset. */
export function formChoices(d) {
  if (!d || d.variant !== "classic") return { variant: "machiavelox" };
  return { variant: d.preset, players: d.players, values: d.values, botLevel: d.botLevel,
    botCount: Math.min(d.botCount, d.players - 1) };
}

/** The variant radios and, for classic, the options (redrawn through `rerender`). */
export function variantChoice(d, rerender) {
  const radio = (value) => h("label", { class: "variant-choice" },
    h("input", { type: "radio", name: "variant", value, id: `variant-${value}`, "data-key": `variant-${value}`,
      checked: d.variant === value ? true : null,
      onchange: () => { d.variant = value; d.error = null; rerender(); } }),
    " ", h("strong", {}, t("newt.variant." + value)), " ", h("span", { class: "muted small" }, t("newt.variant." + value + ".text")));
  return h("div", { class: "variants", role: "radiogroup", "aria-label": t("newt.variant") },
    radio("machiavelox"), radio("classic"),
    d.variant === "classic" ? classicOptions(d, rerender) : null);
}

function classicOptions(d, rerender) {
  const field = (id, label, control, note) => {
    if (d.error && d.errorOption === id) { control.setAttribute("aria-invalid", "true"); control.setAttribute("aria-describedby", "create-error"); }
    return h("div", { class: "opt-field" + (d.error && d.errorOption === id ? " refused" : ""), dataset: { option: id } },
      h("label", { for: `opt-${id}` }, label), control, note ? h("span", { class: "muted small" }, note) : null);
  };
  // The refused field is marked; a bad value (whose sentence names the option by its code, or
  // in Italian and Dutch not at all) is also named in the player's language ("Opening minimum: ...").
  const refusedLabel = d.error && d.errorCode === "bad_option" && d.errorOption ? t("opt." + d.errorOption, {}, null) : null;
  const select = (id, values, current, onchange, word) => h("select", { id: `opt-${id}`, class: "input", "data-key": `opt-${id}`, onchange },
    values.map((v) => h("option", { value: String(v), selected: String(v) === String(current) ? true : null }, word(v))));
  const preset = select("preset", Object.keys(PRESETS), d.preset, (ev) => {
    d.preset = ev.target.value;
    d.values = presetValues(d.preset);
    d.players = Math.min(d.players, mostPlayers(d.preset, d.values.packs));
    d.error = null;
    rerender();
  }, (v) => t("preset." + v));
  const seats = [];
  for (let n = FEWEST_PLAYERS; n <= MOST_PLAYERS; n++) seats.push(n);
  const players = select("players", seats, d.players, (ev) => { d.players = Number(ev.target.value); rerender(); }, String);
  const bots = [];
  for (let n = 0; n < d.players; n++) bots.push(n);
  const botCount = select("bots", bots, Math.min(d.botCount, d.players - 1), (ev) => { d.botCount = Number(ev.target.value); }, String);
  const botLevel = select("bot-level", ["casual", "shark"], d.botLevel, (ev) => { d.botLevel = ev.target.value; }, (v) => t("bots.level." + v));
  const optionField = (opt) => {
    const value = d.values[opt.name];
    const changed = value !== PRESETS[d.preset][opt.name];
    let control;
    if (opt.kind === "choice") {
      control = select(opt.name, opt.values, value, (ev) => { d.values[opt.name] = parseOption(opt, ev.target.value); rerender(); },
        (v) => optionValueText(opt.name, v));
    } else {
      control = h("input", { id: `opt-${opt.name}`, class: "input opt-number", "data-key": `opt-${opt.name}`, type: "text", inputmode: "numeric",
        value: value === null ? "" : String(value), placeholder: opt.none ? t("opt.none") : null,
        // Kept as typed, without a redraw (which would rebuild the field being typed in).
        oninput: (ev) => {
          d.values[opt.name] = parseOption(opt, ev.target.value);
          ev.target.closest(".opt-field").classList.toggle("changed", d.values[opt.name] !== PRESETS[d.preset][opt.name]);
        } });
    }
    const el = field(opt.name, t("opt." + opt.name), control, opt.none ? t("opt.none_note") : null);
    if (changed) el.classList.add("changed");
    return el;
  };
  const main = OPTIONS.filter((o) => o.group !== "match").map(optionField);
  const match = OPTIONS.filter((o) => o.group === "match").map(optionField);
  return h("div", { class: "classic-options", id: "classic-options" },
    h("div", { class: "opt-grid" },
      field("preset", t("newt.preset"), preset, t("newt.preset_note")),
      field("players", t("newt.players"), players, t("newt.players_note", { most: mostPlayers(d.preset, d.values.packs) }))),
    h("fieldset", { class: "opt-group" }, h("legend", {}, t("newt.rules")), h("div", { class: "opt-grid" }, main)),
    h("fieldset", { class: "opt-group" }, h("legend", {}, t("newt.match_rules")), h("div", { class: "opt-grid" }, match)),
    h("fieldset", { class: "opt-group" }, h("legend", {}, t("newt.bots")),
      h("div", { class: "opt-grid" }, field("bots", t("newt.bot_count"), botCount), field("bot-level", t("newt.bot_level"), botLevel))),
    h("p", { class: "muted small" }, t("newt.modes")),
    d.error ? h("p", { class: "error", role: "alert", id: "create-error" }, refusedLabel ? [h("strong", {}, refusedLabel), ": ", d.error] : d.error) : null);
}

/** An option's name without the form's note on its unit ("Turn clock", not "Turn clock
 *  (seconds)"): its value in words says the unit ("60 s"). */
export function optionName(name) {
  return t("opt." + name).replace(/\s*\([^)]*\)\s*$/, "");
}

/** One option's value in words ("2", "no cap", "120 s", "low only (A-2-3)"). */
export function optionValueText(name, value) {
  const opt = OPTIONS.find((o) => o.name === name);
  if (!opt) return String(value);
  if (value === null || value === undefined) return t("opt.none");
  if (opt.kind === "choice") return typeof value === "number" ? String(value) : t(`opt.${name}.${value}`, {}, String(value));
  if (opt.kind === "seconds") return t("opt.seconds", { n: value });
  return String(value);
}

/** How a match ends, in words ("a match to 100 points"). */
function matchText(values) {
  const end = values.match;
  if (end === "single") return t("invite.match.single");
  return t("invite.match." + end, { n: values[end] ?? "" });
}

/** The table's rules before one sits down (the summary's variant, size, rules, seats, mode). */
export function invitationRules(summary) {
  if (!summary) return null;
  const w = rulesInWords(summary);
  const lines = [];
  if (w.preset) {
    lines.push(h("li", { id: "invite-variant" }, t("invite.classic", { preset: t("preset." + w.preset) })));
  } else {
    lines.push(h("li", { id: "invite-variant" }, t("invite.machiavelox")));
  }
  lines.push(h("li", { id: "invite-seats" }, t("invite.seats", { taken: w.seats.taken, size: w.seats.size })));
  lines.push(h("li", { id: "invite-mode" }, w.mode === "long"
    ? (w.match ? matchText(w.match.values) : t("mode.long")) : t("invite.single")));
  const changes = w.changes.filter((c) => w.mode === "long" || c.name !== "match");
  return h("div", { class: "invitation", id: "invitation" },
    h("ul", { class: "invite-rules" }, lines),
    w.preset ? (changes.length
      ? [h("p", { class: "muted small" }, t("invite.changes")),
        h("ul", { class: "invite-changes", id: "invite-changes" },
          changes.map((c) => h("li", { dataset: { option: c.name } }, optionName(c.name), ": ", h("strong", {}, optionValueText(c.name, c.value)))))]
      : h("p", { class: "muted small", id: "invite-no-changes" }, t("invite.as_preset"))) : null);
}

export { isClassic };
