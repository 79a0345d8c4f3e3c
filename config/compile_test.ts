import assert from "node:assert/strict";
import { join } from "node:path";
import {
  artifact,
  codes,
  COMPILE_FIXTURES,
  compileText,
  errorCodes,
  FIXTURE_ENV,
  FIXTURE_PLATFORM,
  SUM_A,
} from "./_compile_testing.ts";
import { compile } from "./compile.ts";
import { loadConfigInputs } from "./files.ts";
import { planToJson, planToStreamedJson } from "./plan.ts";
import { renderJson, writeJson } from "./render.ts";
import { explainPlan, formatExplain } from "./explain.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const SUM_B = `sha256:${"b".repeat(64)}`;
const FS = artifact({
  name: "fs",
  capabilities: { read: ["./docs"], write: ["./out"], env: ["FS_ROOT"] },
}, {
  tools: [
    { name: "read_file", kind: "data_source", risk: "read_only" },
    { name: "write_file", kind: "resource", risk: "moderate" },
  ],
});
const FS_REQ =
  'required_providers {\n  fs = { source = "./fs", version = "~> 1.0" }\n}\n';
const FS_GRANT =
  'provider "fs" {\n  allow_read  = ["./docs"]\n  allow_write = ["./out"]\n  allow_env   = ["FS_*"]\n}\n';

function lockFor(fields: Partial<Record<string, string>> = {}): string {
  const f = {
    source: '"./fs"',
    version: '"1.0.0"',
    resolved_at: '"2026-01-01T00:00:00Z"',
    checksums: `{ "linux_amd64" = "${SUM_A}" }`,
    envelope:
      '{\n    env = ["FS_ROOT"]\n    read = ["./docs"]\n    write = ["./out"]\n  }',
    ...fields,
  };
  const body = Object.entries(f).filter(([, v]) => v !== undefined)
    .map(([k, v]) => `  ${k} = ${v}`).join("\n");
  return `lock_file_version = 1\nprovider "fs" {\n${body}\n}\n`;
}

Deno.test("compile() gives byte-identical plan JSON for the same inputs", async () => {
  const dir = join(COMPILE_FIXTURES, "valid", "full");
  const inputs = await loadConfigInputs(dir, {
    builtins: BUILTINS,
    env: FIXTURE_ENV,
    globalConfig: null,
  });
  const a = JSON.stringify(
    planToJson(compile(inputs, { platform: FIXTURE_PLATFORM }).plan!),
  );
  const again = await loadConfigInputs(dir, {
    builtins: BUILTINS,
    env: FIXTURE_ENV,
    globalConfig: null,
  });
  const b = JSON.stringify(
    planToJson(compile(again, { platform: FIXTURE_PLATFORM }).plan!),
  );
  assert.equal(a, b);
  assert.ok(a.length > 1000);
});

Deno.test("the streamed plan document and writeJson() give the text of planToJson() and renderJson()", async () => {
  const inputs = await loadConfigInputs(
    join(COMPILE_FIXTURES, "valid", "full"),
    {
      builtins: BUILTINS,
      env: FIXTURE_ENV,
      globalConfig: null,
    },
  );
  const result = compile(inputs, { platform: FIXTURE_PLATFORM });
  const plan = result.plan!;
  assert.ok(plan.providers.length > 0 && plan.policies.length > 0);
  assert.ok(plan.profiles.length > 0);
  assert.equal(
    JSON.stringify(planToStreamedJson(plan), null, 2),
    JSON.stringify(planToJson(plan), null, 2),
  );
  const input = {
    exitCode: 0 as const,
    plan,
    diagnostics: result.diagnostics,
    sources: new Map(),
  };
  const parts: Uint8Array[] = [];
  writeJson(input, (b) => parts.push(b.slice()));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  const text = renderJson(input);
  assert.ok(text.includes('"providers": [\n'));
  assert.equal(new TextDecoder().decode(bytes), text);
});

Deno.test("compile() resolves effective permissions as declared ∩ granted, paths relative to the project", () => {
  const r = compileText(FS_REQ + FS_GRANT, { artifacts: { "./fs": FS } });
  assert.deepEqual(errorCodes(r.diagnostics), []);
  const p = r.plan!.providers[0]!;
  assert.deepEqual(p.permissions.effective, {
    env: ["FS_ROOT"],
    run: [],
    read: ["./docs"],
    write: ["./out"],
    net: [],
  });
  assert.deepEqual(p.permissions.granted.env, ["FS_*"]);
});

