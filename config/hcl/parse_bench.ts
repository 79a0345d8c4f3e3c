/**
 * Our parser against hcl2json (hashicorp/hcl v2 in WASM), warm, on a
 * realistic agent.hcl (79 lines) and a generated 500-line file; and, with
 * `--allow-run`, process start to parsed for both.
 *
 * Run: `deno bench -A config/hcl/parse_bench.ts`
 *
 * @module
 */

import { parse as hcl2json } from "@cdktf/hcl2json";
import { evaluate, parseHcl } from "./mod.ts";
import type { Body } from "./ast.ts";
import { generateConfig } from "./_testing.ts";

const SMALL_URL = new URL(
  "../testdata/hcl/valid/full_agent.hcl",
  import.meta.url,
);
const SMALL = Deno.readTextFileSync(SMALL_URL);
const LARGE = generateConfig(500);

function evaluateAll(body: Body): void {
  for (const a of body.attributes) {
    evaluate(a.expr, { allowEnv: true, env: () => "x" });
  }
  for (const b of body.blocks) evaluateAll(b.body);
}

for (const [group, text] of [["small", SMALL], ["large", LARGE]] as const) {
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  Deno.bench(`ours: parse ${lines} lines`, { group, baseline: true }, () => {
    parseHcl(text, "agent.hcl");
  });
  Deno.bench(`ours: parse + evaluate ${lines} lines`, { group }, () => {
    evaluateAll(parseHcl(text, "agent.hcl").body);
  });
  Deno.bench(`hcl2json: parse ${lines} lines`, { group }, async () => {
    await hcl2json("agent.hcl", text);
  });
}

/** Process start → file parsed → exit, with the module cache warm. */
async function processRun(code: string): Promise<void> {
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--cached-only", code],
    cwd: new URL("../../", import.meta.url),
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error("child failed");
}

const read = `const t = Deno.readTextFileSync(${
  JSON.stringify(SMALL_URL.pathname)
});`;
const canRun =
  (await Deno.permissions.query({ name: "run" })).state === "granted";
Deno.bench("process: start, read, exit (floor)", {
  group: "process",
  n: 10,
  warmup: 1,
  ignore: !canRun,
}, async () => {
  await processRun(read);
});
Deno.bench("process: start, read, parse with ours, exit", {
  group: "process",
  baseline: true,
  n: 10,
  warmup: 1,
  ignore: !canRun,
}, async () => {
  await processRun(
    `${read} import { parseHcl } from "./config/hcl/mod.ts"; parseHcl(t, "agent.hcl");`,
  );
});
Deno.bench("process: start, read, parse with hcl2json, exit", {
  group: "process",
  n: 10,
  warmup: 1,
  ignore: !canRun,
}, async () => {
  await processRun(
    `${read} import { parse } from "@cdktf/hcl2json"; await parse("agent.hcl", t);`,
  );
});
