/**
 * Conformance rows of config.md §8 that the compiler decides (the parser,
 * the block decoder, the provider bridge, the global config and the lock
 * file). One `Deno.test` per row, named after it; `conformance_test.ts`
 * holds the rows the pure policy, profile and constraint modules decide.
 * Row 48 (a denial synthesises a tool_result) is kernel work.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import {
  artifact,
  codes,
  COMPILE_FIXTURES,
  compileText,
  errorCodes,
  FIXTURE_ENV,
  FIXTURE_NOW,
  FIXTURE_PLATFORM,
  SUM_A,
  tempProject,
} from "./_compile_testing.ts";
import { compile } from "./compile.ts";
import { checkCapabilities } from "./check_capabilities.ts";
import { checksumsEqual, DENO_PLATFORMS } from "./checksum.ts";
import { checkConfig, exitCodeFor } from "./check.ts";
import { classifySource } from "./decode.ts";
import { decodeGlobalConfig, selectMirror } from "./global_config.ts";
import { loadConfigInputs } from "./files.ts";
import { lockConfig } from "./lock.ts";
import { formatLockFile, parseLockFile } from "./lock_file.ts";
import { decidePolicy } from "../contract/policy_log.ts";
import { planToJson, revealProviderConfig } from "./plan.ts";
import { run } from "../cli/commands/check_config.ts";
import { Secret } from "./hcl/mod.ts";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const KV_DIR = join(COMPILE_FIXTURES, "_plugins", "kv");
const CTX_DIR = join(COMPILE_FIXTURES, "_plugins", "ctx");

/** A tool plugin with a small schema, declared in memory. */
const API = artifact({
  name: "api",
  config_schema: [
    { name: "api_key", type: "string", sensitive: true, required: true },
    { name: "base_url", type: "string", default: "https://api.example" },
    { name: "timeout_s", type: "number" },
    {
      name: "auth",
      type: "object",
      attributes: [
        { name: "user", type: "string", required: true },
        { name: "password", type: "string", sensitive: true },
      ],
    },
  ],
});

/** The errors of a result, in order. */
function errors(r: { diagnostics: readonly Diagnostic[] }): Diagnostic[] {
  return r.diagnostics.filter((d) => d.severity === "error");
}

function apiConfig(body: string): string {
  return `required_providers {
  api = { source = "./plugins/api", version = "1.0.0" }
}

provider "api" {
${body}
}
`;
}

function compileApi(body: string, env: Record<string, string> = {}) {
  return compileText(apiConfig(body), {
    artifacts: { "./plugins/api": API },
    env,
  });
}

const LOCK_PREFIX = "lock_file_version = 1\n";
const SUM_B = `sha256:${"b".repeat(64)}`;

function lockEntry(name: string, fields: string): string {
  return `\nprovider "${name}" {\n${fields}\n}\n`;
}

// --- §8.1 -------------------------------------------------------------------