Deno.test("compile() checks the lock entry: not locked, outdated, source changed (warnings, or errors with locked)", () => {
  const text = FS_REQ + FS_GRANT;
  const run = (lock: string | undefined, locked = false) =>
    codes(
      compileText(text, {
        artifacts: { "./fs": FS },
        ...(lock === undefined ? {} : { lock }),
        locked,
      }).diagnostics,
    );
  assert.deepEqual(run(lockFor()), []);
  assert.deepEqual(run(undefined), ["W_LOCK_MISSING"]);
  assert.deepEqual(run(undefined, true), ["E_LOCK_MISSING"]);
  const other = "lock_file_version = 1\n";
  assert.deepEqual(run(other), ["W_PROVIDER_NOT_LOCKED"]);
  assert.deepEqual(run(other, true), ["E_PROVIDER_NOT_LOCKED"]);
  assert.deepEqual(run(lockFor({ version: '"0.9.0"' })), ["W_LOCK_OUTDATED"]);
  assert.deepEqual(run(lockFor({ version: '"1.2.0"' }), true), [
    "E_LOCK_OUTDATED",
  ]);
  assert.deepEqual(run(lockFor({ source: '"./old-fs"' }), true), [
    "E_LOCK_OUTDATED",
  ]);
  assert.deepEqual(
    run(lockFor({ checksums: `{ "linux_amd64" = "${SUM_B}" }` })),
    ["E_CHECKSUM_MISMATCH"],
  );
  assert.deepEqual(run(lockFor({ envelope: undefined })), ["E_ENVELOPE_GROWN"]);
});

Deno.test("compile() marks the plan locked only when every provider matches its lock entry", () => {
  const text = FS_REQ + FS_GRANT;
  assert.equal(
    compileText(text, { artifacts: { "./fs": FS }, lock: lockFor() }).plan
      ?.locked,
    true,
  );
  assert.equal(
    compileText(text, { artifacts: { "./fs": FS } }).plan?.locked,
    false,
  );
  assert.equal(compileText("", {}).plan?.locked, false);
});

Deno.test("compile() resolves profile tools against manifest-declared tools", () => {
  const text = FS_REQ + FS_GRANT +
    'agent_profile "default" {\n  tools = ["fs.read_file", "fs.write_fle"]\n}\n';
  const r = compileText(text, { artifacts: { "./fs": FS }, lock: lockFor() });
  assert.deepEqual(errorCodes(r.diagnostics), ["E_TOOL_UNKNOWN"]);
  assert.match(r.diagnostics[0]!.detail!, /Did you mean "fs\.write_file"\?/);
});

Deno.test("compile() keeps declaration order of policies, profiles, hooks and positions for hook ordering", () => {
  const text = FS_REQ +
    'hook "session-end" {\n  provider = "fs"\n  mode = "observe"\n}\n' +
    FS_GRANT +
    'hook "post-apply" {\n  provider = "fs"\n  mode = "veto"\n}\n';
  const plan = compileText(text, { artifacts: { "./fs": FS }, lock: lockFor() })
    .plan!;
  assert.deepEqual(plan.hooks.map((h) => h.point), [
    "session-end",
    "post-apply",
  ]);
  const [first, second] = plan.hooks;
  const provider = plan.providers[0]!;
  assert.ok(
    first!.position < provider.position && provider.position < second!.position,
  );
});

Deno.test("compile() accepts constant expressions wherever values are evaluated", () => {
  const r = compileText(
    'agent_profile "default" {\n  max_turns = 60 * 2\n  max_cost_usd = 1 + 0.5\n  tools = [for p in ["fs"] : "${p}.*"]\n  max_depth = true ? 1 : 2\n}\n',
  );
  assert.deepEqual(errorCodes(r.diagnostics), ["E_UNKNOWN_PROVIDER"]);
  const ok = compileText(
    'agent_profile "default" {\n  max_turns = 60 * 2\n  max_cost_usd = 1 + 0.5\n}\n',
  );
  assert.deepEqual(ok.plan?.profiles[0]?.bounds, {
    maxTurns: 120,
    maxCostUsd: 1.5,
  });
});

