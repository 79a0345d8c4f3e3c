import assert from "node:assert/strict";
import { diagnosticsBody, parseLspConfig } from "./main.ts";

Deno.test("parseLspConfig() fills the defaults and parses initialization_options", () => {
  const c = parseLspConfig({
    command: ["deno", "lsp"],
    extensions: [".TS"],
    initialization_options: '{"enable": true}',
    language_id: "",
  });
  assert.deepEqual(c, {
    command: ["deno", "lsp"],
    extensions: [".ts"],
    env: {},
    writeTools: ["write_file", "edit_file", "multi_edit"],
    timeoutMs: 3000,
    maxDiagnostics: 20,
    initializationOptions: { enable: true },
  });
});

Deno.test("parseLspConfig() refuses bad attributes, naming them", async (t) => {
  const base = { command: ["deno", "lsp"], extensions: [".ts"] };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...base, command: [] }, /"command" must be a non-empty list/],
    [
      { ...base, extensions: ["ts"] },
      /"extensions" holds "ts".*with their dot/,
    ],
    [
      { ...base, timeout_ms: 0 },
      /"timeout_ms" must be a whole number of at least 1, not 0/,
    ],
    [
      { ...base, initialization_options: "{" },
      /"initialization_options" is not JSON text/,
    ],
    [{ ...base, env: { "1X": "y" } }, /"env" has "1X"/],
    [{ ...base, servers: [] }, /"servers" is not supported by lsp/],
  ];
  for (const [raw, message] of cases) {
    await t.step(JSON.stringify(raw), () => {
      // deno-lint-ignore no-explicit-any
      assert.throws(() => parseLspConfig(raw as any), message);
    });
  }
});

Deno.test("diagnosticsBody() lists errors 1-based with their source and code, bounded", () => {
  const d = (line: number, message: string) => ({
    range: { start: { line, character: 6 } },
    severity: 1,
    code: 2322,
    source: "deno-ts",
    message,
  });
  assert.equal(
    diagnosticsBody("a.ts", [d(0, "Type 'string'\n  is wrong."), d(4, "b")], 1),
    "a.ts:1:7: Type 'string' is wrong. [deno-ts 2322]\n… and 1 more",
  );
  assert.equal(diagnosticsBody("a.ts", [], 5), "No errors left in a.ts.");
});
