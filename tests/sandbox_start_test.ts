/**
 * What the OS sandbox costs at a plugin's start (README, OS sandbox).
 *
 * The first sandboxed launch does not wait for the bubblewrap probe: it
 * runs the plugin in `bwrap` at once, and only a failed launch probes
 * (a whole `bwrap … true`, which used to delay every first launch). The
 * fallback must never rerun a plugin outside the sandbox because the
 * plugin itself failed: only when bubblewrap itself does not work, and
 * then exactly as the probe-first launch did (`auto` warns once and runs
 * it unsandboxed, `required` refuses and nothing ran). Each of these
 * tests gives its host a `PATH` no other probe in this process used (the
 * probe is cached per `bwrap` and `PATH`), so that its first launch is
 * unprobed.
 *
 * The view holds the host's time zone: without `/etc/localtime`, ICU
 * compared every file of /usr/share/zoneinfo with it at each Deno start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PluginHost, PluginStartError } from "../kernel/mod.ts";
import {
  DEFAULT_BWRAP,
  probeSandbox,
  settledSandboxProbe,
} from "../kernel/process/sandbox.ts";
import { parseManifest, readManifest } from "../plugins/sdk/mod.ts";
import { PATH } from "./_helpers.ts";

const { available } = await probeSandbox();
let fresh = 0;
/** A `PATH` with the same programs as this process's, never probed yet. */
function unprobedPath(): string {
  return `${PATH}:/nonexistent/ph-agent-unprobed-${Deno.pid}-${++fresh}`;
}

function shellManifest(write: string[]) {
  return parseManifest({
    name: "probe-check",
    version: "0.1.0",
    category: "tool",
    protocol_version: 1,
    runtime: "executable",
    entrypoint: "plugin.sh",
    capabilities: { env: [], run: [], read: [], write, net: [] },
  }, "probe-check/plugin.json");
}

/**
 * A plugin folder whose script appends to `out/runs` whether it ran in
 * the sandbox (no `/etc/passwd` in its view) and exits 3; `fn` gets the
 * folder, the out dir and the launch spec.
 */
