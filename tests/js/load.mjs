// Loads a pure module of the page (server/web/NAME) for node's test runner, as an ES module
// whatever node's default for .js files (the page loads it as one). Pure modules import
// nothing, so they load from a data: URL.
import { readFileSync } from "node:fs";

export const WEB = new URL("../../server/web/", import.meta.url);

export async function loadWeb(name) {
  const source = readFileSync(new URL(name, WEB), "utf8");
  if (/^\s*import\s/m.test(source)) throw new Error(`${name} imports other modules: it is not pure`);
  return import("data:text/javascript;charset=utf-8," + encodeURIComponent(source));
}