Deno.test("explainPlan() shows effective tools, Deno flags and policy outcomes per tool", () => {
  const text = FS_REQ + FS_GRANT +
    'policy "reads_ok" {\n  match = { kind = "data_source" }\n  action = "allow"\n}\n' +
    'policy "writes_ask_read" {\n  match = { tool_name = "write_file" }\n  action = "deny"\n}\n' +
    'agent_profile "default" {\n  tools = ["fs.*"]\n}\n';
  const plan = compileText(text, { artifacts: { "./fs": FS }, lock: lockFor() })
    .plan!;
  const report = explainPlan(plan, ["SDK_VAR"]);
  const fs = report.profiles[0]!.providers[0]!;
  assert.deepEqual(fs.tools, ["read_file", "write_file"]);
  assert.deepEqual(fs.outcomes.map((o) => [o.tool, o.action, o.decidedBy]), [
    ["read_file", "allow", "reads_ok"],
    ["write_file", "deny", "writes_ask_read"],
  ]);
  assert.deepEqual(fs.denoFlags, [
    "--allow-env=<sdk env>,FS_ROOT",
    "--allow-read=<socket dir>,./docs",
    "--allow-write=<socket dir>,./out",
    "--allow-net=unix:<socket dir>/plugin.sock,unix:<socket dir>/kernel.sock",
  ]);
  const text2 = formatExplain(report);
  assert.match(
    text2,
    /write_file, resource, moderate: deny {2}\[policy "writes_ask_read"\]/,
  );
  assert.match(text2, /<sdk env> stands for the 1 variables .*: SDK_VAR\./);
});

Deno.test("explainPlan() shows the allow_subscribe grant and its session scope", () => {
  const grant = FS_GRANT.replace(
    /\}\s*$/,
    '  allow_subscribe = ["kernel.event.*", "kernel.event.message@all"]\n}\n',
  );
  const plan = compileText(
    FS_REQ + grant + 'agent_profile "default" {\n  tools = ["fs.*"]\n}\n',
    { artifacts: { "./fs": FS }, lock: lockFor() },
  ).plan!;
  const fs = explainPlan(plan, []).profiles[0]!.providers[0]!;
  assert.deepEqual(fs.subscribe, [
    "kernel.event.*",
    "kernel.event.message@all",
  ]);
  assert.match(
    formatExplain(explainPlan(plan, [])),
    /kernel bus: may subscribe to kernel\.event\.\* \(sessions it takes part in\), kernel\.event\.message \(every session\)/,
  );
});

Deno.test("compile() refuses an allow_subscribe entry outside kernel.*, naming it", () => {
  const grant = FS_GRANT.replace(
    /\}\s*$/,
    '  allow_subscribe = ["kernel.event.*", "*"]\n}\n',
  );
  const r = compileText(FS_REQ + grant, {
    artifacts: { "./fs": FS },
    lock: lockFor(),
  });
  assert.equal(r.plan, undefined);
  const d = r.diagnostics.find((d) => d.code === "E_INVALID_VALUE");
  assert.match(
    d?.detail ?? "",
    /Entry 2 of "allow_subscribe" in provider "fs" is "\*"/,
  );
});

Deno.test("compile() warns that a builtin/lsp provider without a post-tool-call hook has no effect", () => {
  const lsp = artifact({ name: "lsp", category: "context" });
  const text = (hook: string) =>
    `required_providers {\n  lsp = { source = "builtin/lsp", version = "~> 1.0" }\n}\n${hook}`;
  const bare = compileText(text(""), { artifacts: { "builtin/lsp": lsp } });
  const w = bare.diagnostics.find((x) => x.code === "W_NO_EFFECT");
  assert.match(
    w?.summary ?? "",
    /Provider "lsp" \(builtin\/lsp\) has no effect/,
  );
  const hooked = compileText(
    text(
      'hook "post-tool-call" {\n  provider = "lsp"\n  mode = "observe"\n}\n',
    ),
    { artifacts: { "builtin/lsp": lsp } },
  );
  assert.equal(hooked.diagnostics.some((x) => x.code === "W_NO_EFFECT"), false);
});

Deno.test("compile(): the global config's state block applies unless agent.hcl has one, which wins even when it says sqlite", () => {
  const global =
    'state {\n  backend = "postgres"\n  url     = env("TEAM_DB")\n}\n';
  const plain = compileText("", { global });
  assert.deepEqual(codes(plain.diagnostics), []);
  assert.deepEqual(plain.plan?.state, {
    backend: "postgres",
    urlEnv: "TEAM_DB",
    schema: "agent",
  });
  const own = compileText(
    'state {\n  backend = "postgres"\n  url     = env("PROJECT_DB")\n  schema  = "proj"\n}\n',
    { global },
  );
  assert.deepEqual(own.plan?.state, {
    backend: "postgres",
    urlEnv: "PROJECT_DB",
    schema: "proj",
  });
  const local = compileText('state {\n  backend = "sqlite"\n}\n', { global });
  assert.equal(local.plan?.state, undefined, "sqlite, the default");
  const none = compileText("", {});
  assert.equal(none.plan?.state, undefined);
});
