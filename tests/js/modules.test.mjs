// The page's modules (web/*.js, loaded by the browser as ES modules): every import
// names a file that exists and a name it exports, and no module imports itself through others.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { WEB } from "./load.mjs";

function modules() {
  const out = new Map();
  const walk = (dir) => {
    for (const ent of readdirSync(new URL(dir, WEB), { withFileTypes: true })) {
      if (ent.isDirectory()) walk(`${dir}${ent.name}/`);
      else if (ent.name.endsWith(".js")) out.set(`${dir}${ent.name}`, readFileSync(new URL(`${dir}${ent.name}`, WEB), "utf8"));
    }
  };
  walk("");
  return out;
}

function importsOf(name, source) {
  const base = new URL(name, "file:///web/");
  return [...source.matchAll(/^import\s+(?:\{([^}]*)\}|(\w+))\s+from\s+"(\.[^"]+)";/gm)].map((m) => ({
    names: m[1] ? m[1].split(",").map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean) : [],
    isDefault: !!m[2],
    path: new URL(m[3], base).pathname.replace(/^\/web\//, ""),
  }));
}

function exportsOf(source) {
  const names = new Set();
  for (const m of source.matchAll(/^export\s+(?:async\s+)?(?:function|class|const|let)\s+(\w+)/gm)) names.add(m[1]);
  for (const m of source.matchAll(/^export\s+\{([^}]*)\}/gm)) for (const n of m[1].split(",")) names.add(n.trim().split(/\s+as\s+/).pop());
  if (/^export default /m.test(source)) names.add("default");
  return names;
}

test("every import names a module that exists and a name it exports", () => {
  const mods = modules();
  assert.ok(mods.size > 20);
  for (const [name, source] of mods) {
    for (const imp of importsOf(name, source)) {
      assert.ok(mods.has(imp.path), `${name} imports ${imp.path}, which is not there`);
      const ex = exportsOf(mods.get(imp.path));
      if (imp.isDefault) assert.ok(ex.has("default"), `${name}: ${imp.path} has no default export`);
      for (const n of imp.names) assert.ok(ex.has(n), `${name} imports ${n} from ${imp.path}, which does not export it`);
    }
  }
});

test("no import cycles", () => {
  const mods = modules();
  const graph = new Map([...mods].map(([n, s]) => [n, importsOf(n, s).map((i) => i.path)]));
  const state = new Map(); // name -> "open" | "done"
  const visit = (n, path) => {
    if (state.get(n) === "done") return;
    assert.notEqual(state.get(n), "open", `import cycle: ${[...path, n].join(" -> ")}`);
    state.set(n, "open");
    for (const m of graph.get(n) || []) visit(m, [...path, n]);
    state.set(n, "done");
  };
  for (const n of graph.keys()) visit(n, []);
});
