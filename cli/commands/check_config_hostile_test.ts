// Hostile configuration input through the real check-config (issue 21,
// defects 9, 10 and 12): each original attack, which crashed, hung or
// replayed a stale result, now gets exit 1 with a parseable --json
// document naming the problem.
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempProject } from "../../config/_compile_testing.ts";
import { MAX_EXPR_DEPTH } from "../../config/hcl/mod.ts";
import { MAX_DIAGNOSTICS } from "../../config/check.ts";
import { run } from "./check_config.ts";
import type { CliIo } from "./io.ts";

function io(
  cwd: string,
  env: Record<string, string> = {},
): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: { HOME: "/nonexistent-home", ...env },
    cwd,
    platform: "linux_amd64",
    out: () => out,
    err: () => err,
  };
}

interface JsonDiag {
  code: string;
  summary: string;
  range?: { start: { line: number } };
}

async function checkJson(
  agentHcl: string,
): Promise<
  { code: number; diagnostics: JsonDiag[]; errorCount: number; text: string }
> {
  const dir = await tempProject({ "agent.hcl": agentHcl });
  try {
    const t = io(dir);
    const code = await run([dir, "--json", "--no-cache"], t);
    const doc = JSON.parse(t.out());
    assert.equal(doc.valid, false);
    assert.equal(t.err(), "");
    return {
      code,
      diagnostics: doc.diagnostics,
      errorCount: doc.error_count,
      text: t.out(),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("defect 9: a 10,000-term expression is E_TOO_DEEP, not a stack overflow", async () => {
  const r = await checkJson(
    `settings {\n  x = ${Array(10_000).fill("1").join(" + ")}\n}\n`,
  );
  assert.equal(r.code, 1);
  const deep = r.diagnostics.find((d) => d.code === "E_TOO_DEEP");
  assert.ok(deep, JSON.stringify(r.diagnostics.slice(0, 3)));
  assert.equal(deep.range?.start.line, 2);
});

Deno.test("defect 9: an expression at the depth bound is still checked normally", async () => {
  const r = await checkJson(
    `settings {\n  x = ${Array(MAX_EXPR_DEPTH - 1).fill("1").join(" + ")}\n}\n`,
  );
  assert.equal(r.code, 1);
  assert.ok(!r.diagnostics.some((d) => d.code === "E_TOO_DEEP"));
  assert.ok(r.diagnostics.some((d) => d.code === "E_UNKNOWN_ATTR"));
});

Deno.test("defect 9: 300 KB of '@' lines counts every invalid character and reports the first 100", async () => {
  const r = await checkJson("@\n".repeat(150_000));
  assert.equal(r.code, 1);
  assert.equal(r.errorCount, 150_000);
  assert.equal(r.diagnostics.length, MAX_DIAGNOSTICS + 1);
  assert.equal(
    r.diagnostics.filter((d) => d.code === "E_SYNTAX").length,
    MAX_DIAGNOSTICS,
  );
  assert.deepEqual(
    r.diagnostics.slice(0, 3).map((d) => d.range?.start.line),
    [1, 2, 3],
  );
  const last = r.diagnostics.at(-1)!;
  assert.equal(last.code, "E_TOO_MANY_DIAGNOSTICS");
  assert.equal(last.summary, "Too many problems: 149,900 errors not shown");
  assert.ok(r.text.length < 100_000, `${r.text.length} characters`);
});

Deno.test("check-config's human output lists the first 100 problems, then the count of the rest and the true totals", async () => {
  const dir = await tempProject({
    "agent.hcl": Array.from(
      { length: 250 },
      (_, i) => `policy "p${i}" {\n  match = {}\n  action = "no"\n}\n`,
    ).join(""),
  });
  try {
    const t = io(dir);
    const code = await run([dir, "--no-cache"], t);
    assert.equal(code, 1);
    const out = t.out();
    const errorLines = out.split("\n").filter((l) => l.startsWith("error["));
    assert.equal(errorLines.length, MAX_DIAGNOSTICS + 1);
    assert.equal(
      errorLines.at(-1),
      "error[E_TOO_MANY_DIAGNOSTICS]: Too many problems: 150 errors not shown",
    );
    assert.match(out, /The configuration is invalid: 250 errors\.\n$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("defect 10: a 256k-line heredoc is parsed in one pass", async () => {
  const lines = Array.from({ length: 256_000 }, (_, i) => `line ${i}`);
  const r = await checkJson(
    `settings {\n  x = <<EOT\n${lines.join("\n")}\nEOT\n}\n`,
  );
  assert.equal(r.code, 1);
  assert.deepEqual(r.diagnostics.map((d) => d.code), ["E_UNKNOWN_ATTR"]);
});

Deno.test("defect 10: a 5 MB unterminated heredoc is one syntax error", async () => {
  const r = await checkJson(
    "settings {\n  x = <<EOT\n" + "abcdefghi\n".repeat(500_000),
  );
  assert.equal(r.code, 1);
  assert.ok(
    r.diagnostics.some((d) => d.summary === "Unterminated template string"),
  );
});

Deno.test("defect 10: template directives nested 100,000 deep are E_TOO_DEEP", async () => {
  const r = await checkJson(
    `settings {\n  x = "${"%{ if true }".repeat(100_000)}"\n}\n`,
  );
  assert.equal(r.code, 1);
  assert.ok(r.diagnostics.some((d) => d.code === "E_TOO_DEEP"));
});

Deno.test("defect 12: creating a path plugin's missing entrypoint invalidates the cached error", async () => {
  const dir = await tempProject({
    "agent.hcl":
      'required_providers {\n  p = { source = "./plugin", version = "1.0.0" }\n}\n',
    "plugin/plugin.json": JSON.stringify({
      name: "p",
      version: "1.0.0",
      category: "tool",
      protocol_version: 1,
      runtime: "deno",
      entrypoint: "main.ts",
    }),
  });
  const env = { XDG_CACHE_HOME: join(dir, ".cache") };
  const codes = async () => {
    const t = io(dir, env);
    await run([dir, "--json"], t);
    return (JSON.parse(t.out()).diagnostics as JsonDiag[]).map((d) => d.code);
  };
  try {
    assert.ok((await codes()).includes("E_PLUGIN_UNAVAILABLE"));
    assert.ok((await codes()).includes("E_PLUGIN_UNAVAILABLE")); // replayed
    await Deno.writeTextFile(join(dir, "plugin", "main.ts"), "export {};\n");
    assert.ok(!(await codes()).includes("E_PLUGIN_UNAVAILABLE"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a provider named like an Object.prototype member is an ordinary name, with or without a dev override", async () => {
  const names = ["toString", "constructor", "__proto__"];
  const dir = await tempProject({
    "agent.hcl": `required_providers {\n${
      names.map((n) =>
        `  ${n} = { source = "builtin/echo", version = "~> 0.1" }\n`
      ).join("")
    }}\n`,
    // A dev override for one of them only; the others must not inherit
    // one from Object.prototype (this crashed with a stack trace).
    "xdg/agent/config.hcl": `dev_overrides {\n  __proto__ = "./none"\n}\n`,
  });
  try {
    const t = io(dir, { XDG_CONFIG_HOME: join(dir, "xdg") });
    const code = await run([dir, "--json", "--no-cache"], t);
    assert.equal(t.err(), "");
    const doc = JSON.parse(t.out());
    const byCode = (c: string) =>
      doc.diagnostics.filter((d: JsonDiag) => d.code === c)
        .map((d: JsonDiag) => d.summary);
    // Only __proto__ has an override, and it is read (and missing).
    assert.deepEqual(byCode("W_DEV_OVERRIDE"), [
      'Provider "__proto__" uses a dev override',
    ]);
    assert.deepEqual(byCode("E_PLUGIN_UNAVAILABLE"), [
      'Cannot read the dev override of provider "__proto__"',
    ]);
    assert.equal(code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
