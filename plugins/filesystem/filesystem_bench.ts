/**
 * `read_file` of a 100 KB file: through the transport (a real plugin
 * subprocess, one Invoke stream per read) and in process (the operation
 * alone), to show what the transport adds. Target: ≤ 2 ms p50 through the
 * transport. Run with `deno bench -A plugins/filesystem/filesystem_bench.ts`.
 */
import { PluginHost } from "../../kernel/mod.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import { readFile } from "./_tools.ts";

const dir = await Deno.realPath(
  await Deno.makeTempDir({ prefix: "ph-fs-bench-" }),
);
globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
// 1500 lines of 67 characters and a newline: 102,000 bytes.
const line =
  "export const value = 'the quick brown fox jumps over the dog';  //";
await Deno.writeTextFile(
  `${dir}/big.ts`,
  Array.from({ length: 1500 }, () => `${line}\n`).join(""),
);

const host = new PluginHost({
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  cwd: dir,
});
const plugin = await host.launch({
  manifest: await readManifest(new URL("./plugin.json", import.meta.url)),
  entrypoint: new URL("./main.ts", import.meta.url).pathname,
  grant: { read: [dir], write: [dir] },
});
const tool = plugin.client(ToolService);
await tool.configure({ config: { roots: [dir] } });
const call = {
  id: "bench",
  toolName: "read_file",
  arguments: { path: "big.ts" },
  callContext: { sessionId: "01S", turnId: "01T", workingDirectory: dir },
};

async function invokeOnce(): Promise<void> {
  let terminal = 0;
  for await (const r of tool.invoke({ call })) {
    const c = r.event?.event.case;
    if (c === "error") throw new Error(r.event!.event.value!.toString());
    if (c === "result") terminal++;
  }
  if (terminal !== 1) throw new Error("read_file did not end with a result");
}
await invokeOnce();

Deno.bench("read_file 100 KB through the transport (Invoke stream)", {
  group: "read_file 100 KB",
  baseline: true,
  n: 500,
  warmup: 50,
}, async () => {
  await invokeOnce();
});

Deno.bench("read_file 100 KB in process (no transport)", {
  group: "read_file 100 KB",
  n: 500,
  warmup: 50,
}, async () => {
  await readFile({
    roots: [dir],
    args: { path: "big.ts" },
    workingDirectory: dir,
  });
});
