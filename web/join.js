// The home page's actions (home.js draws the page): a name, then a new friendly table, a
// table joined by code or link, the name gate of /t/CODE, or the agora queue.
import { t } from "./i18n.js";
import { api } from "./net.js";
import { S, LS, save } from "./state.js";
import { ensureSession, errorText, rememberBots } from "./session.js";
import { render } from "./render.js";
import { navigate, pages } from "./route.js";
import { openTable } from "./tableconn.js";
import { createBody } from "./tablerules.js";
import { formChoices } from "./newtable.js";

export const Home = {
  /** A new friendly table (mode "single" or "long") with the form's choices (newtable.js):
   * Machiavelox, or a classic preset, its options, seats and bots. A refusal's sentence is
   * shown next to the classic options (an impossible rule: 422, nothing created). */
  async create(name, mode) {
    S.homeError = null;
    const draft = S.newTable;
    const classic = !!draft && draft.variant === "classic";
    if (draft) { draft.error = null; draft.errorOption = null; }
    let sess;
    try {
      sess = await ensureSession(name);
    } catch (e) {
      S.homeError = errorText(e);
      render();
      return;
    }
    try {
      const res = await api("POST", "/api/tables", createBody(formChoices(draft), mode), sess.token);
      save(LS.table, res.code);
      if (Array.isArray(res.bots) && res.bots.length) rememberBots(res.code, res.bots);
      navigate(`/t/${res.code}`);
    } catch (e) {
      if (classic) { draft.error = errorText(e); draft.errorCode = e.code; draft.errorOption = refusedOption(e); }
      else S.homeError = errorText(e);
      render();
    }
  },
  async join(name, codeText) {
    S.homeError = null;
    const code = (codeText || "").trim().replace(/^.*\/t\//, "").replace(/[^A-Za-z0-9_-]/g, "").toUpperCase();
    if (!code) { S.homeError = t("err.code_required"); render(); return; }
    try {
      await ensureSession(name);
      navigate(`/t/${code}`);
    } catch (e) {
      S.homeError = errorText(e);
      render();
    }
  },
  async nameThenJoin(name) {
    S.homeError = null;
    try {
      await ensureSession(name);
      S.needName = false;
      const code = S.code;
      S.code = null;
      openTable(code, { sit: true }); // the invitation's Sit down
    } catch (e) {
      S.homeError = errorText(e);
      render();
    }
  },
  /** Join the agora queue (agora.js) under this name. */
  agora(name) {
    return pages.agora.start(name);
  },
  backHome() {
    navigate("/");
  },
};

/** The form field a refused classic table is about (C1), so that the page can name and mark
 * it in any language: the option the server's sentence quotes ("Option 'opening' takes ..."),
 * else the one its code points at; null when none. */
export function refusedOption(e) {
  const quoted = /Option '([a-z_]+)'/.exec((e && e.message) || "");
  if (quoted) return quoted[1];
  if (e && e.code === "bad_option" && /jokers with/.test(e.message || "")) return "jokers";
  return { too_many_players: "players", too_few_players: "players", no_stock: "hand", target_with_penalty: "scoring" }[e && e.code] || null;
}
