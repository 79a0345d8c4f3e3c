import assert from "node:assert/strict";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { tempProject } from "./_compile_testing.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { capDiagnostics, checkConfig, MAX_DIAGNOSTICS } from "./check.ts";

function diag(
  severity: "error" | "warning",
  line: number,
  code = severity === "error" ? "E_X" : "W_X",
): Diagnostic {
  const pos = { line, column: 1, byte: line * 10 };
  return {
    severity,
    code,
    summary: `problem on line ${line}`,
    range: { file: "agent.hcl", start: pos, end: pos },
  };
}

Deno.test("capDiagnostics() keeps a list within the cap whole, sorted", () => {
  const ds = [diag("error", 3), diag("warning", 1), diag("error", 2)];
  const r = capDiagnostics(ds, 3);
  assert.equal(r.suppressed, undefined);
  assert.deepEqual(r.diagnostics.map((d) => d.range?.start.line), [2, 3, 1]);
});

Deno.test("capDiagnostics() keeps the first ones in display order and ends with a count of the rest", () => {
  const ds: Diagnostic[] = [];
  for (let i = 250; i > 0; i--) {
    ds.push(diag(i % 5 === 0 ? "warning" : "error", i));
  }
  const r = capDiagnostics(ds);
  assert.equal(r.diagnostics.length, MAX_DIAGNOSTICS + 1);
  // Errors first (200 of them), by line: the first 100 errors are kept.
  const kept = r.diagnostics.slice(0, MAX_DIAGNOSTICS);
  assert.ok(kept.every((d) => d.severity === "error"));
  assert.equal(kept[0]!.range?.start.line, 1);
  assert.deepEqual(r.suppressed, { errors: 100, warnings: 50 });
  const note = r.diagnostics.at(-1)!;
  assert.equal(note.severity, "error");
  assert.equal(note.code, "E_TOO_MANY_DIAGNOSTICS");
  assert.equal(
    note.summary,
    "Too many problems: 100 errors and 50 warnings not shown",
  );
  assert.equal(note.range, undefined);
});

Deno.test("capDiagnostics() ends with a warning when only warnings are left out", () => {
  const ds = [diag("error", 1), diag("warning", 2), diag("warning", 3)];
  const r = capDiagnostics(ds, 1);
  assert.deepEqual(r.diagnostics.map((d) => d.code), [
    "E_X",
    "W_TOO_MANY_DIAGNOSTICS",
  ]);
  assert.equal(r.diagnostics[1]!.severity, "warning");
  assert.equal(
    r.diagnostics[1]!.summary,
    "Too many problems: 2 warnings not shown",
  );
  assert.deepEqual(r.suppressed, { errors: 0, warnings: 2 });
});

Deno.test("capDiagnostics() refuses a negative or fractional cap", () => {
  assert.throws(() => capDiagnostics([], -1), RangeError);
  assert.throws(() => capDiagnostics([], 1.5), RangeError);
  assert.equal(
    capDiagnostics([diag("error", 1)], Infinity).diagnostics.length,
    1,
  );
});

Deno.test("checkConfig() takes the exit code from every problem, not from the capped list", async () => {
  // Only lock problems: exit 2, although the note ending the capped list is
  // an error of another kind.
  const dir = await tempProject({
    "agent.hcl": 'required_providers {\n  a = { source = "builtin/echo", ' +
      'version = "~> 0.1" }\n  b = { source = "builtin/echo", ' +
      'version = "~> 0.1" }\n}\n',
    ".agent/agent.lock.hcl": "lock_file_version = 1\n",
  });
  try {
    const options = {
      globalConfig: null,
      env: {},
      locked: true,
      builtins: BUILTINS,
    };
    const all = await checkConfig(dir, options);
    const capped = await checkConfig(dir, { ...options, maxDiagnostics: 1 });
    assert.deepEqual(all.diagnostics.map((d) => d.code), [
      "E_PROVIDER_NOT_LOCKED",
      "E_PROVIDER_NOT_LOCKED",
    ]);
    assert.equal(all.exitCode, 2);
    assert.equal(capped.exitCode, 2);
    assert.equal(capped.valid, false);
    assert.deepEqual(capped.diagnostics.map((d) => d.code), [
      "E_PROVIDER_NOT_LOCKED",
      "E_TOO_MANY_DIAGNOSTICS",
    ]);
    assert.deepEqual(capped.suppressed, { errors: 1, warnings: 0 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
