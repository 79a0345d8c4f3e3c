/**
 * check-config on `slash_commands` (direct-invoke entries) and
 * `settings.default_frontend`, now that both have an effect: unknown
 * provider, wrong category, unknown command and duplicate command names.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  artifact,
  codes,
  compileText,
  errorCodes,
} from "./_compile_testing.ts";

const CMD = (name: string, ...tools: string[]) =>
  artifact({ name, category: "slashcommand", capabilities: {} }, {
    tools: tools.map((t) => ({
      name: t,
      kind: "data_source",
      risk: "read_only",
    })),
  });

const ARTIFACTS = {
  "./a": CMD("a", "help", "cost"),
  "./b": CMD("b", "help", "deploy"),
  "./web": artifact({ name: "web", category: "frontend", capabilities: {} }),
  "./t": artifact({ name: "t", category: "tool", capabilities: {} }),
};

function hcl(slash: string[], frontend?: string): string {
  return `required_providers {
  a   = { source = "./a", version = "~> 1.0" }
  b   = { source = "./b", version = "~> 1.0" }
  web = { source = "./web", version = "~> 1.0" }
  t   = { source = "./t", version = "~> 1.0" }
}
${
    frontend === undefined ? "" : `settings {
  default_frontend = ${JSON.stringify(frontend)}
  log_level        = "info"
  telemetry        = false
}`
  }
agent_profile "default" {
  slash_commands = ${JSON.stringify(slash)}
}
`;
}

function check(slash: string[], frontend?: string) {
  return compileText(hcl(slash, frontend), { artifacts: ARTIFACTS })
    .diagnostics;
}

function firstError(ds: ReturnType<typeof check>) {
  return ds.find((d) => d.severity === "error")!;
}

Deno.test("slash_commands: direct-invoke entries of slash-command providers and prompt-expansion names are accepted", () => {
  assert.deepEqual(
    errorCodes(check(["a.*", "b.deploy", "summarize"], "web")),
    [],
  );
  assert.ok(!codes(check(["a.*"], "web")).includes("W_UNKNOWN_FRONTEND"));
});

Deno.test("slash_commands: an entry naming an undeclared provider is E_UNKNOWN_PROVIDER", () => {
  const ds = check(["nope.*"]);
  assert.deepEqual(errorCodes(ds), ["E_UNKNOWN_PROVIDER"]);
  assert.match(firstError(ds).detail ?? "", /slash_commands entry "nope\.\*"/);
});

Deno.test("slash_commands: a provider that is not a slash-command plugin is E_PROVIDER_CATEGORY", () => {
  const ds = check(["t.*"]);
  assert.deepEqual(errorCodes(ds), ["E_PROVIDER_CATEGORY"]);
  assert.match(firstError(ds).summary, /"t" is not a slash-command provider/);
});

Deno.test("slash_commands: two providers offering one command name in a profile is an error naming both providers", () => {
  const ds = check(["a.*", "b.*"]);
  assert.deepEqual(errorCodes(ds), ["E_SLASH_COMMAND_CONFLICT"]);
  assert.match(firstError(ds).summary, /"\/help" is offered twice/);
  assert.match(firstError(ds).detail ?? "", /provider "a" and provider "b"/);
  // Naming one of them avoids the clash.
  assert.deepEqual(errorCodes(check(["a.*", "b.deploy"])), []);
});

Deno.test("slash_commands: a command its provider does not declare, and a malformed entry, are errors", () => {
  assert.deepEqual(errorCodes(check(["a.deploy"])), [
    "E_SLASH_COMMAND_CONFLICT",
  ]);
  assert.deepEqual(errorCodes(check(["a."])), ["E_SLASH_COMMAND_ENTRY"]);
});

Deno.test("default_frontend: a provider of another category is E_PROVIDER_CATEGORY; an undeclared one is a warning", () => {
  const wrong = check([], "t");
  assert.deepEqual(errorCodes(wrong), ["E_PROVIDER_CATEGORY"]);
  assert.match(firstError(wrong).summary, /"t" is not a frontend/);
  const unknown = check([], "tui");
  assert.deepEqual(errorCodes(unknown), []);
  assert.ok(codes(unknown).includes("W_UNKNOWN_FRONTEND"));
});

Deno.test('default_frontend = "web" names the built-in web UI when no frontend provider "web" is declared, even when "web" is a tool provider', () => {
  const toolWeb = `required_providers {
  web = { source = "./t", version = "~> 1.0" }
}
settings {
  default_frontend = "web"
  log_level        = "info"
  telemetry        = false
}
agent_profile "default" {}
`;
  const ds = compileText(toolWeb, { artifacts: { "./t": ARTIFACTS["./t"] } })
    .diagnostics;
  assert.deepEqual(errorCodes(ds), []);
  assert.ok(!codes(ds).includes("W_UNKNOWN_FRONTEND"));
  // Undeclared: no warning either.
  const bare = compileText(toolWeb.replace(/web = .*\n/, ""), {}).diagnostics;
  assert.deepEqual(errorCodes(bare), []);
  assert.ok(!codes(bare).includes("W_UNKNOWN_FRONTEND"));
});
