/**
 * Launches the first-party `echo` plugin with no permissions at all, calls
 * each of its tools and shuts it down.
 *
 *   ./denow run -A examples/launch_plugin.ts
 *
 * The plugin runs as `deno run --cached-only --no-prompt` with only its
 * socket directory readable and writable and exactly its two sockets
 * reachable; `tokens` shows the plugin → kernel callback channel.
 */
import { PluginHost } from "../kernel/mod.ts";
import { resolveBuiltin } from "../plugins/builtin.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";

const echo = await resolveBuiltin("builtin/echo");
if (!echo) throw new Error("builtin/echo is missing");

await using host = new PluginHost({});
const started = performance.now();
const plugin = await host.launch(echo);
console.log(
  `launched ${plugin.identity.name}@${plugin.identity.version} (pid ${plugin.pid}) in ${
    (performance.now() - started).toFixed(0)
  } ms`,
);

const tool = plugin.client(ToolService);
for (
  const [toolName, args] of [
    ["echo", { text: "hello from the kernel" }],
    ["count", { n: 3 }],
    ["tokens", { text: "How many tokens is this sentence?" }],
  ] as const
) {
  for await (const r of tool.invoke({ call: { toolName, arguments: args } })) {
    const ev = r.event?.event;
    if (ev?.case === "progress") {
      console.log(`  ${toolName}: progress ${ev.value.message}`);
    }
    if (ev?.case === "result") {
      console.log(`  ${toolName}: ${JSON.stringify(ev.value.payload)}`);
    }
  }
}
await plugin.close();
console.log(`closed; exit ${JSON.stringify(await plugin.exited)}`);
