// Who this browser is (a session: name and token) and what it knows about a table's seats:
// which are bots, whether the agora matched it. Also the sentences for refused API requests.
import { t, getLang, refusalText } from "./i18n.js";
import { api, ApiError } from "./net.js";
import { isAgoraCode } from "./agora.js";
import { S, LS, save } from "./state.js";

/** The session for `name` (a new one when the name differs or there is none); throws ApiError. */
export async function ensureSession(name) {
  name = (name || "").trim();
  if (S.session && S.session.token && (!name || S.session.name === name)) return S.session;
  if (!name) throw new ApiError(400, "name_required", "");
  let res;
  try {
    res = await api("POST", "/api/session", { name });
  } catch (e) {
    if (e instanceof ApiError && e.code === "bad_field") throw new ApiError(e.status, "bad_name", e.message);
    throw e;
  }
  S.session = { token: res.token, name: res.name || name };
  save(LS.session, S.session);
  return S.session;
}

/** A refused API request in words: ours by code, else the server's sentence (English) or its translation. */
export function apiErrorText(e) {
  if (e.code === "network") return t("err.network");
  const known = t("err." + e.code, {}, null);
  if (known) return known;
  if (getLang() === "en" && e.message) return e.message;
  return refusalText(e.code, e.message);
}

/** Any error as a sentence (an ApiError in words, anything else as it prints). */
export function errorText(e) {
  return e instanceof ApiError ? apiErrorText(e) : String(e);
}

/** A refused bot request: the server's sentence (in English), else its translation by code. */
export function botErrorText(e) {
  if (e.code === "network") return t("err.network");
  if (getLang() === "en" && e.message) return e.message;
  return t("bots.err." + e.code, {}, null) || apiErrorText(e);
}

// Bot seats. The TABLE_SUMMARY lists them (`bots`); with an older server that does not, this
// browser remembers the names the bot endpoint answered with (per table, sessionStorage), and
// otherwise recognises the names the server gives its bots ("Casual bot", "Shark bot 2").
const BOT_NAME = /^(Casual|Shark) bot( \d+)?$/;
function rememberedBots(code) {
  try { const v = JSON.parse(sessionStorage.getItem("mvx.bots." + code) || "[]"); return Array.isArray(v) ? v : []; } catch (e) { return []; }
}
export function rememberBots(code, names) {
  try { sessionStorage.setItem("mvx.bots." + code, JSON.stringify([...new Set([...rememberedBots(code), ...names])])); } catch (e) { /* fine */ }
}
export function isBotSeat(name) {
  if (typeof name !== "string") return false;
  if (S.table && Array.isArray(S.table.bots)) return S.table.bots.includes(name);
  return BOT_NAME.test(name) || (!!S.code && rememberedBots(S.code).includes(name));
}

/** Was this table matched by the agora? The server's summary says so; older servers do not,
 * and then this browser's own memory of its agora tables decides. */
export function isAgoraTable() {
  if (S.table && typeof S.table.agora === "boolean") return S.table.agora;
  return !!S.code && isAgoraCode(S.code);
}

/** Leaving a finished table for another page: forget it (and its hand order). */
export function forgetFinishedTable() {
  try {
    localStorage.removeItem(LS.table);
    if (S.code && S.game && S.game.phase === "over") localStorage.removeItem(LS.order + S.code);
  } catch (e) { /* ignore */ }
}
