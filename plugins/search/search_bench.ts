/**
 * `grep` and `glob` over a generated tree of 10,000 TypeScript files
 * (500 directories, 40 lines each, 104 files holding the needle), through
 * the transport (a real plugin subprocess), against `grep -r` and `find`
 * spawned on the same tree as baselines. `grep` runs twice: on the
 * JavaScript walk alone, and with `rg` walking and naming the candidate
 * files (a second plugin granted `allow_run = ["rg"]`, when `rg` is
 * installed). Target (issue 20): grep within 1.3× of `grep -r`. Run with
 * `deno bench -A plugins/search/search_bench.ts`.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { PluginHost } from "../../kernel/mod.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import { makeTree } from "./_bench_tree.ts";

const FILES = 10_000;
const dir = await Deno.realPath(
  await Deno.makeTempDir({ prefix: "ph-search-bench-" }),
);
globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
makeTree(dir, FILES);

const host = new PluginHost({
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  cwd: dir,
});
const plugin = await host.launch({
  manifest: await readManifest(new URL("./plugin.json", import.meta.url)),
  entrypoint: new URL("./main.ts", import.meta.url).pathname,
  grant: { read: [dir] },
});
const tool = plugin.client(ToolService);
await tool.configure({ config: { roots: [dir] } });
type Tool = typeof tool;

const hasRg = await new Deno.Command("rg", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);
const rgPlugin = hasRg
  ? await host.launch({
    manifest: await readManifest(new URL("./plugin.json", import.meta.url)),
    entrypoint: new URL("./main.ts", import.meta.url).pathname,
    grant: { read: [dir], run: ["rg"] },
  })
  : undefined;
const rgTool = rgPlugin?.client(ToolService);
await rgTool?.configure({ config: { roots: [dir] } });

async function invoke(
  toolName: string,
  args: JsonObject,
  client: Tool = tool,
): Promise<JsonObject> {
  for await (
    const r of client.invoke({
      call: {
        id: "bench",
        toolName,
        arguments: args,
        callContext: { sessionId: "01S", turnId: "01T", workingDirectory: dir },
      },
    })
  ) {
    const e = r.event?.event;
    if (e?.case === "result") return e.value.payload ?? {};
    if (e?.case === "error") throw new Error(e.value.message);
  }
  throw new Error(`${toolName} ended without a result`);
}

async function spawn(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

// The same answers, so that the comparison is fair.
const files = await invoke("grep", { pattern: "needle" });
const baseline = (await spawn("grep", ["-rl", "needle", dir])).trim().split(
  "\n",
);
if (files.files !== baseline.length || baseline.length !== 104) {
  throw new Error(
    `grep found ${files.files} files, grep -r ${baseline.length}`,
  );
}

// rg changes nothing in the answers.
if (rgTool) {
  for (
    const args of [
      { pattern: "needle" } as JsonObject,
      { pattern: "needle", output_mode: "content" },
      { pattern: "ALPHA 1\\d", case_insensitive: true },
    ]
  ) {
    const a = JSON.stringify(await invoke("grep", args));
    const b = JSON.stringify(await invoke("grep", args, rgTool));
    if (a !== b) {
      throw new Error(`rg changed the answer to ${JSON.stringify(args)}`);
    }
  }
}

/** The same benchmark through the plugin granted `rg`, when there is one. */
function withRg(name: string, group: string, args: JsonObject): void {
  Deno.bench(name, { group, n: 30, warmup: 3, ignore: !rgTool }, async () => {
    await invoke("grep", args, rgTool);
  });
}

Deno.bench("grep -rl needle (spawned)", {
  group: "grep, files with matches, 10k files",
  baseline: true,
  n: 30,
  warmup: 3,
}, async () => {
  await spawn("grep", ["-rl", "needle", dir]);
});

Deno.bench("search.grep files_with_matches (through the transport)", {
  group: "grep, files with matches, 10k files",
  n: 30,
  warmup: 3,
}, async () => {
  await invoke("grep", { pattern: "needle" });
});

withRg(
  "search.grep files_with_matches, with rg",
  "grep, files with matches, 10k files",
  { pattern: "needle" },
);

Deno.bench("grep -rn needle (spawned)", {
  group: "grep, content, 10k files",
  baseline: true,
  n: 30,
  warmup: 3,
}, async () => {
  await spawn("grep", ["-rn", "needle", dir]);
});

Deno.bench("search.grep content (through the transport)", {
  group: "grep, content, 10k files",
  n: 30,
  warmup: 3,
}, async () => {
  await invoke("grep", { pattern: "needle", output_mode: "content" });
});

withRg(
  "search.grep content, with rg",
  "grep, content, 10k files",
  { pattern: "needle", output_mode: "content" },
);

Deno.bench("grep -rli 'ALPHA 1\\d' (spawned, many matches)", {
  group: "grep, many matching files, 10k files",
  baseline: true,
  n: 30,
  warmup: 3,
}, async () => {
  await spawn("grep", ["-rliE", "ALPHA 1[0-9]", dir]);
});

Deno.bench("search.grep case_insensitive, many matching files", {
  group: "grep, many matching files, 10k files",
  n: 30,
  warmup: 3,
}, async () => {
  await invoke("grep", { pattern: "ALPHA 1\\d", case_insensitive: true });
});

withRg(
  "search.grep case_insensitive, many matching files, with rg",
  "grep, many matching files, 10k files",
  { pattern: "ALPHA 1\\d", case_insensitive: true },
);

Deno.bench("find -name '*.ts' (spawned)", {
  group: "glob, 10k files",
  baseline: true,
  n: 30,
  warmup: 3,
}, async () => {
  await spawn("find", [dir, "-name", "*.ts"]);
});

Deno.bench("search.glob **/*.ts (through the transport)", {
  group: "glob, 10k files",
  n: 30,
  warmup: 3,
}, async () => {
  await invoke("glob", { pattern: "**/*.ts" });
});
