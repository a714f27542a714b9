// Every string the page shows, in English, Italian and Dutch. The choice is kept in
// localStorage ("mvx.lang"); the first visit follows the browser's language.
// t(key, vars, fallback): "{name}" placeholders are filled from vars; a key missing in the
// current language falls back to English, then to `fallback` (or the key itself). The
// dictionaries are in lang/.

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

export function t(key, vars, fallback) {
  let s = DICTS[current][key];
  if (s === undefined) {
    if (fallback !== undefined) return fallback;
    missing.add(key);
    s = en[key];
    if (s === undefined) return key;
  }
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined ? m : String(vars[k])));
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
