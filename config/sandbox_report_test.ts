import assert from "node:assert/strict";
import {
  formatSandboxReport,
  sandboxReport,
  W_SANDBOX_OFF,
  W_SANDBOX_UNAVAILABLE,
} from "./sandbox_report.ts";
import type { SandboxMode } from "../contract/sandbox.ts";

const plan = (sandbox: SandboxMode) =>
  ({
    settings: { sandbox },
    providers: [{ name: "echo" }, { name: "notes" }],
  }) as unknown as Parameters<typeof sandboxReport>[0];

Deno.test("sandbox report: every plugin runs sandboxed when bubblewrap works, with no warning", () => {
  for (const mode of ["auto", "required"] as const) {
    const r = sandboxReport(plan(mode), { available: true });
    assert.deepEqual(r.plugins, [
      { name: "echo", sandboxed: true },
      { name: "notes", sandboxed: true },
    ]);
    assert.deepEqual(r.diagnostics, []);
    assert.match(formatSandboxReport(r), /echo: sandboxed\n/);
  }
});

Deno.test('sandbox report: sandbox = "off" is the warning W_SANDBOX_OFF naming every plugin', () => {
  const r = sandboxReport(plan("off"), { available: true });
  assert.ok(r.plugins.every((p) => !p.sandboxed));
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0]!.severity, "warning");
  assert.equal(r.diagnostics[0]!.code, W_SANDBOX_OFF);
  assert.match(r.diagnostics[0]!.detail!, /"echo", "notes"/);
  assert.match(formatSandboxReport(r), /notes: NOT sandboxed/);
});

Deno.test("sandbox report: bubblewrap missing is the warning W_SANDBOX_UNAVAILABLE with the probe's reason, under auto and required", () => {
  const probe = { available: false, reason: '"bwrap" is not installed' };
  const auto = sandboxReport(plan("auto"), probe);
  assert.ok(auto.plugins.every((p) => !p.sandboxed));
  assert.equal(auto.diagnostics[0]!.code, W_SANDBOX_UNAVAILABLE);
  assert.match(auto.diagnostics[0]!.detail!, /"bwrap" is not installed/);
  assert.match(auto.diagnostics[0]!.detail!, /would run unsandboxed/);
  const required = sandboxReport(plan("required"), probe);
  assert.match(required.diagnostics[0]!.detail!, /refuses to start/);
});
