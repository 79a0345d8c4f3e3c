/**
 * Compiler benchmarks (the budgets in brackets):
 *
 * - `compile()` of `examples/`, warm, inputs already read [≤ 50 ms], and
 *   the whole `checkConfig("examples")` (reading, two module-graph listings
 *   with `deno info`, compiling);
 * - `compile()` of a generated 500-line `agent.hcl`, warm [≤ 150 ms];
 * - `check-config examples --locked` from process start to exit, cold (an
 *   empty result cache) [≤ 1 s] and cached (unchanged inputs) [≤ 300 ms].
 *
 * Run: `deno bench -A config/compile_bench.ts`
 *
 * @module
 */

import { join } from "node:path";
import { compile } from "./compile.ts";
import { checkConfig } from "./check.ts";
import { loadConfigInputs } from "./files.ts";
import { generateConfig } from "./hcl/_testing.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const REPO = new URL("../", import.meta.url).pathname;
const EXAMPLES = join(REPO, "examples");
const examples = await loadConfigInputs(EXAMPLES, {
  builtins: BUILTINS,
  globalConfig: null,
});
const LARGE = generateConfig(500);
const large = { dir: "/project", agent: { path: "agent.hcl", text: LARGE } };

Deno.bench(
  "compile() examples/ (warm)",
  { group: "compile", baseline: true },
  () => {
    compile(examples);
  },
);

Deno.bench(
  `compile() a generated ${LARGE.split("\n").length}-line agent.hcl (warm)`,
  { group: "compile" },
  () => {
    compile(large);
  },
);

Deno.bench("checkConfig('examples') with I/O and deno info (warm)", {
  group: "compile",
}, async () => {
  await checkConfig(EXAMPLES, {
    builtins: BUILTINS,
    globalConfig: null,
    locked: true,
  });
});

// Deno's own cache must stay where it is when XDG_CACHE_HOME moves.
const denoDir = JSON.parse(
  new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdout: "piped",
    }).output()).stdout,
  ),
).denoDir as string;

async function checkConfigProcess(cache: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli/commands/check_config.ts", "examples", "--locked"],
    cwd: REPO,
    env: { XDG_CACHE_HOME: cache, DENO_DIR: denoDir, NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).output();
  if (out.code !== 0) throw new Error(`check-config exited ${out.code}`);
}

const warmCache = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
await checkConfigProcess(warmCache);

Deno.bench("check-config process, cold (empty result cache)", {
  group: "process",
  baseline: true,
}, async (b) => {
  const cache = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
  b.start();
  await checkConfigProcess(cache);
  b.end();
  await Deno.remove(cache, { recursive: true });
});

Deno.bench("check-config process, cached (unchanged inputs)", {
  group: "process",
}, async () => {
  await checkConfigProcess(warmCache);
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(warmCache, { recursive: true });
});
