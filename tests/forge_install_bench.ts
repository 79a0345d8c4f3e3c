/**
 * Issue 18 figures: installing a 10 MB release asset from the fake forge on
 * loopback (download, checksum, unpack, atomic rename), and what a cached
 * `--locked` launch adds before the plugin starts (the archive hashed
 * against the lock and every file compared).
 *
 *     deno bench -A tests/forge_install_bench.ts
 */
import { join } from "node:path";
import { hostPlatform } from "../config/mod.ts";
import { installForgePlugin } from "../kernel/registry/mod.ts";
import { goreleaserAssets, sha256Hex, startFakeForge } from "./_fake_forge.ts";

const HOST = hostPlatform();
const SOURCE = "github.com/acme/provider-big";
// 10 MB of incompressible bytes, so that the asset is really 10 MB.
const big = new Uint8Array(10 * 1024 * 1024);
for (let i = 0; i < big.length; i += 65536) {
  crypto.getRandomValues(big.subarray(i, i + 65536));
}
const forge = startFakeForge();
const assets = goreleaserAssets("provider-big", "1.0.0", {
  [HOST]: [
    {
      path: "plugin.json",
      data: JSON.stringify({ name: "provider-big", version: "1.0.0" }),
    },
    { path: "blob.bin", data: big },
  ],
});
forge.repos.set("github:acme/provider-big", {
  releases: [{ tag: "v1.0.0", assets }],
});
const expected = `sha256:${
  sha256Hex(assets.get(`provider-big_1.0.0_${HOST}.tar.gz`)!)
}`;
const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-bench-" });
const env = {
  XDG_CACHE_HOME: join(dir, "cache"),
  GITHUB_API_URL: forge.githubApi,
};
let round = 0;

Deno.bench("install a 10 MB asset (download, verify, unpack, rename)", {
  n: 10,
  warmup: 2,
}, async () => {
  // A fresh cache each time: the install is measured, not the cache hit.
  const e = { ...env, XDG_CACHE_HOME: join(dir, `cache-${round++}`) };
  const r = await installForgePlugin(SOURCE, "1.0.0", expected, { env: e });
  if (!r.downloaded) throw new Error("not downloaded");
});

Deno.bench("verify a cached 10 MB entry (--locked launch)", {
  n: 20,
  warmup: 2,
}, async () => {
  const r = await installForgePlugin(SOURCE, "1.0.0", expected, {
    env,
    offline: true,
  });
  if (r.downloaded) throw new Error("downloaded");
});

// Prime the cache for the second bench.
await installForgePlugin(SOURCE, "1.0.0", expected, { env });

globalThis.addEventListener("unload", () => {
  forge.close();
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch { /* already gone */ }
});