async function withFailingPlugin(
  fn: (
    dirs: { dir: string; out: string },
    spec: Parameters<PluginHost["launch"]>[0],
  ) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-unprobed-" }),
  );
  try {
    const plugin = join(dir, "plugin");
    const out = join(dir, "out");
    await Deno.mkdir(plugin);
    await Deno.mkdir(out);
    const script = join(plugin, "plugin.sh");
    await Deno.writeTextFile(
      script,
      `#!/bin/sh
if [ -r /etc/passwd ]; then echo outside >> ${out}/runs; else echo sandboxed >> ${out}/runs; fi
exit 3
`,
    );
    await Deno.chmod(script, 0o755);
    await fn({ dir, out }, {
      manifest: shellManifest([out]),
      entrypoint: script,
      grant: { write: [out] },
      root: plugin,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A `bwrap` that exists but cannot build a sandbox, as where user namespaces are off. */
async function brokenBwrap(dir: string): Promise<string> {
  const bwrap = join(dir, "bwrap");
  await Deno.writeTextFile(
    bwrap,
    "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
  );
  await Deno.chmod(bwrap, 0o755);
  return bwrap;
}

Deno.test({
  name: "a first launch runs the plugin in bubblewrap without probing it first",
  ignore: !available,
  fn: async () => {
    const path = unprobedPath();
    const manifest = await readManifest(
      new URL("../plugins/echo/plugin.json", import.meta.url),
    );
    await using host = new PluginHost({ env: { PATH: path } });
    const plugin = await host.launch({
      manifest,
      entrypoint: new URL("../plugins/echo/main.ts", import.meta.url).pathname,
    });
    try {
      // Its process is bubblewrap's, and no probe ran for it.
      assert.equal(
        await Deno.readLink(`/proc/${plugin.pid}/exe`),
        await Deno.realPath("/usr/bin/bwrap").catch(() => "/usr/bin/bwrap"),
      );
      assert.equal(settledSandboxProbe(DEFAULT_BWRAP, path), undefined);
    } finally {
      await plugin.close();
    }
  },
});

Deno.test({
  name:
    "a plugin that fails in a working sandbox before any probe is not rerun outside it",
  ignore: !available,
  fn: async () => {
    await withFailingPlugin(async ({ dir, out }, spec) => {
      const path = unprobedPath();
      const warnings: string[] = [];
      await using host = new PluginHost({
        cwd: dir,
        env: { PATH: path },
        onWarning: (m) => warnings.push(m),
      });
      const err = await host.launch(spec).then(
        () => assert.fail("exits 3"),
        (e) => e,
      );
      assert.ok(err instanceof PluginStartError, String(err));
      assert.equal(err.code, "plugin_exited_before_handshake", err.message);
      // It ran once, in the sandbox; the failure paid for the probe.
      assert.equal(await Deno.readTextFile(join(out, "runs")), "sandboxed\n");
      assert.deepEqual(warnings, []);
      assert.equal(settledSandboxProbe(DEFAULT_BWRAP, path)?.available, true);
    });
  },
});

Deno.test('sandbox = "auto" with a bwrap that cannot build the sandbox: the first launch warns once and runs the plugin outside it', async () => {
  await withFailingPlugin(async ({ dir, out }, spec) => {
    const bwrap = await brokenBwrap(dir);
    const warnings: string[] = [];
    await using host = new PluginHost({
      sandbox: "auto",
      bwrap,
      cwd: dir,
      env: { PATH: unprobedPath() },
      onWarning: (m) => warnings.push(m),
    });
    for (let i = 0; i < 2; i++) {
      const err = await host.launch(spec).then(
        () => assert.fail("exits 3"),
        (e) => e,
      );
      assert.equal(err.code, "plugin_exited_before_handshake", err.message);
    }
    // Once per launch, outside the sandbox (bwrap failed before running it).
    assert.equal(
      await Deno.readTextFile(join(out, "runs")),
      "outside\noutside\n",
    );
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /plugins run without the OS sandbox: ".*bwrap" exited 1: bwrap: setting up uid map: Permission denied/,
    );
  });
});

Deno.test('sandbox = "required" with a bwrap that cannot build the sandbox: the first launch refuses with its reason and nothing ran', async () => {
  await withFailingPlugin(async ({ dir, out }, spec) => {
    const bwrap = await brokenBwrap(dir);
    await using host = new PluginHost({
      sandbox: "required",
      bwrap,
      cwd: dir,
      env: { PATH: unprobedPath() },
      onWarning: () => {},
    });
    const err = await host.launch(spec).then(
      () => assert.fail("refused"),
      (e) => e,
    );
    assert.ok(err instanceof PluginStartError, String(err));
    assert.equal(err.code, "plugin_sandbox_unavailable", err.message);
    assert.match(
      err.message,
      /the OS sandbox is required \(settings \{ sandbox = "required" \}\) but cannot be built: ".*bwrap" exited 1: bwrap: setting up uid map/,
    );
    await assert.rejects(Deno.stat(join(out, "runs")));
  });
});

Deno.test({
  name:
    "a sandboxed plugin sees the host's time zone file, and still not /etc/passwd",
  ignore: !available,
  fn: async () => {
    const host = await Deno.readFile("/etc/localtime").catch(() => undefined);
    await withFailingPlugin(async ({ dir, out }, spec) => {
      const script = spec.entrypoint;
      await Deno.writeTextFile(
        script,
        `#!/bin/sh
cat /etc/localtime > ${out}/tz 2>/dev/null
cat /etc/passwd > ${out}/passwd 2>/dev/null
exit 3
`,
      );
      await using plugins = new PluginHost({
        cwd: dir,
        env: { PATH },
        onWarning: () => {},
      });
      await plugins.launch(spec).then(() => assert.fail("exits 3"), () => {});
      assert.deepEqual(
        await Deno.readFile(join(out, "tz")),
        host ?? new Uint8Array(),
      );
      assert.equal(await Deno.readTextFile(join(out, "passwd")), "");
    });
  },
});
