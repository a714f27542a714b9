// Every string the page shows, in English, Italian and Dutch. The choice is kept in
// localStorage ("mvx.lang"); the first visit follows the browser's language.
// t(key, vars, fallback): "{name}" placeholders are filled from vars (negative numbers with
// the minus sign U+2212); with vars.n === 1 a key's ".one" form (the singular) is used where
// it exists; a key missing in the current language falls back to English, then to
// `fallback` (or the key itself). The dictionaries are in lang/.

import en from "./lang/en.js";
import it from "./lang/it.js";
import nl from "./lang/nl.js";

export const DICTS = { en, it, nl };
export const LANGS = Object.keys(DICTS);

function initialLang() {
  try {
    const saved = localStorage.getItem("mvx.lang");
    if (saved && DICTS[saved]) return saved;
  } catch (e) { /* no storage */ }
  const nav = (typeof navigator !== "undefined" && navigator.language ? navigator.language : "en").slice(0, 2).toLowerCase();
  return DICTS[nav] ? nav : "en";
}

let current = initialLang();
const listeners = [];
export const missing = new Set(); // keys asked for but absent (the browser tests read this)

export function getLang() { return current; }

export function setLang(lang) {
  if (!DICTS[lang] || lang === current) return;
  current = lang;
  try { localStorage.setItem("mvx.lang", lang); } catch (e) { /* ignore */ }
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) { listeners.push(fn); }

/** A placeholder's value as shown: a negative number with the minus sign U+2212 ("−15"). */
function shown(v) {
  if (typeof v === "number" && v < 0) return "\u2212" + String(-v);
  if (typeof v === "string" && /^-\d+(\.\d+)?$/.test(v)) return "\u2212" + v.slice(1);
  return String(v);
}

export function t(key, vars, fallback) {
  // Singular: with {n} equal to 1, the key's ".one" form when the dictionaries have one.
  if (vars && (vars.n === 1 || vars.n === "1") && en[key + ".one"] !== undefined) key += ".one";
  let s = DICTS[current][key];
  if (s === undefined) {
    if (fallback !== undefined) return fallback;
    missing.add(key);
    s = en[key];
    if (s === undefined) return key;
  }
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined ? m : shown(vars[k])));
  return s;
}

/**
 * A refusal in words. In English the server's own sentence is shown as is (it can name the
 * card or meld); in Italian and Dutch the translation of its code, or the server's sentence
 * when the code is unknown here.
 */
export function refusalText(code, message) {
  if (current === "en" && message) return message;
  const s = DICTS[current]["ref." + code];
  if (s) return s;
  return message || t("ref.unknown");
}

if (typeof window !== "undefined") window.__mvxI18n = { DICTS, missing, t, setLang, getLang };
