// Loads a pure module of the page (web/NAME) for node's test runner, as an ES module
// whatever node's default for .js files (the page loads it as one). Pure modules import
// nothing, so they load from a data: URL.
import { readFileSync } from "node:fs";

export const WEB = new URL("../../web/", import.meta.url);

export async function loadWeb(name) {
  const source = readFileSync(new URL(name, WEB), "utf8");
  if (/^\s*import\s/m.test(source)) throw new Error(`${name} imports other modules: it is not pure`);
  return import("data:text/javascript;charset=utf-8," + encodeURIComponent(source));
}

/** A data: URL for web/NAME with its relative imports turned into data: URLs too. */
function dataUrlOf(name) {
  const here = new URL(name, WEB);
  let source = readFileSync(here, "utf8");
  source = source.replace(/(from\s+)"(\.[^"]+)"/g, (m, from, rel) => {
    const dep = new URL(rel, here).href.slice(WEB.href.length);
    return `${from}"${dataUrlOf(dep)}"`;
  });
  return "data:text/javascript;charset=utf-8," + encodeURIComponent(source);
}

/** Load web/NAME and the modules it imports (for modules that need no DOM to load). */
export async function loadWebTree(name) {
  return import(dataUrlOf(name));
}
