/**
 * What the OS sandbox adds to a plugin's start: launch to ready of the
 * echo plugin with and without bubblewrap (on a warm host, and as the
 * first launch of a host whose bubblewrap was never probed), the bare
 * cost of wrapping a process (`bwrap <view> -- true` against `true`), and
 * the variants that locate that cost (README, OS sandbox). Run with
 * `deno bench -A kernel/plugin/sandbox_bench.ts`.
 */
import { readManifest } from "../../plugins/sdk/mod.ts";
import { bwrapArgs, probeSandbox } from "../process/sandbox.ts";
import { PluginHost } from "./host.ts";

const ECHO = new URL("../../plugins/echo/main.ts", import.meta.url).pathname;
const manifest = await readManifest(
  new URL("../../plugins/echo/plugin.json", import.meta.url),
);
const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const env = { PATH };
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

// A kernel's first launches: bubblewrap not probed yet in this process.
// The probe is cached per `bwrap` and `PATH`, so each host gets a `PATH`
// never probed (the same programs).
let fresh = 0;
async function firstLaunch(
  b: Deno.BenchContext,
  sandbox: "off" | "auto",
): Promise<void> {
  const path = `${PATH}:/nonexistent/ph-agent-bench-${++fresh}`;
  const host = new PluginHost({
    env: { PATH: path },
    sandbox,
    onWarning: () => {},
  });
  try {
    b.start();
    const p = await host.launch({ manifest, entrypoint: ECHO });
    b.end();
    await p.close();
  } finally {
    await host.close();
  }
}

Deno.bench("first launch of a host: echo plugin, no sandbox", {
  group: "sandbox-first-launch",
  baseline: true,
  n: 10,
  warmup: 1,
}, async (b) => await firstLaunch(b, "off"));

Deno.bench("first launch of a host: echo plugin, bubblewrap, unprobed", {
  group: "sandbox-first-launch",
  ignore: !available,
  n: 10,
  warmup: 1,
}, async (b) => await firstLaunch(b, "auto"));

const view = {
  readOnly: [Deno.execPath()],
  readWrite: [],
  network: false,
  cwd: "/",
};
const ARGS = bwrapArgs(view);

async function run(command: string, args: string[]): Promise<void> {
  await new Deno.Command(command, {
    args,
    stdout: "null",
    stderr: "null",
  }).output();
}

Deno.bench("process start: true", {
  group: "sandbox-spawn",
  baseline: true,
  n: 50,
}, async () => await run("true", []));

Deno.bench("process start: bwrap <plugin view> -- true", {
  group: "sandbox-spawn",
  ignore: !available,
  n: 50,
}, async () => await run("bwrap", [...ARGS, "--", "true"]));

// Where the wrap's cost goes: each variant drops one part of it (none of
// them is what plugins get: they locate the cost, README, OS sandbox).
const variants: [string, string[]][] = [
  // Executing bubblewrap and its libraries, no sandbox at all.
  ["bwrap --version (exec only)", ["--version"]],
  // Namespaces, no view: one bind of /usr and the loader's symlinks.
  ["bwrap, bare view (/usr only)", [
    "--unshare-all",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--",
    "/usr/bin/true",
  ]],
  // The plugin view in the host's network namespace.
  ["bwrap <plugin view> --share-net", [
    ...ARGS.slice(0, 1),
    "--share-net",
    ...ARGS.slice(1),
    "--",
    "true",
  ]],
  // The plugin view, the program as pid 1 (no bubblewrap init).
  ["bwrap --as-pid-1 <plugin view>", ["--as-pid-1", ...ARGS, "--", "true"]],
];
for (const [name, args] of variants) {
  Deno.bench(`process start: ${name}`, {
    group: "sandbox-variants",
    ignore: !available,
    n: 30,
  }, async () => await run("bwrap", args));
}
Deno.bench("process start: bwrap <plugin view> -- true (same run)", {
  group: "sandbox-variants",
  baseline: true,
  ignore: !available,
  n: 30,
}, async () => await run("bwrap", [...ARGS, "--", "true"]));

globalThis.addEventListener("unload", () => {
  plain.killAllNow();
  boxed.killAllNow();
});
