import assert from "node:assert/strict";
import { compile } from "./compile.ts";
import { DEFAULT_CONFIG_PATH, loadConfigInputs } from "./files.ts";
import {
  defaultConfigText,
  type ModelChoice,
  modelChoiceFromEnv,
  netGrantOf,
} from "./default_config.ts";
import { BUILTINS } from "../plugins/builtin.ts";

Deno.test("modelChoiceFromEnv() prefers ANTHROPIC_API_KEY, then OPENAI_API_KEY, and honours the base URLs", async (t) => {
  const cases: [string, Record<string, string>, ModelChoice | undefined][] = [
    ["no key", {}, undefined],
    ["empty keys count as unset", {
      ANTHROPIC_API_KEY: "",
      OPENAI_API_KEY: "",
    }, undefined],
    ["both keys: anthropic", {
      ANTHROPIC_API_KEY: "a",
      OPENAI_API_KEY: "o",
    }, { provider: "anthropic" }],
    ["empty anthropic key: openai", {
      ANTHROPIC_API_KEY: "",
      OPENAI_API_KEY: "o",
      OPENAI_BASE_URL: "http://127.0.0.1:8080/v1/",
    }, { provider: "openai", baseUrl: "http://127.0.0.1:8080/v1" }],
    ["anthropic base URL", {
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_BASE_URL: "https://gateway.test",
      OPENAI_BASE_URL: "http://ignored.test",
    }, { provider: "anthropic", baseUrl: "https://gateway.test" }],
  ];
  for (const [name, env, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(modelChoiceFromEnv(env), { choice: want });
    });
  }
  for (
    const bad of [
      "ftp://x.test",
      "not a url",
      "https://u:p@x.test",
      "https://x.test/?q=1",
    ]
  ) {
    await t.step(`refuses ${bad}`, () => {
      const r = modelChoiceFromEnv({
        OPENAI_API_KEY: "o",
        OPENAI_BASE_URL: bad,
      });
      assert.equal(r.choice, undefined);
      assert.match(
        r.error ?? "",
        /^OPENAI_BASE_URL must be an http or https URL/,
      );
    });
  }
});

Deno.test("netGrantOf() gives host:port, with the scheme's default port", () => {
  assert.equal(
    netGrantOf("https://api.anthropic.com"),
    "api.anthropic.com:443",
  );
  assert.equal(netGrantOf("http://localhost/v1"), "localhost:80");
  assert.equal(netGrantOf("http://[::1]:11434/v1"), "[::1]:11434");
});

Deno.test("loadConfigInputs({ defaultConfig }) compiles defaultConfigText() for a directory without agent.hcl: no error, only the missing lock file warned, for every provider", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const choices: ModelChoice[] = [
      { provider: "anthropic" },
      { provider: "anthropic", baseUrl: "http://127.0.0.1:9999" },
      { provider: "openai" },
      { provider: "openai", baseUrl: "https://proxy.test/v1" },
      { provider: "local" },
    ];
    for (const choice of choices) {
      await t.step(JSON.stringify(choice), async () => {
        const text = defaultConfigText(choice);
        const inputs = await loadConfigInputs(dir, {
          builtins: BUILTINS,
          env: { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" },
          globalConfig: null,
          defaultConfig: text,
        });
        const { plan, diagnostics } = compile(inputs);
        assert.deepEqual(
          diagnostics.map((d) => d.code),
          ["W_LOCK_MISSING"],
          JSON.stringify(diagnostics),
        );
        assert.equal(plan?.sourceFile, DEFAULT_CONFIG_PATH);
        assert.deepEqual(plan?.providers.map((p) => p.name), [
          "model",
          "fs",
          "search",
          "sh",
          "tasks",
          "ask",
          "docs",
        ]);
        const net = plan?.providers[0]?.permissions.granted.net;
        assert.deepEqual(
          net,
          [
            choice.baseUrl
              ? netGrantOf(choice.baseUrl)
              : choice.provider === "anthropic"
              ? "api.anthropic.com:443"
              : choice.provider === "openai"
              ? "api.openai.com:443"
              : "127.0.0.1:11434",
          ],
        );
      });
    }
    await t.step(
      "agent.hcl, when it exists, wins over defaultConfig",
      async () => {
        await Deno.writeTextFile(`${dir}/agent.hcl`, "# empty\n");
        const inputs = await loadConfigInputs(dir, {
          builtins: BUILTINS,
          env: {},
          globalConfig: null,
          defaultConfig: defaultConfigText({ provider: "anthropic" }),
        });
        assert.deepEqual(inputs.agent, {
          path: "agent.hcl",
          text: "# empty\n",
        });
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("defaultConfigText() notes in its header that no key was set", () => {
  assert.match(
    defaultConfigText({ provider: "anthropic" }, { noKey: true }),
    /NOTE: neither ANTHROPIC_API_KEY nor OPENAI_API_KEY was set/,
  );
  assert.doesNotMatch(defaultConfigText({ provider: "anthropic" }), /NOTE:/);
});
