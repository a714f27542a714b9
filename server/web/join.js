// The home page's actions (home.js draws the page): a name, then a new friendly table, a
// table joined by code or link, the name gate of /t/CODE, or the agora queue.
import { t } from "./i18n.js";
import { api } from "./net.js";
import { S, LS, save } from "./state.js";
import { ensureSession, errorText } from "./session.js";
import { render } from "./render.js";
import { navigate, pages } from "./route.js";
import { openTable } from "./tableconn.js";

export const Home = {
  async create(name, mode) {
    S.homeError = null;
    try {
      const sess = await ensureSession(name);
      const res = await api("POST", "/api/tables", { mode }, sess.token);
      save(LS.table, res.code);
      navigate(`/t/${res.code}`);
    } catch (e) {
      S.homeError = errorText(e);
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
      openTable(code);
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