Deno.test("§8.1 row 1: the project config is a single agent.hcl at the project root", async () => {
  const dir = await tempProject({
    "agent.hcl":
      'policy "a" {\n  match  = { tool_name = "x" }\n  action = "deny"\n}\n',
    "more.hcl":
      'policy "b" {\n  match  = { tool_name = "y" }\n  action = "deny"\n}\n',
    "sub/agent.hcl": "this is not read {",
  });
  try {
    const r = await checkConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
    });
    assert.equal(r.exitCode, 0);
    assert.deepEqual(r.plan?.policies.map((p) => p.name), ["a"]);
    assert.deepEqual(codes(r.diagnostics), ["W_EXTRA_HCL"]);
    await Deno.remove(join(dir, "agent.hcl"));
    const missing = await checkConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
    });
    assert.deepEqual(errorCodes(missing.diagnostics), ["E_NO_CONFIG"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("§8.1 row 2: the global config never contains provider auth", () => {
  const r = decodeGlobalConfig(
    'provider "claude" {\n  api_key = env("KEY")\n}\ncredentials = "x"\n',
    "config.hcl",
    { KEY: "k" },
  );
  assert.equal(r.config, undefined);
  assert.deepEqual(codes(r.diagnostics), ["E_UNKNOWN_BLOCK", "E_UNKNOWN_ATTR"]);
  assert.match(
    r.diagnostics[0]!.detail!,
    /belongs in the project's agent\.hcl/,
  );
  // dev_overrides values are plain paths: env() is not allowed there.
  const dev = decodeGlobalConfig(
    'dev_overrides {\n  fs = env("P")\n}\n',
    "config.hcl",
    { P: "/x" },
  );
  assert.deepEqual(codes(dev.diagnostics), ["E_FUNCTION_NOT_ALLOWED"]);
});

Deno.test("§8.1 row 3: agent.hcl top-level blocks are only the six", () => {
  const six = [
    "required_providers {\n}",
    'provider "p" {\n}',
    'policy "x" {\n  match  = { tool_name = "t" }\n  action = "deny"\n}',
    'agent_profile "default" {\n}',
    'hook "post-apply" {\n  provider = "p"\n  mode     = "observe"\n}',
    "settings {\n}",
  ].join("\n");
  const ok = compileText(
    six.replace(
      "required_providers {\n}",
      'required_providers {\n  p = { source = "./p", version = "1.0.0" }\n}',
    ),
    { artifacts: { "./p": artifact({ name: "p" }) } },
  );
  assert.deepEqual(errorCodes(ok.diagnostics), []);
  for (
    const other of [
      "locals {\n}",
      'variable "x" {\n}',
      'module "m" {\n}',
      "terraform {\n}",
    ]
  ) {
    const r = compileText(other + "\n");
    assert.deepEqual(errorCodes(r.diagnostics), ["E_UNKNOWN_BLOCK"], other);
  }
});

Deno.test("§8.1 row 4: provider blocks are decoded through the schema bridge driven by the plugin's config schema", () => {
  const r = compileApi(
    '  api_key   = env("API_KEY")\n  timeout_s = "30"\n  auth = {\n    user = 7\n  }',
    { API_KEY: "sk-row4" },
  );
  assert.deepEqual(errorCodes(r.diagnostics), []);
  const p = r.plan!.providers[0]!;
  // Conversions ("30" → 30, 7 → "7"), a default, a zero value, nested defaults.
  assert.deepEqual(revealProviderConfig(p), {
    api_key: "sk-row4",
    base_url: "https://api.example",
    timeout_s: 30,
    auth: { user: "7", password: "" },
  });
  // The schema is closed: an attribute it does not declare is an error.
  const bad = compileApi('  api_key = env("API_KEY")\n  base_ur = "x"', {
    API_KEY: "k",
  });
  assert.deepEqual(errorCodes(bad.diagnostics), ["E_UNKNOWN_ATTR"]);
  assert.match(errors(bad)[0]!.detail!, /Did you mean "base_url"\?/);
});

Deno.test('§8.1 row 5: a sensitive attribute rejects any expression other than env("LITERAL"), literals included', () => {
  const rejected = [
    '"sk-live-123"',
    '"${env("TOKEN")}"',
    '"${env("TOKEN")}-x"',
    "env(token_name)",
    'env("A", "B")',
    "env()",
    'coalesce(env("T"), "x")',
    "42",
    "true",
    '(env("TOKEN"))',
  ];
  for (const expr of rejected) {
    const r = compileApi(`  api_key = ${expr}`, { TOKEN: "t", T: "t", A: "a" });
    assert.deepEqual(errorCodes(r.diagnostics), ["E_SECRET_SHAPE"], expr);
    assert.equal(errors(r)[0]!.redactSource, true, expr);
  }
  assert.deepEqual(
    errorCodes(
      compileApi('  api_key = env("TOKEN")', { TOKEN: "t" }).diagnostics,
    ),
    [],
  );
});

Deno.test("§8.1 row 6: env() fails config load immediately when its variable is unset", () => {
  const r = compileApi(
    '  api_key  = env("ROW6_UNSET")\n  base_url = env("ROW6_EMPTY")',
    { ROW6_EMPTY: "" },
  );
  assert.equal(r.plan, undefined);
  assert.deepEqual(errorCodes(r.diagnostics), ["E_ENV_UNSET"]);
  assert.match(errors(r)[0]!.summary, /"ROW6_UNSET"/);
  assert.match(errors(r)[0]!.detail!, /attribute "api_key" of provider "api"/);
  assert.equal(errors(r)[0]!.range?.start.line, 6);
});

Deno.test("§8.1 row 7 (forge half): source is a forge address (github.com/<owner>/<repo>, gitlab.com/<group>/<project>)", () => {
  const cases: [string, string | undefined][] = [
    ["github.com/example-org/provider-claude", "forge"],
    ["gitlab.com/tools-team/provider-fs", "forge"],
    ["gitlab.com/group/subgroup/provider", "forge"],
    ["github.com/acme", undefined],
    ["github.com/a/b/c", undefined],
    ["https://github.com/acme/x", undefined],
    ["bitbucket.org/acme/x", undefined],
    ["example.com/acme/x", undefined],
    ["builtin/echo", "builtin"],
    ["./plugins/x", "path"],
    ["/abs/plugin", "path"],
  ];
  for (const [source, kind] of cases) {
    assert.equal(classifySource(source), kind, source);
  }
  const r = compileText(
    'required_providers {\n  x = { source = "github.com/acme", version = "1.0.0" }\n}\n',
  );
  assert.deepEqual(errorCodes(r.diagnostics), ["E_INVALID_SOURCE"]);
});

Deno.test("§8.1 row 8: token_budget is the reserved per-provider cap of context and memory providers", () => {
  const ctx = artifact({
    name: "readme",
    category: "context",
    config_schema: [{ name: "token_budget", type: "number" }],
  });
  const text = (name: string) =>
    `required_providers {\n  ${name} = { source = "./p", version = "1.0.0" }\n}\nprovider "${name}" {\n  token_budget = 3000\n}\n`;
  const ok = compileText(text("readme"), { artifacts: { "./p": ctx } });
  assert.equal(ok.plan?.providers[0]?.tokenBudget, 3000);
  // A provider whose schema does not declare it cannot set it.
  const tool = compileText(text("fs"), {
    artifacts: { "./p": artifact({ name: "fs" }) },
  });
  assert.deepEqual(errorCodes(tool.diagnostics), ["E_UNKNOWN_ATTR"]);
  assert.match(
    errors(tool)[0]!.detail!,
    /token_budget can only be set when the provider's schema declares it/,
  );
  // The reserved name must be a number in any schema.
  const wrong = compileText(text("readme"), {
    artifacts: {
      "./p": artifact({
        name: "readme",
        config_schema: [{ name: "token_budget", type: "string" }],
      }),
    },
  });
  assert.deepEqual(errorCodes(wrong.diagnostics), ["E_SCHEMA_INVALID"]);
});

Deno.test("§8.1 row 12: a downgraded ask on a data_source/interactive call is logged as a warning naming the rule and the call kind", async () => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { capture: (r) => records.push(r) },
    loggers: [
      {
        category: ["ph-agent", "policy"],
        lowestLevel: "debug",
        sinks: ["capture"],
      },
      { category: ["logtape", "meta"], lowestLevel: "error", sinks: [] },
    ],
    reset: true,
  });
  try {
    const rules = [{
      name: "ask_reads",
      match: { kind: "data_source" as const },
      action: "ask" as const,
    }];
    const d = decidePolicy(rules, {
      kind: "data_source",
      provider: "grep",
      toolName: "search",
      risk: "read_only",
    });
    assert.deepEqual(d, {
      action: "deny",
      decidedBy: "ask_reads",
      downgraded: true,
    });
    assert.equal(records.length, 1);
    assert.equal(records[0]!.level, "warning");
    assert.equal(records[0]!.properties.rule, "ask_reads");
    assert.equal(records[0]!.properties.kind, "data_source");
    // A plain decision logs nothing.
    decidePolicy(rules, {
      kind: "resource",
      provider: "fs",
      toolName: "w",
      risk: "low",
    });
    assert.equal(records.length, 1);
  } finally {
    await reset();
  }
});

