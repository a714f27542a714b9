// The keyboard help of the table (? opens it): the keys (keys.js HELP_KEYS) named in the
// player's language, and the gestures.
import { t } from "./i18n.js";
import { h } from "./ui.js";
import { HELP_KEYS } from "./keys.js";

/** A key's name as the help shows it: letters as they are, named keys translated. */
export function keyName(key) {
  return key.startsWith("key.") ? t(key) : key;
}

export function helpPanel(A) {
  return h("section", { class: "help panel", id: "help", role: "dialog", "aria-modal": "false", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, t("help.title")),
    h("p", {}, t("help.intro")),
    h("dl", { class: "keys" }, HELP_KEYS.map(([k, key]) => [h("dt", {}, h("kbd", {}, keyName(k))), h("dd", {}, t(key))])),
    h("p", {}, t("help.drag")),
    h("button", { class: "btn", type: "button", onclick: () => A.toggleHelp() }, t("btn.close")));
}
