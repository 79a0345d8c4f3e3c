/**
 * Issue 18: third-party plugins from the forge, against a fake forge on
 * 127.0.0.1 serving real archives (goreleaser names and checksum file):
 * resolution, verification, the cache, `agent lock`, and launching.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { run } from "../cli/main.ts";
import { denoCacheDir } from "../kernel/process/_module_cache.ts";
import { hostPlatform, parseVersionConstraint } from "../config/mod.ts";
import {
  forgeCacheEntry,
  ForgeClient,
  ForgeError,
  installForgePlugin,
  readArchive,
  resolveRelease,
  searchTopic,
} from "../kernel/registry/mod.ts";
import {
  type FakeForge,
  goreleaserAssets,
  sha256Hex,
  startFakeForge,
  type TarEntry,
  tarGz,
} from "./_fake_forge.ts";

const HOST = hostPlatform();
const SOURCE = "github.com/acme/provider-echo";

function manifest(version: string): string {
  return JSON.stringify({
    name: "provider-echo",
    version,
    category: "tool",
    protocol_version: 1,
    runtime: "deno",
    entrypoint: "main.js",
    capabilities: { env: [], run: [], read: [], write: [], net: [] },
    tools: [{ name: "echo", kind: "data_source", risk: "read_only" }],
  });
}

function pluginFiles(version: string, main = "// plugin\n"): TarEntry[] {
  return [
    { path: "plugin.json", data: manifest(version) },
    { path: "main.js", data: main },
  ];
}

function release(
  version: string,
  options: { draft?: boolean; prerelease?: boolean; main?: string } = {},
) {
  return {
    tag: `v${version}`,
    ...(options.draft ? { draft: true } : {}),
    ...(options.prerelease ? { prerelease: true } : {}),
    assets: goreleaserAssets("provider-echo", version, {
      [HOST]: pluginFiles(version, options.main),
      darwin_arm64: pluginFiles(version, options.main),
    }),
  };
}

async function withForge(
  fn: (
    forge: FakeForge,
    env: Record<string, string>,
    dir: string,
  ) => Promise<void>,
): Promise<void> {
  const forge = startFakeForge();
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-" });
  try {
    const env = {
      HOME: join(dir, "home"),
      XDG_CACHE_HOME: join(dir, "cache"),
      XDG_CONFIG_HOME: join(dir, "config"),
      GITHUB_API_URL: forge.githubApi,
      CI_API_V4_URL: forge.gitlabApi,
      NO_COLOR: "1",
    };
    await fn(forge, env, dir);
  } finally {
    await forge.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function capture(cwd: string, env: Record<string, string>) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTerminal: false,
      env,
      cwd,
    },
  };
}

async function project(dir: string, source: string, version: string) {
  const p = join(dir, "project");
  await Deno.mkdir(p, { recursive: true });
  await Deno.writeTextFile(
    join(p, "agent.hcl"),
    `required_providers {\n  echo = { source = "${source}", version = "${version}" }\n}\n`,
  );
  return p;
}

const constraint = (s: string) => parseVersionConstraint(s).constraint!;

Deno.test("resolution lists every page, skips drafts, strips the v and picks the newest release within the constraint", async () => {
  await withForge(async (forge, env) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [
        release("2.0.0"),
        release("1.4.0", { draft: true }),
        release("1.3.0-rc.1", { prerelease: true }),
        release("1.2.0"),
        release("1.1.0"),
      ],
    });
    const r = await resolveRelease(SOURCE, constraint("~> 1.1"), { env });
    assert.equal(r.release.version, "1.2.0");
    assert.ok(!r.versions.includes("1.4.0"), "the draft is skipped");
    assert.equal(
      forge.seen.filter((s) => s.path.includes("/releases")).length,
      3,
      "3 pages of 2",
    );
    // An exact pre-release constraint picks the pre-release.
    const pre = await resolveRelease(SOURCE, constraint("1.3.0-rc.1"), { env });
    assert.equal(pre.release.version, "1.3.0-rc.1");
    // The locked version is kept while it satisfies; upgrade moves it.
    const kept = await resolveRelease(SOURCE, constraint("~> 1.1"), {
      env,
      locked: "1.1.0",
    });
    assert.equal(kept.release.version, "1.1.0");
    const up = await resolveRelease(SOURCE, constraint("~> 1.1"), {
      env,
      locked: "1.1.0",
      upgrade: true,
    });
    assert.equal(up.release.version, "1.2.0");
    await assert.rejects(
      resolveRelease(SOURCE, constraint(">= 3.0"), { env }),
      /No release of github.com\/acme\/provider-echo satisfies/,
    );
  });
});

Deno.test("a gitlab.com source pages with X-Next-Page, and its token goes only to the API as PRIVATE-TOKEN", async () => {
  await withForge(async (forge, env) => {
    forge.repos.set("gitlab:team/sub/provider-echo", {
      token: "gl-secret",
      releases: [release("1.2.0"), release("1.1.0"), release("1.0.0")],
    });
    const source = "gitlab.com/team/sub/provider-echo";
    await assert.rejects(
      resolveRelease(source, constraint(">= 1.0"), { env }),
      (e: Error) =>
        e instanceof ForgeError && /HTTP 404/.test(e.message) &&
        /set GITLAB_TOKEN/.test(e.message),
    );
    const withToken = { ...env, GITLAB_TOKEN: "gl-secret" };
    const r = await resolveRelease(source, constraint(">= 1.0"), {
      env: withToken,
    });
    assert.equal(r.release.version, "1.2.0");
    const entry = await installForgePlugin(source, "1.2.0", undefined, {
      env: withToken,
    });
    assert.ok(entry.downloaded);
    for (const s of forge.seen) {
      if (s.server === "cdn") {
        assert.equal(s.credential, undefined, `no token to ${s.path}`);
      }
    }
    assert.ok(
      forge.seen.some((s) =>
        s.server === "api" && s.credential === "gl-secret"
      ),
    );
  });
});

Deno.test("a private github.com repository is a 404 naming GITHUB_TOKEN, and the token never follows the redirect to the download origin", async () => {
  await withForge(async (forge, env) => {
    forge.repos.set("github:acme/provider-echo", {
      token: "gh-secret",
      releases: [release("1.2.0")],
    });
    const err = await installForgePlugin(SOURCE, "1.2.0", undefined, { env })
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof ForgeError);
    assert.match(err.message, /HTTP 404.*set GITHUB_TOKEN/);
    const authed = { ...env, GITHUB_TOKEN: "gh-secret" };
    const r = await installForgePlugin(SOURCE, "1.2.0", undefined, {
      env: authed,
    });
    assert.ok(r.downloaded);
    assert.ok(forge.seen.some((s) => s.server === "cdn"), "redirected");
    for (const s of forge.seen.filter((s) => s.server === "cdn")) {
      assert.equal(s.credential, undefined);
    }
    assert.ok(
      forge.seen.some((s) =>
        s.server === "api" && s.credential === "Bearer gh-secret"
      ),
    );
  });
});

Deno.test("a rate-limited answer (403, remaining 0) says when the limit resets", async () => {
  await withForge(async (forge, env) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [release("1.2.0")],
    });
    forge.rateLimitReset = 1_900_000_000;
    await assert.rejects(
      resolveRelease(SOURCE, constraint(">= 1.0"), { env }),
      /rate limit is exhausted \(HTTP 403.*resets at 2030-03-17T17:46:40.000Z.*GITHUB_TOKEN/,
    );
  });
});

Deno.test("agent lock records the version, source and every platform's checksum, caches the host's archive, and keeps the version until --upgrade", async () => {
  await withForge(async (forge, env, dir) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [release("1.1.0")],
    });
    const p = await project(dir, SOURCE, "~> 1.1");
    const first = capture(p, env);
    assert.equal(await run(["lock"], first.io), 0, first.out.stderr);
    const lock = await Deno.readTextFile(join(p, ".agent/agent.lock.hcl"));
    const rel = forge.repos.get("github:acme/provider-echo")!.releases[0]!;
    const sum = (plat: string) =>
      `sha256:${
        sha256Hex(rel.assets.get(`provider-echo_1.1.0_${plat}.tar.gz`)!)
      }`;
    assert.match(lock, /source\s+= "github.com\/acme\/provider-echo"/);
    assert.match(lock, /version\s+= "1.1.0"/);
    assert.match(
      lock,
      new RegExp(`"darwin_arm64"\\s+= "${sum("darwin_arm64")}"`),
    );
    assert.match(lock, new RegExp(`"${HOST}"\\s+= "${sum(HOST)}"`));
    assert.match(lock, /name = "echo"/, "the manifest's tools are recorded");
    const entry = forgeCacheEntry(SOURCE, "1.1.0", HOST, env);
    assert.equal(
      await Deno.readTextFile(join(entry, "plugin", "main.js")),
      "// plugin\n",
    );
    // A newer release: the lock keeps 1.1.0 while it satisfies...
    forge.repos.get("github:acme/provider-echo")!.releases.unshift(
      release("1.2.0"),
    );
    forge.repos.set(
      "github:acme/provider-echo",
      forge.repos.get("github:acme/provider-echo")!,
    );
    const again = capture(p, env);
    assert.equal(await run(["lock"], again.io), 0, again.out.stderr);
    assert.match(
      await Deno.readTextFile(join(p, ".agent/agent.lock.hcl")),
      /version\s+= "1.1.0"/,
    );
    // ...and --upgrade=echo moves it.
    const up = capture(p, env);
    assert.equal(
      await run(["lock", "--upgrade=echo"], up.io),
      0,
      up.out.stderr,
    );
    assert.match(
      await Deno.readTextFile(join(p, ".agent/agent.lock.hcl")),
      /version\s+= "1.2.0"/,
    );
    // --platform restricts the recorded platforms.
    const only = capture(p, env);
    assert.equal(
      await run(["lock", "--platform", HOST], only.io),
      0,
      only.out.stderr,
    );
    const restricted = await Deno.readTextFile(
      join(p, ".agent/agent.lock.hcl"),
    );
    assert.ok(!restricted.includes("darwin_arm64") || HOST === "darwin_arm64");
  });
});

Deno.test("a tampered archive is refused before unpacking, naming source, version, platform and both digests", async () => {
  await withForge(async (forge, env) => {
    const rel = release("1.2.0");
    const name = `provider-echo_1.2.0_${HOST}.tar.gz`;
    const good = rel.assets.get(name)!;
    const bad = tarGz(pluginFiles("1.2.0", "// evil\n"));
    rel.assets.set(name, bad);
    forge.repos.set("github:acme/provider-echo", { releases: [rel] });
    const err = await installForgePlugin(SOURCE, "1.2.0", undefined, { env })
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof ForgeError, String(err));
    assert.ok(err.message.includes(SOURCE) && err.message.includes("1.2.0"));
    assert.ok(err.message.includes(HOST));
    assert.ok(err.message.includes(`sha256:${sha256Hex(bad)}`), err.message);
    assert.ok(err.message.includes(`sha256:${sha256Hex(good)}`), err.message);
    await assert.rejects(
      Deno.stat(forgeCacheEntry(SOURCE, "1.2.0", HOST, env)),
      Deno.errors.NotFound,
    );
  });
});

Deno.test("a released Deno plugin whose imports leave its folder (an out-of-tree file, a remote or npm: module) is refused before it is cached", async () => {
  await withForge(async (forge, env, dir) => {
    // What the static-import hole would read without any read permission.
    const secret = join(dir, "secret.txt");
    await Deno.writeTextFile(secret, "s3cret");
    const cases: [string, string, RegExp][] = [
      [
        "1.0.0",
        `import s from ${
          JSON.stringify(secret)
        } with { type: "text" };\nconsole.log(s);\n`,
        /main\.js imports ".*secret\.txt", which is outside the release's folder/,
      ],
      [
        "1.1.0",
        'import "./lib.js";\n',
        /lib\.js imports "\.\.\/\.\.\/x\.js", which is outside/,
      ],
      [
        "1.2.0",
        'import "https://example.com/mod.ts";\n',
        /main\.js imports "https:\/\/example\.com\/mod\.ts", which is not a file of the release/,
      ],
      [
        "1.3.0",
        'import "npm:left-pad@1.3.0";\n',
        /imports "npm:left-pad@1\.3\.0", which is not a file of the release/,
      ],
    ];
    const releases = cases.map(([v, main]) => {
      const files = [
        ...pluginFiles(v, main),
        { path: "lib.js", data: 'import "../../x.js";\n' },
      ];
      return {
        tag: `v${v}`,
        assets: goreleaserAssets("provider-echo", v, { [HOST]: files }),
      };
    });
    forge.repos.set("github:acme/provider-echo", { releases });
    for (const [v, , re] of cases) {
      const err = await installForgePlugin(SOURCE, v, undefined, { env })
        .then(() => undefined, (e) => e);
      assert.ok(err instanceof ForgeError, `${v}: ${err}`);
      assert.match(err.message, re);
      assert.ok(err.message.includes(`${SOURCE} ${v} (${HOST})`), err.message);
      await assert.rejects(
        Deno.stat(forgeCacheEntry(SOURCE, v, HOST, env)),
        Deno.errors.NotFound,
      );
    }
    // A bundle whose imports stay inside (a sibling file, node: builtins)
    // is installed.
    forge.repos.set("github:acme/provider-echo", {
      releases: [{
        tag: "v2.0.0",
        assets: goreleaserAssets("provider-echo", "2.0.0", {
          [HOST]: [
            ...pluginFiles(
              "2.0.0",
              'import "node:path";\nimport "./sub/lib.js";\n',
            ),
            { path: "sub/lib.js", data: "export const x = 1;\n" },
          ],
        }),
      }],
    });
    const ok = await installForgePlugin(SOURCE, "2.0.0", undefined, { env });
    assert.ok(ok.downloaded);
  });
});

Deno.test("a release without the host's platform is an error listing the published platforms", async () => {
  await withForge(async (forge, env) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [{
        tag: "v1.2.0",
        assets: goreleaserAssets("provider-echo", "1.2.0", {
          plan9_mips: pluginFiles("1.2.0"),
        }),
      }],
    });
    await assert.rejects(
      installForgePlugin(SOURCE, "1.2.0", undefined, { env }),
      new RegExp(`publishes no archive for ${HOST}.*lists plan9_mips`),
    );
  });
});

Deno.test("archives with path traversal, absolute paths, symlinks or devices are refused and nothing is cached", async () => {
  const hostile: [TarEntry[], RegExp][] = [
    [[{ path: "../evil", data: "x" }], /leaves the target folder/],
    [[{ path: "a/../../evil", data: "x" }], /leaves the target folder/],
    [[{ path: "/etc/evil", data: "x" }], /absolute path/],
    [[{ path: "link", type: "2", link: "/etc/passwd" }], /symbolic link/],
    [[{ path: "dev", type: "3" }], /device/],
  ];
  for (const [entries, want] of hostile) {
    assert.throws(() => readArchive("x.tar.gz", tarGz(entries)), want);
  }
  assert.throws(
    () =>
      readArchive(
        "x.tar.gz",
        tarGz([{ path: "big", data: "y".repeat(4096) }]),
        {
          maxBytes: 1024,
        },
      ),
    /more than 1024 bytes/,
  );
  await withForge(async (forge, env) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [{
        tag: "v1.2.0",
        assets: goreleaserAssets("provider-echo", "1.2.0", {
          [HOST]: [...pluginFiles("1.2.0"), {
            path: "../../escape",
            data: "x",
          }],
        }),
      }],
    });
    await assert.rejects(
      installForgePlugin(SOURCE, "1.2.0", undefined, { env }),
      /is refused: entry "..\/..\/escape" leaves the target folder/,
    );
    await assert.rejects(
      Deno.stat(forgeCacheEntry(SOURCE, "1.2.0", HOST, env)),
      Deno.errors.NotFound,
    );
    await assert.rejects(
      Deno.stat(
        join(env.XDG_CACHE_HOME!, "agent/plugins/github.com/acme/escape"),
      ),
      Deno.errors.NotFound,
    );
  });
});

Deno.test("readArchive() of a .tar.gz sizes its output by the gzip trailer only as a hint: a multi-member stream reads whole, a false trailer is refused, and the unpacked bound holds", () => {
  const gz = tarGz([{ path: "main.js", data: "x".repeat(100_000) }]);
  const tar = gunzipSync(gz);
  // Two gzip members: the trailer read is the last one's (a small size).
  const split = 70_000;
  const two = new Uint8Array([
    ...gzipSync(tar.subarray(0, split)),
    ...gzipSync(tar.subarray(split)),
  ]);
  assert.equal(readArchive("p.tar.gz", two)[0]!.data.length, 100_000);
  const lying = gz.slice();
  new DataView(lying.buffer).setUint32(lying.length - 4, 0xffffffff, true);
  assert.throws(
    () => readArchive("p.tar.gz", lying),
    /not a valid gzip stream/,
  );
  assert.throws(
    () => readArchive("p.tar.gz", gz, { maxBytes: 50_000 }),
    /unpacks to more than 50000 bytes/,
  );
});

Deno.test("a tampered cache entry is refused at launch and fetched again; offline it is refused outright", async () => {
  await withForge(async (forge, env) => {
    const rel = release("1.2.0");
    forge.repos.set("github:acme/provider-echo", { releases: [rel] });
    const expected = `sha256:${
      sha256Hex(rel.assets.get(`provider-echo_1.2.0_${HOST}.tar.gz`)!)
    }`;
    const first = await installForgePlugin(SOURCE, "1.2.0", expected, { env });
    assert.ok(first.downloaded);
    const main = join(first.root, "main.js");
    await Deno.writeTextFile(main, "// tampered\n");
    const warnings: string[] = [];
    await assert.rejects(
      installForgePlugin(SOURCE, "1.2.0", expected, {
        env,
        offline: true,
        onWarning: (m) => warnings.push(m),
      }),
      /not in the plugin cache.*--locked forbids the network/,
    );
    assert.match(warnings[0]!, /"main.js" differs from its archive/);
    const again = await installForgePlugin(SOURCE, "1.2.0", expected, {
      env,
      onWarning: (m) => warnings.push(m),
    });
    assert.ok(again.downloaded, "fetched again");
    assert.equal(await Deno.readTextFile(main), "// plugin\n");
    // An extra file is refused too.
    await Deno.writeTextFile(join(again.root, "extra.js"), "x");
    const third = await installForgePlugin(SOURCE, "1.2.0", expected, {
      env,
      onWarning: (m) => warnings.push(m),
    });
    assert.ok(third.downloaded);
    assert.match(warnings.at(-1)!, /"extra.js" is not in its archive/);
  });
});

Deno.test("a cache entry changed without a trace in its size or time (one byte of the bundle, mtime put back) or a changed cached archive is refused at launch", async () => {
  await withForge(async (forge, env) => {
    const main = `// plugin\n${"x".repeat(300_000)}\n`;
    const rel = release("1.2.0", { main });
    forge.repos.set("github:acme/provider-echo", { releases: [rel] });
    const asset = `provider-echo_1.2.0_${HOST}.tar.gz`;
    const expected = `sha256:${sha256Hex(rel.assets.get(asset)!)}`;
    const first = await installForgePlugin(SOURCE, "1.2.0", expected, { env });
    const path = join(first.root, "main.js");
    const before = await Deno.stat(path);
    const bytes = await Deno.readFile(path);
    bytes[bytes.length - 2] = "y".charCodeAt(0); // past the first read chunk
    await Deno.writeFile(path, bytes);
    await Deno.utime(path, before.atime!, before.mtime!);
    const after = await Deno.stat(path);
    assert.equal(after.size, before.size);
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
    const warnings: string[] = [];
    const offline = {
      env,
      offline: true,
      onWarning: (m: string) => warnings.push(m),
    };
    await assert.rejects(
      installForgePlugin(SOURCE, "1.2.0", expected, offline),
      /not in the plugin cache/,
    );
    assert.match(warnings[0]!, /"main.js" differs from its archive/);
    // The cached archive itself, rewritten (files and archive agreeing
    // with each other, not with the lock): its checksum is refused.
    const again = await installForgePlugin(SOURCE, "1.2.0", expected, { env });
    assert.ok(again.downloaded);
    const other = release("1.2.0", { main: "// other\n" }).assets.get(asset)!;
    await Deno.writeFile(join(again.entry, asset), other);
    await Deno.writeTextFile(join(again.root, "main.js"), "// other\n");
    await assert.rejects(
      installForgePlugin(SOURCE, "1.2.0", expected, offline),
      /not in the plugin cache/,
    );
    assert.match(
      warnings[1]!,
      new RegExp(
        `its archive's checksum is sha256:${
          sha256Hex(other)
        }, the lock file records ${expected}`,
      ),
    );
  });
});

Deno.test("two concurrent installs of the same plugin download it once and both get the verified entry", async () => {
  await withForge(async (forge, env) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [release("1.2.0")],
    });
    const rel = forge.repos.get("github:acme/provider-echo")!.releases[0]!;
    const expected = `sha256:${
      sha256Hex(rel.assets.get(`provider-echo_1.2.0_${HOST}.tar.gz`)!)
    }`;
    // Two processes, as two `agent` runs would be.
    const script = `
      import { installForgePlugin } from ${
      JSON.stringify(
        new URL("../kernel/registry/install.ts", import.meta.url).href,
      )
    };
      const r = await installForgePlugin(${JSON.stringify(SOURCE)}, "1.2.0", ${
      JSON.stringify(expected)
    }, { env: Deno.env.toObject() });
      console.log(JSON.stringify(r));
    `;
    const runOne = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", "--quiet", "--no-check", script],
        // The test's XDG_CACHE_HOME would otherwise move Deno's own cache.
        env: { ...env, DENO_DIR: denoCacheDir() },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const [a, b] = await Promise.all([runOne(), runOne()]);
    const dec = new TextDecoder();
    assert.equal(a.code, 0, dec.decode(a.stderr));
    assert.equal(b.code, 0, dec.decode(b.stderr));
    const ra = JSON.parse(dec.decode(a.stdout));
    const rb = JSON.parse(dec.decode(b.stdout));
    assert.equal(ra.root, rb.root);
    assert.equal(
      [ra.downloaded, rb.downloaded].filter(Boolean).length,
      1,
      "one download",
    );
    const archives = forge.seen.filter((s) =>
      s.path.endsWith(`_${HOST}.tar.gz`)
    );
    assert.equal(archives.length, 1, "the archive is fetched once");
  });
});

Deno.test("a registry_mirror redirects downloads to the longest matching prefix with its env() token", async () => {
  await withForge(async (forge, env, dir) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [release("1.2.0")],
    });
    const config = join(env.XDG_CONFIG_HOME!, "agent");
    await Deno.mkdir(config, { recursive: true });
    await Deno.writeTextFile(
      join(config, "config.hcl"),
      `registry_mirror {
  default = "http://127.0.0.1:1/unused"
  mirror {
    prefix = "github.com/"
    url    = "http://127.0.0.1:1/too-short"
  }
  mirror {
    prefix = "github.com/acme/"
    url    = "${forge.mirror}/acme"
    auth   = env("CORP_TOKEN")
  }
}
`,
    );
    const p = await project(dir, SOURCE, "~> 1.2");
    const withToken = { ...env, CORP_TOKEN: forge.mirrorToken };
    const c = capture(p, withToken);
    assert.equal(await run(["lock"], c.io), 0, c.out.stderr);
    const mirrored = forge.seen.filter((s) => s.server === "mirror");
    assert.deepEqual(
      mirrored.map((s) => s.path).sort(),
      [
        `/mirror/acme/provider-echo/v1.2.0/provider-echo_1.2.0_${HOST}.tar.gz`,
        "/mirror/acme/provider-echo/v1.2.0/provider-echo_1.2.0_checksums.txt",
        "/mirror/acme/provider-echo/v1.2.0/provider-echo_1.2.0_checksums.txt",
      ].sort(),
    );
    for (const s of mirrored) {
      assert.equal(s.credential, `Bearer ${forge.mirrorToken}`);
    }
    assert.ok(
      !forge.seen.some((s) => s.server === "cdn"),
      "nothing downloaded from the forge",
    );
    for (const s of forge.seen.filter((s) => s.server === "api")) {
      assert.notEqual(s.credential, `Bearer ${forge.mirrorToken}`);
    }
  });
});

Deno.test("agent providers list, outdated, install and search answer in JSON", async () => {
  await withForge(async (forge, env, dir) => {
    forge.repos.set("github:acme/provider-echo", {
      releases: [release("2.0.0"), release("1.2.0"), release("1.1.0")],
    });
    const p = await project(dir, SOURCE, "~> 1.1");
    const lock = capture(p, env);
    assert.equal(await run(["lock"], lock.io), 0, lock.out.stderr);
    // A locked 1.1.0, from an older lock run.
    const lockPath = join(p, ".agent/agent.lock.hcl");
    await Deno.remove(forgeCacheEntry(SOURCE, "1.2.0", HOST, env), {
      recursive: true,
    });
    const list = capture(p, env);
    assert.equal(
      await run(["providers", "list", "--json"], list.io),
      0,
      list.out.stderr,
    );
    assert.deepEqual(JSON.parse(list.out.stdout).providers, [{
      name: "echo",
      source: SOURCE,
      constraint: "~> 1.1",
      locked: "1.2.0",
      newest_allowed: "1.2.0",
      newest_available: "2.0.0",
      cache: "missing",
    }]);
    const outdated = capture(p, env);
    assert.equal(
      await run(["providers", "outdated", "--json"], outdated.io),
      0,
    );
    assert.equal(
      JSON.parse(outdated.out.stdout).providers.length,
      1,
      "2.0.0 is out",
    );
    const install = capture(p, env);
    assert.equal(
      await run(["providers", "install", "--json"], install.io),
      0,
      install.out.stderr,
    );
    assert.equal(JSON.parse(install.out.stdout).providers[0].cache, "cached");
    assert.ok(
      (await Deno.stat(forgeCacheEntry(SOURCE, "1.2.0", HOST, env)))
        .isDirectory,
    );
    assert.ok((await Deno.readTextFile(lockPath)).includes('"1.2.0"'));
    const search = capture(p, env);
    assert.equal(await run(["providers", "search", "--json"], search.io), 0);
    assert.deepEqual(JSON.parse(search.out.stdout), {
      topic: "agent-harness-provider",
      repositories: [{ source: SOURCE, description: "a provider" }],
      truncated: false,
    });
  });
});

Deno.test("agent providers search follows every page of the topic search (Link on github.com, X-Next-Page on gitlab.com) up to its bound", async () => {
  await withForge(async (forge, env, dir) => {
    // Two repositories a page: five make three pages.
    const names = ["a", "b", "c", "d", "e"];
    for (const n of names) {
      forge.repos.set(`github:acme/provider-${n}`, { releases: [] });
      forge.repos.set(`gitlab:team/provider-${n}`, { releases: [] });
    }
    const gh = capture(dir, env);
    assert.equal(
      await run(["providers", "search", "--json"], gh.io),
      0,
      gh.out.stderr,
    );
    const ghOut = JSON.parse(gh.out.stdout);
    assert.deepEqual(
      ghOut.repositories.map((r: { source: string }) => r.source),
      names.map((n) => `github.com/acme/provider-${n}`),
    );
    assert.equal(ghOut.truncated, false);
    assert.equal(
      forge.seen.filter((s) => s.path.startsWith("/gh/search/")).length,
      3,
    );
    const gl = capture(dir, env);
    assert.equal(
      await run(["providers", "search", "--forge", "gitlab.com"], gl.io),
      0,
      gl.out.stderr,
    );
    assert.deepEqual(
      gl.out.stdout.trim().split("\n"),
      names.map((n) => `gitlab.com/team/provider-${n}  a provider`),
    );
    // The bound: two pages read, the rest said to be left.
    const bounded = await searchTopic(
      new ForgeClient("github.com", { env }),
      "agent-harness-provider",
      { maxPages: 2 },
    );
    assert.equal(bounded.truncated, true);
    assert.equal(bounded.repositories.length, 4);
  });
});

Deno.test("the template's release.ts packs goreleaser-named assets that agent lock installs", async () => {
  const { packRelease } = await import("../examples/forge-plugin/release.ts");
  await withForge(async (forge, env, dir) => {
    const dist = join(dir, "dist");
    const files = await packRelease("0.1.0", dist);
    assert.ok(files.includes("provider-hello_0.1.0_checksums.txt"));
    assert.ok(files.includes(`provider-hello_0.1.0_${HOST}.tar.gz`));
    const assets = new Map<string, Uint8Array>();
    for (const f of files) assets.set(f, await Deno.readFile(join(dist, f)));
    forge.repos.set("github:example-org/provider-hello", {
      releases: [{ tag: "v0.1.0", assets }],
    });
    const p = await project(
      dir,
      "github.com/example-org/provider-hello",
      "~> 0.1",
    );
    const c = capture(p, env);
    assert.equal(await run(["lock"], c.io), 0, c.out.stderr);
    const lock = await Deno.readTextFile(join(p, ".agent/agent.lock.hcl"));
    assert.match(lock, /"windows_amd64"\s+= "sha256:[0-9a-f]{64}"/);
    assert.match(lock, /name = "hello"/);
    await assert.rejects(
      packRelease("0.2.0", dist),
      /plugin.json says version 0.1.0/,
    );
  });
});