Deno.test("§8.1 row 14: model routing is a structured model{} block with one primary and ordered fallbacks", () => {
  const models = artifact({ name: "llm", category: "model" });
  const base = (model: string) =>
    `required_providers {\n  llm = { source = "./llm", version = "1.0.0" }\n}\nagent_profile "default" {\n${model}\n}\n`;
  const ok = compileText(
    base(
      '  model {\n    primary {\n      provider = "llm"\n      id       = "large"\n    }\n    fallback {\n      provider = "llm"\n      id       = "medium"\n    }\n    fallback {\n      provider = "llm"\n      id       = "small"\n    }\n  }',
    ),
    { artifacts: { "./llm": models } },
  );
  assert.deepEqual(errorCodes(ok.diagnostics), []);
  const m = ok.plan!.profiles[0]!.model!;
  assert.deepEqual([m.primary.id, ...m.fallbacks.map((f) => f.id)], [
    "large",
    "medium",
    "small",
  ]);
  const bad: [string, string[]][] = [
    ['  model = "llm/large"', ["E_UNKNOWN_ATTR"]], // no string shorthand
    [
      '  model {\n    fallback {\n      provider = "llm"\n      id       = "x"\n    }\n  }',
      ["E_MISSING_FIELD"],
    ],
    [
      '  model {\n    primary {\n      provider = "llm"\n      id       = "a"\n    }\n    primary {\n      provider = "llm"\n      id       = "b"\n    }\n  }',
      ["E_DUPLICATE_BLOCK"],
    ],
    ['  model {\n    primary {\n      provider = "llm"\n    }\n  }', [
      "E_MISSING_ATTR",
    ]],
    ['  model {\n    primary { provider = "llm", id = "x" }\n  }', [
      "E_SYNTAX",
    ]],
    [
      '  model {\n    primary {\n      provider = "llm"\n      id       = "a"\n    }\n  }\n  model {\n    primary {\n      provider = "llm"\n      id       = "b"\n    }\n  }',
      ["E_DUPLICATE_BLOCK"],
    ],
  ];
  for (const [model, want] of bad) {
    const r = compileText(base(model), { artifacts: { "./llm": models } });
    assert.deepEqual(errorCodes(r.diagnostics), want, model);
  }
});

Deno.test("§8.1 row 19: loop bounds are agent_profile fields; there is no session block", () => {
  const r = compileText("session {\n  max_turns = 10\n}\n");
  assert.deepEqual(errorCodes(r.diagnostics), ["E_UNKNOWN_BLOCK"]);
  assert.match(
    r.diagnostics[0]!.detail!,
    /attributes of an agent_profile block/,
  );
  const ok = compileText(
    'agent_profile "default" {\n  max_turns = 10\n  max_cost_usd = 1.5\n  max_wall_clock_s = 60\n  max_depth = 0\n  max_concurrent_subagents = 2\n}\n',
  );
  assert.deepEqual(ok.plan?.profiles[0]?.bounds, {
    maxTurns: 10,
    maxCostUsd: 1.5,
    maxWallClockS: 60,
    maxDepth: 0,
    maxConcurrentSubagents: 2,
  });
});

Deno.test("§8.1 row 21: a settings{} block exists, and retry{} has canonical defaults that can be overridden", () => {
  const defaults = compileText("settings {\n}\n").plan!.settings;
  assert.deepEqual(defaults.retry, {
    baseDelayMs: 500,
    backoffFactor: 2,
    maxRetries: 5,
  });
  const set = compileText(
    "settings {\n  retry {\n    base_delay_ms  = 250\n    backoff_factor = 1.5\n    max_retries    = 3\n  }\n}\n",
  ).plan!.settings;
  assert.deepEqual(set.retry, {
    baseDelayMs: 250,
    backoffFactor: 1.5,
    maxRetries: 3,
  });
});

Deno.test("§8.1 row 22: observability{} is all-or-nothing once declared (every field but resource_attrs is required)", () => {
  const partial = compileText(
    'settings {\n  observability {\n    endpoint = "c:4317"\n  }\n}\n',
  );
  assert.deepEqual(
    partial.diagnostics.map((d) =>
      d.summary.replace('Missing required argument "', "").replace('"', "")
    ),
    [
      "protocol",
      "sampling_ratio",
      "traces_enabled",
      "metrics_enabled",
      "logs_enabled",
      "export_interval_ms",
      "service_name",
    ],
  );
  const full = compileText(
    'settings {\n  observability {\n    endpoint = "c:4317"\n    protocol = "grpc"\n    sampling_ratio = 0.5\n    traces_enabled = true\n    metrics_enabled = false\n    logs_enabled = true\n    export_interval_ms = 5000\n    service_name = "svc"\n  }\n}\n',
  );
  assert.deepEqual(errorCodes(full.diagnostics), []);
  assert.equal(full.plan!.settings.observability.resourceAttrs, undefined);
  assert.equal(full.plan!.settings.telemetry, true); // presence implies intent
});

