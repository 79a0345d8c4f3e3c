/**
 * Issue 18 end to end: a Deno plugin bundled into one module, released on
 * the fake forge with goreleaser's names and checksum file, locked with
 * `agent lock`, checked by `agent check-config --locked`, and launched from
 * the cache with its grant — then again with the forge gone (`--locked`
 * never touches the network).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../cli/main.ts";
import { compileConfig, hasErrors, hostPlatform } from "../config/mod.ts";
import { launchableOf } from "../kernel/_providers.ts";
import { PluginHost } from "../kernel/mod.ts";
import { openKernel } from "../mod.ts";
import { openProjectKernel } from "../cli/commands/_zero_config.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { goreleaserAssets, startFakeForge } from "./_fake_forge.ts";
import { PATH } from "./_helpers.ts";
import { build as buildGo, goManifest, SKIP as GO_SKIP } from "./_go_build.ts";

const FIXTURE = new URL("./fixtures/forge_echo/", import.meta.url).pathname;

async function bundle(out: string): Promise<void> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "-o",
      out,
      join(FIXTURE, "main.ts"),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
}

Deno.test("a bundled Deno plugin released on the forge is locked, checked and launched from the cache, and launches offline with --locked", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-run-" });
  let forge = startFakeForge();
  try {
    const js = join(dir, "main.js");
    await bundle(js);
    const files = [
      {
        path: "plugin.json",
        data: await Deno.readTextFile(join(FIXTURE, "plugin.json")),
      },
      { path: "main.js", data: await Deno.readFile(js) },
    ];
    forge.repos.set("github:acme/provider-echo", {
      releases: [{
        tag: "v1.2.0",
        assets: goreleaserAssets("provider-echo", "1.2.0", {
          [hostPlatform()]: files,
          windows_amd64: files,
        }),
      }],
    });
    const env: Record<string, string> = {
      PATH,
      HOME: join(dir, "home"),
      XDG_CACHE_HOME: join(dir, "cache"),
      XDG_CONFIG_HOME: join(dir, "config"),
      GITHUB_API_URL: forge.githubApi,
      NO_COLOR: "1",
    };
    const p = join(dir, "project");
    await Deno.mkdir(p);
    // The two lines of HCL a user writes.
    await Deno.writeTextFile(
      join(p, "agent.hcl"),
      `required_providers {
  echo = { source = "github.com/acme/provider-echo", version = "~> 1.2" }
}
`,
    );
    const out = { stdout: "", stderr: "" };
    const io = {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTerminal: false,
      env,
      cwd: p,
    };
    assert.equal(await run(["lock"], io), 0, out.stderr);
    assert.match(
      out.stderr,
      /echo: 1\.2\.0 from github\.com\/acme\/provider-echo, locked/,
    );
    assert.equal(
      await run(["check-config", "--locked"], io),
      0,
      out.stderr + out.stdout,
    );
    const lockPath = join(p, ".agent/agent.lock.hcl");
    const lockText = await Deno.readTextFile(lockPath);
    // The lock records the category: the plugin's files are read only at
    // launch, and the configuration is checked by category before that.
    assert.match(lockText, /\n {2}category = "tool"\n/);

    // The forge goes away: a --locked launch uses only the cache.
    await forge.close();
    const seen = forge.seen.length;
    const { plan, diagnostics } = await compileConfig(p, {
      env,
      locked: true,
      builtins: BUILTINS,
    });
    assert.ok(!hasErrors(diagnostics), JSON.stringify(diagnostics));
    const provider = plan.providers.find((q) => q.name === "echo")!;
    // Offline, the plan knows the tools and the category from the lock entry.
    assert.deepEqual(provider.tools?.map((t) => t.name), ["echo"]);
    assert.equal(provider.category, "tool");
    // So a model chain naming the tool plugin is a config error, offline.
    const hcl = await Deno.readTextFile(join(p, "agent.hcl"));
    await Deno.writeTextFile(
      join(p, "agent.hcl"),
      hcl +
        `agent_profile "default" {
  model {
    primary {
      provider = "echo"
      id       = "m"
    }
  }
}
`,
    );
    await assert.rejects(
      compileConfig(p, { env, locked: true, builtins: BUILTINS }),
      /Provider "echo" is not a model provider/,
    );
    await Deno.writeTextFile(join(p, "agent.hcl"), hcl);
    const l = await launchableOf(p, provider, BUILTINS, plan, {
      env,
      offline: true,
    });
    assert.ok(
      l.entrypoint.startsWith(
        join(
          env.XDG_CACHE_HOME!,
          "agent/plugins/github.com/acme/provider-echo/1.2.0/",
        ),
      ),
    );
    await using host = new PluginHost({ env: { PATH }, cwd: p });
    const plugin = await host.launch({
      manifest: l.manifest,
      entrypoint: l.entrypoint,
      root: l.root!,
      grant: provider.permissions.granted,
      config: {},
      source: provider.source,
      name: provider.name,
    });
    const tool = plugin.client(ToolService);
    const schema = await tool.getSchema({});
    assert.deepEqual(schema.tools.map((t) => t.name), ["echo"]);
    let payload: unknown;
    for await (
      const r of tool.invoke({
        call: {
          id: "c1",
          toolName: "echo",
          arguments: { text: "hello" },
          callContext: { sessionId: "s", turnId: "t", workingDirectory: p },
        },
      })
    ) {
      if (r.event?.event.case === "result") {
        payload = r.event.event.value.payload;
      }
    }
    assert.deepEqual(payload, { echo: "hello", version: "1.2.0" });
    // openKernel launches it the same way, inside the OS sandbox setting.
    const kernel = await openKernel(p, {
      env,
      locked: true,
      builtins: BUILTINS,
    });
    assert.equal(
      kernel.plan.providers.find((q) => q.name === "echo")?.runtime,
      "deno",
    );
    await kernel.close();
    // A lock entry whose category the cached plugin.json contradicts is
    // refused at launch, naming both.
    await Deno.writeTextFile(
      lockPath,
      lockText.replace('category = "tool"', 'category = "context"'),
    );
    const lied = await compileConfig(p, {
      env,
      locked: true,
      builtins: BUILTINS,
    });
    const liedEcho = lied.plan.providers.find((q) => q.name === "echo")!;
    assert.equal(liedEcho.category, "context");
    await assert.rejects(
      launchableOf(p, liedEcho, BUILTINS, lied.plan, { env, offline: true }),
      /says category "tool", the lock file "context"/,
    );
    assert.equal(forge.seen.length, seen, "no request while offline");
  } finally {
    await forge.close().catch(() => {});
    forge = undefined!;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a forge Deno plugin's config search stops at its cache folder: a hostile deno.json above it (an import map redirecting node:module) is never its config", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-cfg-" });
  const forge = startFakeForge();
  try {
    const js = join(dir, "main.js");
    await bundle(js);
    const files = [
      {
        path: "plugin.json",
        data: await Deno.readTextFile(join(FIXTURE, "plugin.json")),
      },
      { path: "main.js", data: await Deno.readFile(js) },
    ];
    forge.repos.set("github:acme/provider-echo", {
      releases: [{
        tag: "v1.2.0",
        assets: goreleaserAssets("provider-echo", "1.2.0", {
          [hostPlatform()]: files,
        }),
      }],
    });
    const env: Record<string, string> = {
      PATH,
      HOME: join(dir, "home"),
      XDG_CACHE_HOME: join(dir, "cache"),
      XDG_CONFIG_HOME: join(dir, "config"),
      GITHUB_API_URL: forge.githubApi,
      NO_COLOR: "1",
    };
    const p = join(dir, "project");
    await Deno.mkdir(p);
    await Deno.writeTextFile(
      join(p, "agent.hcl"),
      `required_providers {
  echo = { source = "github.com/acme/provider-echo", version = "~> 1.2" }
}
`,
    );
    const out = { stdout: "", stderr: "" };
    const io = {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTerminal: false,
      env,
      cwd: p,
    };
    assert.equal(await run(["lock"], io), 0, out.stderr);
    // Planted above the cached release (anyone who can write the cache
    // root, or a deno.json in the home directory, could do this): its
    // import map would replace the bundle's node:module import.
    const hostile = join(dir, "cache", "agent", "deno.json");
    await Deno.writeTextFile(
      hostile,
      JSON.stringify({
        imports: {
          "node:module":
            "data:text/javascript,throw new Error('hijacked by a deno.json above the cache folder')",
        },
      }),
    );
    const { plan, diagnostics } = await compileConfig(p, {
      env,
      locked: true,
      builtins: BUILTINS,
    });
    assert.ok(!hasErrors(diagnostics), JSON.stringify(diagnostics));
    const provider = plan.providers.find((q) => q.name === "echo")!;
    const l = await launchableOf(p, provider, BUILTINS, plan, {
      env,
      offline: true,
    });
    assert.equal(l.configRoot, l.root, "bounded at the release's folder");
    // The kernel's own launch path: the plugin starts and answers, so the
    // hostile import map was not applied.
    const kernel = await openKernel(p, {
      env,
      locked: true,
      builtins: BUILTINS,
    });
    try {
      assert.deepEqual(
        kernel.plan.providers.find((q) => q.name === "echo")?.tools?.map((
          t,
        ) => t.name),
        ["echo"],
      );
    } finally {
      await kernel.close();
    }
  } finally {
    await forge.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a dev_overrides name runs the local plugin, needs no lock entry, and every run says so on stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-dev-" });
  try {
    const notes = new URL("../examples/plugins/notes/", import.meta.url)
      .pathname;
    const env: Record<string, string> = {
      PATH,
      HOME: join(dir, "home"),
      XDG_CACHE_HOME: join(dir, "cache"),
      XDG_CONFIG_HOME: join(dir, "config"),
      // Nothing listens there: a dev override must not touch the forge.
      GITHUB_API_URL: "http://127.0.0.1:1",
      NO_COLOR: "1",
    };
    await Deno.mkdir(join(dir, "config", "agent"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "config", "agent", "config.hcl"),
      `dev_overrides {\n  notes = "${notes}"\n}\n`,
    );
    const p = join(dir, "project");
    await Deno.mkdir(join(p, "notes"), { recursive: true });
    await Deno.writeTextFile(
      join(p, "agent.hcl"),
      `required_providers {
  notes = { source = "github.com/acme/notes", version = "~> 0.2" }
}
provider "notes" {
  root        = "./notes"
  allow_read  = ["./notes"]
  allow_write = ["./notes"]
  allow_net   = ["sync.notes.example:443"]
}
`,
    );
    const out = { stdout: "", stderr: "" };
    const io = {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTerminal: false,
      env,
      cwd: p,
    };
    for (let i = 0; i < 2; i++) {
      out.stderr = "";
      const opened = await openProjectKernel(p, io, { locked: false });
      assert.ok("kernel" in opened, out.stderr);
      await opened.kernel.close();
      assert.match(
        out.stderr,
        /warning: Provider "notes" uses a dev override\. The global config's dev_overrides runs/,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "a Go go-plugin executable released on the forge is locked and launched from the cache",
  ignore: GO_SKIP !== undefined,
  async fn() {
    const { gotool } = await buildGo();
    const dir = await Deno.makeTempDir({ prefix: "ph-agent-forge-go-" });
    const forge = startFakeForge();
    try {
      const m = goManifest();
      const files = [
        {
          path: "plugin.json",
          data: JSON.stringify({
            name: m.name,
            version: m.version,
            category: m.category,
            protocol_version: 1,
            runtime: "executable",
            entrypoint: "gotool",
            capabilities: {},
          }),
        },
        { path: "gotool", data: await Deno.readFile(gotool), mode: 0o755 },
      ];
      forge.repos.set("github:acme/gotool", {
        releases: [{
          tag: "v0.1.0",
          assets: goreleaserAssets("gotool", "0.1.0", {
            [hostPlatform()]: files,
          }),
        }],
      });
      const env: Record<string, string> = {
        PATH,
        HOME: join(dir, "home"),
        XDG_CACHE_HOME: join(dir, "cache"),
        XDG_CONFIG_HOME: join(dir, "config"),
        GITHUB_API_URL: forge.githubApi,
        NO_COLOR: "1",
      };
      const p = join(dir, "project");
      await Deno.mkdir(p);
      await Deno.writeTextFile(
        join(p, "agent.hcl"),
        `required_providers {\n  gotool = { source = "github.com/acme/gotool", version = "~> 0.1" }\n}\n`,
      );
      const out = { stdout: "", stderr: "" };
      const io = {
        stdout: (t: string) => void (out.stdout += t),
        stderr: (t: string) => void (out.stderr += t),
        isTerminal: false,
        env,
        cwd: p,
      };
      assert.equal(await run(["lock"], io), 0, out.stderr);
      const { plan, diagnostics } = await compileConfig(p, {
        env,
        locked: true,
        builtins: BUILTINS,
      });
      assert.ok(!hasErrors(diagnostics), JSON.stringify(diagnostics));
      const provider = plan.providers.find((q) => q.name === "gotool")!;
      const l = await launchableOf(p, provider, BUILTINS, plan, {
        env,
        offline: true,
      });
      assert.equal(l.manifest.runtime, "executable");
      await using host = new PluginHost({ env: { PATH }, cwd: p });
      const plugin = await host.launch({
        manifest: l.manifest,
        entrypoint: l.entrypoint,
        root: l.root!,
        grant: provider.permissions.granted,
        config: {},
        source: provider.source,
        name: provider.name,
      });
      const schema = await plugin.client(ToolService).getSchema({});
      assert.ok(schema.tools.some((t) => t.name === "echo"));
    } finally {
      await forge.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
