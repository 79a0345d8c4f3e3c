/**
 * What the OS sandbox adds to a plugin's start: launch to ready of the
 * echo plugin with and without bubblewrap, and the bare cost of wrapping
 * a process (`bwrap <view> -- true` against `true`). Run with
 * `deno bench -A kernel/plugin/sandbox_bench.ts`.
 */
import { readManifest } from "../../plugins/sdk/mod.ts";
import { bwrapArgs, probeSandbox } from "../process/sandbox.ts";
import { PluginHost } from "./host.ts";

const ECHO = new URL("../../plugins/echo/main.ts", import.meta.url).pathname;
const manifest = await readManifest(
  new URL("../../plugins/echo/plugin.json", import.meta.url),
);
const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
const { available } = await probeSandbox();

// Hosts with their gateway warm, so launch figures are per plugin.
const plain = new PluginHost({ env, sandbox: "off", onWarning: () => {} });
const boxed = new PluginHost({ env, sandbox: "auto" });
await (await plain.launch({ manifest, entrypoint: ECHO })).close();
if (available) {
  await (await boxed.launch({ manifest, entrypoint: ECHO })).close();
}

Deno.bench("launch to ready: echo plugin, no sandbox", {
  group: "sandbox-launch",
  baseline: true,
  n: 20,
  warmup: 2,
}, async (b) => {
  b.start();
  const p = await plain.launch({ manifest, entrypoint: ECHO });
  b.end();
  await p.close();
});

Deno.bench("launch to ready: echo plugin, bubblewrap sandbox", {
  group: "sandbox-launch",
  ignore: !available,
  n: 20,
  warmup: 2,
}, async (b) => {
  b.start();
  const p = await boxed.launch({ manifest, entrypoint: ECHO });
  b.end();
  await p.close();
});

const view = {
  readOnly: [Deno.execPath()],
  readWrite: [],
  network: false,
  cwd: "/",
};

Deno.bench("process start: true", {
  group: "sandbox-spawn",
  baseline: true,
  n: 50,
}, async () => {
  await new Deno.Command("true", { stdout: "null", stderr: "null" }).output();
});

Deno.bench("process start: bwrap <plugin view> -- true", {
  group: "sandbox-spawn",
  ignore: !available,
  n: 50,
}, async () => {
  await new Deno.Command("bwrap", {
    args: [...bwrapArgs(view), "--", "true"],
    stdout: "null",
    stderr: "null",
  }).output();
});

globalThis.addEventListener("unload", () => {
  plain.killAllNow();
  boxed.killAllNow();
});