Deno.test("§8.1 row 23: the dev_overrides mechanism exists in the global config", () => {
  const g = decodeGlobalConfig(
    'dev_overrides {\n  fs = "/src/provider-fs"\n}\n',
    "config.hcl",
    {},
  );
  assert.deepEqual(g.config?.devOverrides, { fs: "/src/provider-fs" });
});

Deno.test("§8.1 row 24: a registry mirror's auth forbids literal secrets (env() only)", () => {
  const mirror = (auth: string) =>
    `registry_mirror {\n  default = "https://d"\n  mirror {\n    prefix = "github.com/"\n    url    = "https://m"\n    auth   = ${auth}\n  }\n}\n`;
  for (const bad of ['"token-literal"', '"${env("T")}"', "env(t)"]) {
    const r = decodeGlobalConfig(mirror(bad), "config.hcl", { T: "x" });
    assert.deepEqual(codes(r.diagnostics), ["E_SECRET_SHAPE"], bad);
  }
  const ok = decodeGlobalConfig(mirror('env("T")'), "config.hcl", {
    T: "mirror-secret",
  });
  const auth = ok.config!.registryMirror!.mirrors[0]!.auth!;
  assert.ok(auth instanceof Secret);
  assert.equal(auth.reveal(), "mirror-secret");
  assert.equal(String(auth), "(sensitive)");
});

