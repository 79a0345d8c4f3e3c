import assert from "node:assert/strict";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { renderHuman, renderJson, sortDiagnostics } from "./render.ts";

const at = (file: string, byte: number) => ({
  file,
  start: { line: 1, column: byte + 1, byte },
  end: { line: 1, column: byte + 2, byte: byte + 1 },
});

const DS: Diagnostic[] = [
  { severity: "warning", code: "W_B", summary: "w", range: at("agent.hcl", 0) },
  {
    severity: "error",
    code: "E_LOCK_VERSION",
    summary: "l",
    range: at(".agent/agent.lock.hcl", 3),
  },
  { severity: "error", code: "E_NO_RANGE", summary: "g" },
  { severity: "error", code: "E_A", summary: "e", range: at("agent.hcl", 5) },
];

Deno.test("sortDiagnostics() groups by file, errors before warnings, then by position", () => {
  assert.deepEqual(sortDiagnostics(DS).map((d) => d.code), [
    "E_A",
    "W_B",
    "E_LOCK_VERSION",
    "E_NO_RANGE",
  ]);
});

Deno.test("renderHuman() prints a header per file and a one-line summary", () => {
  const text = renderHuman({
    exitCode: 1,
    plan: undefined,
    diagnostics: DS,
    sources: new Map([["agent.hcl", "abcdefgh\n"]]),
  });
  const lines = text.split("\n");
  assert.equal(
    lines[0],
    "agent.hcl: 2 errors, 1 warning".replace("2 errors", "1 error"),
  );
  assert.ok(lines.includes(".agent/agent.lock.hcl: 1 error"));
  assert.ok(lines.includes("General: 1 error"));
  assert.equal(
    lines.at(-2),
    "The configuration is invalid: 3 errors, 1 warning.",
  );
});

Deno.test("renderJson() writes format_version 1 and no plan when invalid", () => {
  const doc = JSON.parse(
    renderJson({
      exitCode: 2,
      plan: undefined,
      diagnostics: DS.slice(1, 2),
      sources: new Map(),
    }),
  );
  assert.deepEqual(doc, {
    format_version: "1",
    valid: false,
    exit_code: 2,
    error_count: 1,
    warning_count: 0,
    diagnostics: [{
      severity: "error",
      code: "E_LOCK_VERSION",
      summary: "l",
      detail: "",
      range: {
        filename: ".agent/agent.lock.hcl",
        start: { line: 1, column: 4, byte: 3 },
        end: { line: 1, column: 5, byte: 4 },
      },
    }],
  });
});
