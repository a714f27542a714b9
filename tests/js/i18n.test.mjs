// The page's t() (web/i18n.js): singular forms, the minus sign, fallbacks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadWebTree } from "./load.mjs";

const { t, setLang, DICTS } = await loadWebTree("i18n.js");

test("with n equal to 1 a key's singular form is used, in every language; other counts keep the plural", () => {
  setLang("en");
  assert.equal(t("suggest.rework", { cards: "5♥", n: 1 }), "Hint: put down 5♥ by moving 1 table card: follow the steps above your hand.");
  assert.equal(t("suggest.rework", { cards: "5♥", n: 2 }), "Hint: put down 5♥ by moving 2 table cards: follow the steps above your hand.");
  assert.equal(t("player.hand_count_label", { n: 1 }), "1 card in hand");
  assert.equal(t("player.hand_count_label", { n: 0 }), "0 cards in hand");
  assert.equal(t("play.open", { n: 1 }), "Play #1", "a key without a singular form is left alone");
  setLang("it");
  assert.equal(t("me.hand_label", { n: 1 }), "La tua mano, 1 carta");
  setLang("nl");
  assert.equal(t("me.hand_label", { n: 1 }), "Je hand, 1 kaart");
  setLang("en");
});

test("negative numbers are shown with the minus sign U+2212", () => {
  setLang("en");
  assert.equal(t("player.total", { n: -15 }), "\u221215 pts");
  assert.equal(t("score.draw", { base: "-3", pile: 4 }), "draw: \u22123 \u2212 4 cards in the shared pile");
  assert.equal(t("player.total", { n: 7 }), "7 pts");
});

test("no string doubles its punctuation after Stop! (\"Stop!.\", \"Stop!:\", \"Stop!?\")", () => {
  for (const [lang, d] of Object.entries(DICTS)) {
    for (const [key, s] of Object.entries(d)) assert.doesNotMatch(s, /[!?][.:;,?!]/, `${lang} ${key}: ${s}`);
  }
});

test("no string writes a negative number with a hyphen (\"-15\"): the minus sign is U+2212", () => {
  for (const [lang, d] of Object.entries(DICTS)) {
    for (const [key, s] of Object.entries(d)) assert.doesNotMatch(s, /(^|[\s(])-\d/, `${lang} ${key}: ${s}`);
  }
});

test("every singular form has its plural key, and says 1", () => {
  for (const [lang, d] of Object.entries(DICTS)) {
    for (const key of Object.keys(d).filter((k) => k.endsWith(".one"))) {
      assert.ok(d[key.slice(0, -4)], `${lang}: ${key} without ${key.slice(0, -4)}`);
      assert.match(d[key], /\b1\b/, `${lang}: ${key}`);
    }
  }
});
