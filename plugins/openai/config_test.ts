import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "./config.ts";

const LOCAL = { base_url: "http://127.0.0.1:11434/v1", models: ["m"] };

Deno.test("parseConfig() reads an absent api, which arrives as an empty string, as the endpoint's default", () => {
  assert.equal(parseConfig({ ...LOCAL, api: "" }).api, "chat");
  assert.equal(parseConfig({ ...LOCAL }).api, "chat");
  assert.equal(
    parseConfig({ api_key: "k", api: "" }).api,
    "responses",
  );
});

Deno.test("parseConfig() keeps an explicit api and refuses an unknown one", () => {
  assert.equal(parseConfig({ ...LOCAL, api: "responses" }).api, "responses");
  assert.throws(
    () => parseConfig({ ...LOCAL, api: "completions" }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message ===
        'config attribute "api" must be "responses" or "chat", got "completions"',
  );
});
