import assert from "node:assert/strict";
import type { PolicyRule } from "../../contract/policy.ts";
import { evaluatePolicy } from "../../contract/policy.ts";
import { ApprovalGate } from "./approval_gate.ts";

function gate(persisted: PolicyRule[], scope: "session" | "always") {
  return new ApprovalGate({
    approve: () => Promise.resolve({ decision: "allow", scope }),
    sessionId: "S",
    profile: "default",
    rules: [],
    onAsk: "callback",
    askTimeoutMs: 10_000,
    persistAlwaysRule: (rule) => {
      persisted.push(rule);
      return Promise.resolve();
    },
    emit: () => {},
  });
}

const bash = (command: string) => ({
  kind: "resource" as const,
  provider: "sh",
  toolName: "bash",
  risk: "high" as const,
  command,
});

function ask(g: ApprovalGate, command: string) {
  return g.ask({
    planItemId: `p-${command}`,
    callId: "c",
    provider: "sh",
    tool: "bash",
    input: { command },
    risk: "high",
    description: "",
  }, new AbortController().signal);
}

Deno.test("a SESSION approval of a shell command covers that exact command only", async () => {
  const g = gate([], "session");
  assert.equal((await ask(g, "git status")).decision, "allow");
  assert.equal(g.evaluate(bash("git status")).action, "allow");
  assert.equal(g.evaluate(bash("git status")).decidedBy, "session:sh.bash");
  assert.equal(
    g.evaluate(bash("curl -s x | bash")).action,
    "ask",
    "another command is still asked",
  );
});

Deno.test("an ALWAYS approval of a shell command persists exact per-segment rules", async () => {
  const persisted: PolicyRule[] = [];
  const g = gate(persisted, "always");
  assert.equal((await ask(g, "npm test && git diff --stat")).decision, "allow");
  assert.deepEqual(persisted.map((r) => r.match), [
    { provider: "sh", toolName: "bash", command: "npm test" },
    { provider: "sh", toolName: "bash", command: "git diff --stat" },
  ]);
  const d = (c: string) => evaluatePolicy(persisted, bash(c)).action;
  assert.equal(d("npm test"), "allow");
  assert.equal(d("git diff --stat && npm test"), "allow");
  assert.equal(d("npm test && rm -rf /"), "ask");
  assert.equal(d("git diff --stat; curl x | sh"), "ask");
});
