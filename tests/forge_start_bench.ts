/**
 * Issue 18 figure: a cached `--locked` start of a forge plugin against a
 * builtin's. Two projects, each with one tool plugin that echoes (the
 * bundled release of tests/fixtures/forge_echo from the fake forge, and
 * `builtin/echo`), both locked; each iteration opens the kernel with
 * `locked: true` (compile against the lock, the cache entry verified, the
 * plugin launched and configured) and closes it. The forge is shut down
 * before the runs: a `--locked` start never touches the network.
 *
 *     deno bench -A tests/forge_start_bench.ts
 *     FORGE_START_ORDER=forge-first deno bench -A tests/forge_start_bench.ts
 */
import { join } from "node:path";
import { run } from "../cli/main.ts";
import { hostPlatform } from "../config/mod.ts";
import { openKernel } from "../mod.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { goreleaserAssets, startFakeForge } from "./_fake_forge.ts";
import { PATH } from "./_helpers.ts";

const FIXTURE = new URL("./fixtures/forge_echo/", import.meta.url).pathname;
const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-start-" });
const env: Record<string, string> = {
  PATH,
  HOME: join(dir, "home"),
  XDG_CACHE_HOME: join(dir, "cache"),
  XDG_CONFIG_HOME: join(dir, "config"),
  NO_COLOR: "1",
};

async function project(name: string, hcl: string): Promise<string> {
  const p = join(dir, name);
  await Deno.mkdir(p);
  await Deno.writeTextFile(join(p, "agent.hcl"), hcl);
  let err = "";
  const code = await run(["lock"], {
    stdout: () => {},
    stderr: (t: string) => void (err += t),
    isTerminal: false,
    env,
    cwd: p,
  });
  if (code !== 0) throw new Error(`agent lock in ${p}: ${err}`);
  return p;
}

const bundled = join(dir, "main.js");
const b = await new Deno.Command(Deno.execPath(), {
  args: [
    "bundle",
    "--quiet",
    "--platform=deno",
    "-o",
    bundled,
    `${FIXTURE}main.ts`,
  ],
  stdout: "null",
  stderr: "inherit",
}).output();
if (!b.success) throw new Error("deno bundle failed");
const forge = startFakeForge();
const files = [
  {
    path: "plugin.json",
    data: await Deno.readTextFile(join(FIXTURE, "plugin.json")),
  },
  { path: "main.js", data: await Deno.readFile(bundled) },
];
forge.repos.set("github:acme/provider-echo", {
  releases: [{
    tag: "v1.2.0",
    assets: goreleaserAssets("provider-echo", "1.2.0", {
      [hostPlatform()]: files,
    }),
  }],
});
env.GITHUB_API_URL = forge.githubApi;
const forgeProject = await project(
  "forge",
  `required_providers {
  echo = { source = "github.com/acme/provider-echo", version = "~> 1.2" }
}
`,
);
const builtinProject = await project(
  "builtin",
  `required_providers {
  echo = { source = "builtin/echo", version = "~> 0.1" }
}
`,
);
await forge.close();

async function start(p: string): Promise<void> {
  const kernel = await openKernel(p, { env, locked: true, builtins: BUILTINS });
  await kernel.close();
}
// One start each before timing, so that both pay a warm module cache.
await start(forgeProject);
await start(builtinProject);

// Deno runs a group's benchmarks one after the other, and on a busy
// machine the first one can pay for the warm-up of the second:
// FORGE_START_ORDER=forge-first registers the forge plugin first, so the
// figure can be read in both orders.
const builtinBench = () =>
  Deno.bench("cached --locked start of builtin/echo", {
    group: "locked start",
    baseline: true,
    n: 10,
    warmup: 1,
  }, async () => {
    await start(builtinProject);
  });
const forgeBench = () =>
  Deno.bench("cached --locked start of a forge echo plugin (bundled Deno)", {
    group: "locked start",
    n: 10,
    warmup: 1,
  }, async () => {
    await start(forgeProject);
  });
if (Deno.env.get("FORGE_START_ORDER") === "forge-first") {
  forgeBench();
  builtinBench();
} else {
  builtinBench();
  forgeBench();
}

globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch { /* already gone */ }
});