Deno.test("§8.1 row 25: the lock file is kernel-written and its lock_file_version is checked on open", () => {
  const text = formatLockFile({ version: 1, providers: new Map() });
  assert.match(text, /^# This file is maintained by "agent lock"/);
  assert.match(text, /\nlock_file_version = 1\n/);
  assert.deepEqual(parseLockFile(text, "l").diagnostics, []);
  for (const v of ["2", "0", "1.5", '"1"']) {
    const r = parseLockFile(`lock_file_version = ${v}\n`, "l");
    assert.deepEqual(codes(r.diagnostics), ["E_LOCK_VERSION"], v);
  }
  assert.deepEqual(
    codes(parseLockFile('provider "x" {\n}\n', "l").diagnostics),
    ["E_LOCK_VERSION"],
  );
});

Deno.test("§8.1 row 26: lock-file checksums cover every platform the kernel installs for, not only the invoking one", async () => {
  const dir = await tempProject({
    "agent.hcl": `required_providers {\n  readme = { source = ${
      JSON.stringify(CTX_DIR)
    }, version = "0.3.0" }\n}\nprovider "readme" {\n  allow_read = ["."]\n}\n`,
  });
  try {
    const r = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
      now: FIXTURE_NOW,
      dryRun: true,
    });
    assert.ok(r.ok, r.diagnostics.map((d) => d.summary).join("; "));
    const entry = parseLockFile(r.text!, "l").lock!.providers.get("readme")!;
    assert.deepEqual(Object.keys(entry.checksums), [...DENO_PLATFORMS]);
    assert.equal(new Set(Object.values(entry.checksums)).size, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("§8.1 row 27: the checksum is re-verified on every check, not only when first locked", async () => {
  const plugin = await tempProject({
    "plugin.json": JSON.stringify({
      name: "p",
      version: "1.0.0",
      category: "tool",
      protocol_version: 1,
      runtime: "deno",
      entrypoint: "main.ts",
    }),
    "main.ts": 'import "./lib.ts";\n',
    "lib.ts": "export const x = 1;\n",
  });
  const dir = await tempProject({
    "agent.hcl": `required_providers {\n  p = { source = ${
      JSON.stringify(plugin)
    }, version = "1.0.0" }\n}\n`,
  });
  try {
    assert.ok(
      (await lockConfig(dir, { builtins: BUILTINS, globalConfig: null })).ok,
    );
    const first = await checkConfig(dir, {
      builtins: BUILTINS,
      locked: true,
      globalConfig: null,
    });
    assert.equal(first.exitCode, 0);
    // A module the entrypoint imports changes: the next check notices.
    await Deno.writeTextFile(join(plugin, "lib.ts"), "export const x = 2;\n");
    const second = await checkConfig(dir, {
      builtins: BUILTINS,
      locked: true,
      globalConfig: null,
    });
    assert.deepEqual(errorCodes(second.diagnostics), ["E_CHECKSUM_MISMATCH"]);
    assert.equal(second.exitCode, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(plugin, { recursive: true });
  }
});

// --- §8.2 -------------------------------------------------------------------

Deno.test("§8.2 row 28: an unrecognised top-level block is a decode-time error, never silently ignored", () => {
  const r = compileText('polcy "x" {\n  match  = {}\n  action = "deny"\n}\n');
  assert.equal(r.plan, undefined);
  assert.deepEqual(errorCodes(r.diagnostics), ["E_UNKNOWN_BLOCK"]);
  assert.equal(r.diagnostics[0]!.detail, 'Did you mean "policy"?');
});

Deno.test("§8.2 row 29: each required_providers value is an object or map carrying source and version", () => {
  const cases: [string, string[]][] = [
    ['x = "github.com/a/b"', ["E_INVALID_VALUE"]],
    ['x = { source = "github.com/a/b" }', ["E_MISSING_FIELD"]],
    ['x = { version = "1.0.0" }', ["E_MISSING_FIELD"]],
    ['x = { source = "github.com/a/b", version = "1.0.0", extra = 1 }', [
      "E_UNKNOWN_ATTR",
    ]],
  ];
  for (const [entry, want] of cases) {
    const r = compileText(`required_providers {\n  ${entry}\n}\n`);
    assert.deepEqual(errorCodes(r.diagnostics), want, entry);
  }
  // A map built by an expression is accepted too.
  const r = compileText(
    'required_providers {\n  x = { for k, v in { source = "github.com/a/b", version = "1.0.0" } : k => v }\n}\n',
    {
      lock: LOCK_PREFIX +
        lockEntry(
          "x",
          `  source = "github.com/a/b"\n  version = "1.0.0"\n  resolved_at = "2026-01-01T00:00:00Z"\n  checksums = { "linux_amd64" = "${SUM_A}" }`,
        ),
    },
  );
  assert.deepEqual(errorCodes(r.diagnostics), []);
});

Deno.test("§8.2 row 30: a block with more than one attribute must be multi-line; the one-line form is a parse error", () => {
  const r = compileText(
    'agent_profile "default" {\n  model {\n    primary { provider = "x", id = "y" }\n  }\n}\n',
  );
  assert.deepEqual(errorCodes(r.diagnostics), ["E_SYNTAX"]);
  assert.equal(r.diagnostics[0]!.range?.start.line, 3);
  // An object expression on one line is fine.
  const ok = compileText(
    'policy "p" {\n  match = { provider = "fs", kind = "resource" }\n  action = "ask"\n}\n',
  );
  assert.deepEqual(errorCodes(ok.diagnostics), []);
});

function schemaErrors(schema: unknown[]): string[] {
  const text =
    'required_providers {\n  p = { source = "./p", version = "1.0.0" }\n}\n';
  const a = artifact({ name: "p" });
  a.manifest!.configSchema = schema as never;
  return compileText(text, { artifacts: { "./p": a } }).diagnostics
    .filter((d) => d.code === "E_SCHEMA_INVALID").map((d) => d.detail!);
}

Deno.test("§8.2 row 31: object_attributes is non-empty iff the attribute type is object", () => {
  const base = { required: false, sensitive: false, description: "" };
  assert.equal(
    schemaErrors([{ ...base, name: "o", type: "object", objectAttributes: [] }])
      .length,
    1,
  );
  assert.equal(
    schemaErrors([{
      ...base,
      name: "s",
      type: "string",
      objectAttributes: [{
        ...base,
        name: "x",
        type: "string",
        objectAttributes: [],
      }],
    }]).length,
    1,
  );
  assert.equal(
    schemaErrors([{
      ...base,
      name: "o",
      type: "object",
      objectAttributes: [{
        ...base,
        name: "x",
        type: "string",
        objectAttributes: [],
      }],
    }]).length,
    0,
  );
});

Deno.test("§8.2 row 32: default_json that is not JSON, or whose shape mismatches the type, is a load-time error", () => {
  const base = {
    required: false,
    sensitive: false,
    description: "",
    objectAttributes: [],
  };
  const cases: [string, string, boolean][] = [
    ["number", "{not json", false],
    ["number", '"thirty"', false],
    ["list(number)", "[1, 2]", true],
    ["list(string)", '["a", 2]', false],
    ["map(string)", '{"a": "b"}', true],
    ["map(string)", '{"a": 1}', false],
    ["bool", "true", true],
  ];
  for (const [type, json, ok] of cases) {
    assert.equal(
      schemaErrors([{ ...base, name: "a", type, defaultJson: json }]).length ===
        0,
      ok,
      `${type} ${json}`,
    );
  }
  // Objects: only declared keys, each matching.
  const obj = (json: string) =>
    schemaErrors([{
      ...base,
      name: "o",
      type: "object",
      defaultJson: json,
      objectAttributes: [{ ...base, name: "n", type: "number" }],
    }]);
  assert.equal(obj('{"n": 1}').length, 0);
  assert.equal(obj('{"m": 1}').length, 1);
  assert.equal(obj('{"n": "1"}').length, 1);
});

Deno.test("§8.2 row 33: default_json is forbidden on a sensitive attribute", () => {
  const [detail] = schemaErrors([
    {
      name: "key",
      type: "string",
      required: false,
      sensitive: true,
      description: "",
      objectAttributes: [],
      defaultJson: '"sk"',
    },
  ]);
  assert.match(detail!, /a sensitive attribute cannot have a default/);
});

Deno.test("§8.2 row 34: sensitive-shape and env() rules apply identically to attributes nested in object attributes", () => {
  const literal = compileApi(
    '  api_key = env("K")\n  auth = {\n    user     = "me"\n    password = "hunter2"\n  }',
    { K: "k" },
  );
  assert.deepEqual(errorCodes(literal.diagnostics), ["E_SECRET_SHAPE"]);
  assert.equal(errors(literal)[0]!.range?.start.line, 9);
  const notConstructor = compileApi(
    '  api_key = env("K")\n  auth = true ? { user = "me", password = env("P") } : null',
    { K: "k", P: "p" },
  );
  assert.deepEqual(errorCodes(notConstructor.diagnostics), ["E_SECRET_SHAPE"]);
  const unset = compileApi(
    '  api_key = env("K")\n  auth = {\n    user     = "me"\n    password = env("ROW34_UNSET")\n  }',
    { K: "k" },
  );
  assert.deepEqual(errorCodes(unset.diagnostics), ["E_ENV_UNSET"]);
  const ok = compileApi(
    '  api_key = env("K")\n  auth = {\n    user     = "me"\n    password = env("P")\n  }',
    { K: "k", P: "p" },
  );
  const auth = ok.plan!.providers[0]!.config.auth as Record<string, unknown>;
  assert.ok(auth.password instanceof Secret);
});

Deno.test("§8.2 row 35: the sensitive check runs on the unevaluated syntax, in a pass before any evaluation", () => {
  // A template around an unset variable: only the shape error, no E_ENV_UNSET.
  const r = compileApi('  api_key = "${env("ROW35_UNSET")}"');
  assert.deepEqual(codes(r.diagnostics), ["W_LOCK_MISSING", "E_SECRET_SHAPE"]);
  // The shape pass sees every attribute before any is evaluated.
  const both = compileApi(
    '  timeout_s = env("ROW35_UNSET_2")\n  api_key   = "literal"',
  );
  assert.deepEqual(errorCodes(both.diagnostics), [
    "E_SECRET_SHAPE",
    "E_ENV_UNSET",
  ]);
});

Deno.test("§8.2 row 36: env()'s argument must be a string literal (a reference argument is rejected)", () => {
  for (const arg of ["token_name", "var.token", '"A${"B"}"']) {
    const r = compileApi(`  api_key = env(${arg})`);
    assert.deepEqual(errorCodes(r.diagnostics), ["E_SECRET_SHAPE"], arg);
  }
});

Deno.test("§8.2 row 37: missing required fields and unresolvable env() are structured errors at configure (load) time", () => {
  const missing = compileApi('  base_url = "https://x"');
  assert.deepEqual(errorCodes(missing.diagnostics), ["E_MISSING_ATTR"]);
  const unset = compileApi('  api_key = env("ROW37_UNSET")');
  for (const d of [errors(missing)[0]!, errors(unset)[0]!]) {
    assert.equal(d.severity, "error");
    assert.ok(
      d.range && d.range.file === "agent.hcl" && d.range.start.line > 0,
    );
    assert.ok(d.summary && d.detail);
  }
  assert.equal(errors(unset)[0]!.code, "E_ENV_UNSET");
});

Deno.test("§8.2 row 38: sensitive values never reach the plan JSON, diagnostics, rendering or logs", () => {
  const secret = "sk-row38-Xj4kQ9-distinctive";
  const r = compileApi(
    '  api_key = env("K")\n  base_url = env("U")\n  auth = {\n    user = env("U")\n    password = env("K")\n  }',
    { K: secret, U: `${secret}-u` },
  );
  const p = r.plan!.providers[0]!;
  const json = JSON.stringify(planToJson(r.plan!));
  assert.ok(!json.includes(secret));
  assert.ok(!Deno.inspect(r.plan, { depth: 20 }).includes(secret));
  assert.ok(!JSON.stringify(r.plan).includes(secret));
  // Only the hand-off to Configure reveals it.
  assert.equal(revealProviderConfig(p).api_key, secret);
  // Wrong types on env() values: the message names types, never the value.
  const typed = compileText(
    'required_providers {\n  api = { source = "./plugins/api", version = "1.0.0" }\n}\nprovider "api" {\n  api_key = env("K")\n  timeout_s = env("K")\n}\n',
    { artifacts: { "./plugins/api": API }, env: { K: secret } },
  );
  assert.deepEqual(errorCodes(typed.diagnostics), ["E_INVALID_VALUE"]);
  assert.ok(!JSON.stringify(typed.diagnostics).includes(secret));
});

Deno.test("§8.2 row 39: the decode and secret-resolution path is not logged; file loads log only the path, at DEBUG", async () => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { capture: (r) => records.push(r) },
    loggers: [
      { category: ["ph-agent"], lowestLevel: "trace", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "error", sinks: [] },
    ],
    reset: true,
  });
  try {
    const dir = join(COMPILE_FIXTURES, "valid", "full");
    const inputs = await loadConfigInputs(dir, {
      builtins: BUILTINS,
      env: FIXTURE_ENV,
      globalConfig: null,
    });
    const loads = records.length;
    assert.ok(
      loads >= 3,
      "agent.hcl, the lock file and the manifests are logged",
    );
    for (const r of records) {
      assert.equal(r.level, "debug");
      assert.deepEqual(Object.keys(r.properties), ["path"]);
      assert.equal(typeof r.properties.path, "string");
    }
    compile(inputs, { platform: FIXTURE_PLATFORM });
    assert.equal(records.length, loads, "compile() logs nothing");
    const text = JSON.stringify(records.map((r) => [r.message, r.properties]));
    for (const v of Object.values(FIXTURE_ENV)) assert.ok(!text.includes(v));
  } finally {
    await reset();
  }
});

Deno.test("§8.2 row 40: log_level accepts all six levels including fatal", () => {
  for (const level of ["trace", "debug", "info", "warn", "error", "fatal"]) {
    const r = compileText(`settings {\n  log_level = "${level}"\n}\n`);
    assert.equal(r.plan?.settings.logLevel, level);
  }
  assert.deepEqual(
    errorCodes(
      compileText('settings {\n  log_level = "warning"\n}\n').diagnostics,
    ),
    ["E_INVALID_VALUE"],
  );
});

Deno.test("§8.2 row 41: telemetry = false means a discarding backend and no exporter, whatever observability{} says", () => {
  const r = compileText(
    'settings {\n  telemetry = false\n  observability {\n    endpoint = "c:4317"\n    protocol = "grpc"\n    sampling_ratio = 1\n    traces_enabled = true\n    metrics_enabled = true\n    logs_enabled = true\n    export_interval_ms = 1000\n    service_name = "s"\n  }\n}\n',
  );
  const s = r.plan!.settings;
  assert.equal(s.telemetry, false);
  assert.equal(s.observabilityDeclared, true);
  assert.equal(compileText("settings {\n}\n").plan!.settings.telemetry, false);
});

Deno.test("§8.2 row 42: retry{}, observability{} and event_bus{} are defaulted even when settings{} is absent", () => {
  const s = compileText("").plan!.settings;
  assert.deepEqual(s.retry, {
    baseDelayMs: 500,
    backoffFactor: 2,
    maxRetries: 5,
  });
  assert.equal(s.observability.endpoint, "localhost:4317");
  assert.equal(s.observability.serviceName, "pluggableharness-agent");
  assert.equal(s.eventBus.subscribeQueueBound, 1024);
  assert.equal(s.logLevel, "info");
});

Deno.test("§8.2 row 43: retry{} is all-or-nothing once declared", () => {
  const r = compileText("settings {\n  retry {\n    max_retries = 3\n  }\n}\n");
  assert.deepEqual(errorCodes(r.diagnostics), [
    "E_MISSING_ATTR",
    "E_MISSING_ATTR",
  ]);
});

Deno.test("§8.2 row 44: event_bus.subscribe_queue_bound defaults to 1024", () => {
  assert.equal(
    compileText("settings {\n  event_bus {\n  }\n}\n").plan!.settings.eventBus
      .subscribeQueueBound,
    1024,
  );
  assert.equal(
    compileText(
      "settings {\n  event_bus {\n    subscribe_queue_bound = 64\n  }\n}\n",
    ).plan!.settings.eventBus.subscribeQueueBound,
    64,
  );
});

Deno.test("§8.2 row 55: a hook block naming a point absent from the plugin's supported_hook_points is rejected at load time", () => {
  const r = compileText(
    'required_providers {\n  j = { source = "./j", version = "1.0.0" }\n}\nhook "post-apply" {\n  provider = "j"\n  mode     = "observe"\n}\nhook "session-end" {\n  provider = "j"\n  mode     = "observe"\n}\n',
    { artifacts: { "./j": artifact({ name: "journal" }) } },
  );
  const plan = r.plan!;
  const ds = checkCapabilities(
    plan,
    new Map([["j", { hookPoints: ["session-end", "post-apply"] }]]),
  );
  assert.deepEqual(ds, []);
  const [d, ...rest] = checkCapabilities(
    plan,
    new Map([["j", { hookPoints: ["session-end"] }]]),
  );
  assert.equal(rest.length, 0);
  assert.equal(d?.code, "E_HOOK_POINT_UNSUPPORTED");
  assert.equal(d?.severity, "error");
  assert.equal(d?.range?.start.line, 4);
});

Deno.test("§8.2 row 56: with a dev_overrides entry the plugin is used directly, bypassing registry, constraints and the lock file", async () => {
  const dir = await tempProject({
    "agent.hcl":
      'required_providers {\n  kv = { source = "github.com/acme/provider-kv", version = "~> 9.0" }\n}\nprovider "kv" {\n  endpoint = "http://localhost"\n  tls = {\n    server_name = "localhost"\n  }\n  allow_env  = ["KV_REGION"]\n  allow_read = ["./data"]\n  allow_net  = ["kv.example:443"]\n}\n',
    "xdg/agent/config.hcl": `dev_overrides {\n  kv = ${
      JSON.stringify(KV_DIR)
    }\n}\n`,
  });
  try {
    const r = await checkConfig(dir, {
      builtins: BUILTINS,
      locked: true,
      env: { XDG_CONFIG_HOME: join(dir, "xdg") },
    });
    assert.equal(r.exitCode, 0, r.diagnostics.map((d) => d.summary).join("; "));
    assert.deepEqual(codes(r.diagnostics), ["W_DEV_OVERRIDE"]);
    const p = r.plan!.providers[0]!;
    assert.equal(p.devOverride, KV_DIR);
    assert.equal(p.version, "1.4.2"); // not "~> 9.0", and not checked
    assert.equal(p.lock, undefined);
    const locked = await lockConfig(dir, {
      builtins: BUILTINS,
      env: { XDG_CONFIG_HOME: join(dir, "xdg") },
      dryRun: true,
    });
    assert.ok(locked.ok);
    assert.equal(
      parseLockFile(locked.text!, "l").lock!.providers.size,
      0,
      "never locked",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("§8.2 row 57: a mirror without auth is legal; auth is validated only when present", () => {
  const r = decodeGlobalConfig(
    'registry_mirror {\n  default = "https://d"\n  mirror {\n    prefix = "gitlab.com/"\n    url    = "https://m"\n  }\n}\n',
    "config.hcl",
    {},
  );
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.config!.registryMirror!.mirrors[0]!.auth, undefined);
});

Deno.test("§8.2 row 58: mirror selection is longest-prefix-wins, else the default", () => {
  const reg = {
    default: "https://default",
    mirrors: [
      { prefix: "github.com/", url: "https://gh" },
      { prefix: "github.com/acme/", url: "https://acme" },
      { prefix: "github.com/acme/", url: "https://acme-second" },
    ],
  };
  assert.equal(selectMirror(reg, "github.com/acme/x").url, "https://acme"); // tie: first declared
  assert.equal(selectMirror(reg, "github.com/other/x").url, "https://gh");
  assert.equal(selectMirror(reg, "github.com/acme-labs/x").url, "https://gh");
  assert.equal(selectMirror(reg, "gitlab.com/a/b").url, "https://default");
  assert.equal(
    selectMirror(
      { ...reg, mirrors: [...reg.mirrors].reverse() },
      "github.com/acme/x",
    ).url,
    "https://acme-second",
  );
});

Deno.test("§8.2 row 59: lock_file_version is read in an isolated pass before the rest of the file is decoded", () => {
  const future =
    'lock_file_version = 99\nprovider "x" {\n  unknown = { nested = true }\n}\nsignature {}\n';
  assert.deepEqual(codes(parseLockFile(future, "l").diagnostics), [
    "E_LOCK_VERSION",
  ]);
  // The same body at version 1 gets schema errors instead.
  const current = parseLockFile(future.replace("99", "1"), "l");
  assert.ok(!codes(current.diagnostics).includes("E_LOCK_VERSION"));
  assert.ok(codes(current.diagnostics).includes("E_UNKNOWN_BLOCK"));
  // Syntax comes first, even for a file from the future.
  assert.deepEqual(
    codes(parseLockFile("lock_file_version = 2\nprovider {", "l").diagnostics),
    ["E_SYNTAX"],
  );
});

Deno.test("§8.2 row 60: an unknown lock_file_version is a hard error", () => {
  const text =
    'required_providers {\n  x = { source = "github.com/a/b", version = "1.0.0" }\n}\n';
  const r = compileText(text, { lock: "lock_file_version = 2\n" });
  assert.equal(r.plan, undefined);
  assert.deepEqual(errorCodes(r.diagnostics), ["E_LOCK_VERSION"]);
  assert.equal(exitCodeFor(r.diagnostics), 2);
});

Deno.test("§8.2 row 61: a missing platform checksum and a digest mismatch are both verification failures", () => {
  const text =
    'required_providers {\n  p = { source = "./p", version = "1.0.0" }\n}\n';
  const entry = (sums: string) =>
    LOCK_PREFIX +
    lockEntry(
      "p",
      `  source = "./p"\n  version = "1.0.0"\n  resolved_at = "2026-01-01T00:00:00Z"\n  checksums = { ${sums} }`,
    );
  const missing = compileText(text, {
    artifacts: { "./p": artifact({ name: "p" }) },
    lock: entry(`"darwin_arm64" = "${SUM_A}"`),
  });
  assert.deepEqual(errorCodes(missing.diagnostics), ["E_CHECKSUM_MISSING"]);
  const mismatch = compileText(text, {
    artifacts: { "./p": artifact({ name: "p" }) },
    lock: entry(`"linux_amd64" = "${SUM_B}"`),
  });
  assert.deepEqual(errorCodes(mismatch.diagnostics), ["E_CHECKSUM_MISMATCH"]);
  for (const r of [missing, mismatch]) {
    assert.equal(r.plan, undefined);
    assert.equal(exitCodeFor(r.diagnostics), 2);
  }
  const ok = compileText(text, {
    artifacts: { "./p": artifact({ name: "p" }) },
    lock: entry(`"linux_amd64" = "${SUM_A}"`),
  });
  assert.equal(ok.plan?.locked, true);
});

Deno.test("§8.2 row 62: checksum comparison is plain string equality, not constant-time", async () => {
  assert.ok(checksumsEqual(SUM_A, SUM_A));
  assert.ok(!checksumsEqual(SUM_A, SUM_A.toUpperCase()));
  assert.ok(!checksumsEqual(SUM_A, SUM_A + " "));
  const source = await Deno.readTextFile(
    new URL("./checksum.ts", import.meta.url),
  );
  assert.ok(!/timingSafeEqual/.test(source));
  assert.match(source, /return recorded === actual;/);
});

Deno.test("§8.2 row 63: map-shaped attributes (checksums, resource_attrs, required_providers values) accept object and map values", () => {
  const lock = LOCK_PREFIX + lockEntry(
    "x",
    `  source = "github.com/a/b"\n  version = "1.0.0"\n  resolved_at = "2026-01-01T00:00:00Z"\n  checksums = { for p in ["linux_amd64", "darwin_arm64"] : p => "${SUM_A}" }`,
  );
  assert.deepEqual(parseLockFile(lock, "l").diagnostics, []);
  assert.deepEqual(
    Object.keys(parseLockFile(lock, "l").lock!.providers.get("x")!.checksums),
    ["darwin_arm64", "linux_amd64"],
  );
  const obs = (attrs: string) =>
    compileText(
      `settings {\n  observability {\n    endpoint = "c"\n    protocol = "grpc"\n    sampling_ratio = 1\n    traces_enabled = true\n    metrics_enabled = true\n    logs_enabled = true\n    export_interval_ms = 1\n    service_name = "s"\n    resource_attrs = ${attrs}\n  }\n}\n`,
    ).plan!.settings.observability.resourceAttrs;
  assert.deepEqual(obs('{ team = "a" }'), { team: "a" });
  assert.deepEqual(obs('{ for k in ["team"] : k => "a" }'), { team: "a" });
});

Deno.test("check-config: the row-38 secret never appears in any output (human, JSON, explain, lock)", async () => {
  const secret = "sk-cli-leak-check-Vw81Lq";
  const dir = await tempProject({
    "agent.hcl": `required_providers {\n  kv = { source = ${
      JSON.stringify(KV_DIR)
    }, version = "~> 1.4" }\n}\nprovider "kv" {\n  endpoint = env("KV_ENDPOINT")\n  token    = env("KV_TOKEN")\n  timeout_s = env("KV_TOKEN")\n  tls = {\n    server_name = "x"\n    client_key  = env("KV_TOKEN")\n  }\n  allow_env  = ["KV_REGION"]\n  allow_read = ["./data"]\n  allow_net  = ["kv.example:443"]\n}\n`,
  });
  const env = {
    KV_TOKEN: secret,
    KV_ENDPOINT: `https://${secret}.example`,
    HOME: "/nonexistent-home",
  };
  let out = "";
  const io = {
    stdout: (t: string) => (out += t),
    stderr: (t: string) => (out += t),
    isTerminal: false,
    env,
    cwd: dir,
  };
  try {
    for (
      const args of [[], ["--json"], ["--explain"], ["--json", "--explain"]]
    ) {
      await run([".", "--no-cache", ...args], io);
    }
    assert.match(out, /E_INVALID_VALUE/); // timeout_s = env(...) is not a number
    const fixed = (await Deno.readTextFile(join(dir, "agent.hcl"))).replace(
      '  timeout_s = env("KV_TOKEN")\n',
      "",
    );
    await Deno.writeTextFile(join(dir, "agent.hcl"), fixed);
    for (
      const args of [[], ["--json"], ["--explain"], ["--json", "--explain"]]
    ) {
      assert.equal(await run([".", "--no-cache", ...args], io), 0);
    }
    assert.ok(
      (await lockConfig(dir, { builtins: BUILTINS, env, globalConfig: null }))
        .ok,
    );
    out += await Deno.readTextFile(join(dir, ".agent", "agent.lock.hcl"));
    assert.ok(out.includes('"token": "(sensitive)"'));
    assert.ok(!out.includes(secret), "a secret leaked into an output");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
