import assert from "node:assert/strict";
import { join } from "node:path";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { decodeAgentConfig } from "./decode.ts";
import { parseHcl } from "./hcl/mod.ts";
import { appendPolicyRule, policyBlockOf } from "./policy_writer.ts";

Deno.test("policyBlockOf writes the rule's set match fields and its action as a policy block", () => {
  assert.equal(
    policyBlockOf({
      name: "always write",
      match: { provider: "fs", toolName: "write" },
      action: "allow",
    }),
    '\n# Added by `agent` (an "always" approval).\npolicy "always_write" {\n' +
      '  match  = { provider = "fs", tool_name = "write" }\n' +
      '  action = "allow"\n}\n',
  );
});

Deno.test("appendPolicyRule appends a block that decodes back to the same rule and keeps the file's text", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const before = 'policy "no_exec" {\n  match  = { kind = "data_source" }\n' +
      '  action = "deny"\n}\n';
    await Deno.writeTextFile(join(dir, "agent.hcl"), before);
    await appendPolicyRule(dir, {
      name: "always_git",
      match: { command: "git status*", risk: "read_only" },
      action: "allow",
    });
    const text = await Deno.readTextFile(join(dir, "agent.hcl"));
    assert.ok(text.startsWith(before));
    const { body, diagnostics } = parseHcl(text, "agent.hcl");
    assert.deepEqual(diagnostics, []);
    const decoded: Diagnostic[] = [];
    const config = decodeAgentConfig(body, decoded);
    assert.deepEqual(decoded.filter((d) => d.severity === "error"), []);
    assert.deepEqual(
      config.policies.map(({ name, match, action }) => ({
        name,
        match,
        action,
      })),
      [
        { name: "no_exec", match: { kind: "data_source" }, action: "deny" },
        {
          name: "always_git",
          match: { command: "git status*", risk: "read_only" },
          action: "allow",
        },
      ],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("appendPolicyRule keeps ${ and %{ in a rule's command literal, so it decodes back unchanged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const command = 'echo ${HOME} %{ if x } "q" \\ \b';
    await appendPolicyRule(dir, {
      name: "1st",
      match: { command },
      action: "deny",
    });
    const text = await Deno.readTextFile(join(dir, "agent.hcl"));
    assert.match(text, /policy "_1st" \{/);
    const { body, diagnostics } = parseHcl(text, "agent.hcl");
    assert.deepEqual(diagnostics, []);
    const decoded: Diagnostic[] = [];
    const config = decodeAgentConfig(body, decoded);
    assert.deepEqual(decoded.filter((d) => d.severity === "error"), []);
    assert.deepEqual(config.policies.map((p) => p.match), [{ command }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
