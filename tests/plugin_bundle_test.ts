/**
 * Bundled first-party plugins (`kernel/process/plugin_bundle.ts`): the
 * first launch runs the module graph and builds the bundle, later
 * launches run the verified bundle (under the OS sandbox, which then shows
 * the bundle's folder instead of the plugin's and the SDK's folders), and
 * an entry that does not match its record, or whose plugin files no longer
 * have the key's checksum, is refused. One bundle of `builtin/echo` is
 * built into a temporary cache and shared by the steps.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { computeArtifactChecksum } from "../config/checksum.ts";
import { readManifest } from "../contract/manifest.ts";
import { denoRuntimeEnv } from "../contract/runtime_env.ts";
import { PluginHost } from "../kernel/plugin/host.ts";
import {
  DenoCommandLauncher,
  type LaunchedProcess,
  type ProcessCommand,
  type ProcessLauncher,
} from "../kernel/process/launcher.ts";
import {
  BUNDLE_ENTRY,
  BUNDLE_RECORD,
  BundleBuildError,
  type BundleSource,
  PluginBundles,
  pluginBundlesOf,
} from "../kernel/process/plugin_bundle.ts";
import { denoCacheDir } from "../kernel/process/_module_cache.ts";
import { probeSandbox } from "../kernel/process/sandbox.ts";
import { invoke, PATH, REPO } from "./_helpers.ts";
import {
  agent,
  jsonLines,
  makeProject,
  READ_TURN,
  README,
} from "./_agent_project.ts";

const MANIFEST = `${REPO}/plugins/echo/plugin.json`;
const ENTRY = `${REPO}/plugins/echo/main.ts`;

/** Starts processes as the real launcher does, keeping each command. */
class RecordingLauncher implements ProcessLauncher {
  readonly commands: ProcessCommand[] = [];
  #real = new DenoCommandLauncher();
  start(command: ProcessCommand): LaunchedProcess {
    this.commands.push(command);
    return this.#real.start(command);
  }
}

Deno.test("pluginBundlesOf() is off with AGENT_PLUGIN_BUNDLES=off and on otherwise", () => {
  assert.deepEqual(pluginBundlesOf({ AGENT_PLUGIN_BUNDLES: "off" }), {});
  assert.ok(pluginBundlesOf({}).bundles instanceof PluginBundles);
});

Deno.test("a builtin runs from its module graph until its bundle is built, then from the verified bundle; a changed entry is refused", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "ph-bundles-" });
  const work = await Deno.makeTempDir({ prefix: "ph-bundles-run-" });
  try {
    const manifest = await readManifest(MANIFEST);
    const { checksum } = await computeArtifactChecksum(MANIFEST, manifest);
    const source: BundleSource = {
      name: "echo",
      checksum,
      entrypoint: ENTRY,
      manifestPath: MANIFEST,
    };
    const warnings: string[] = [];
    const bundles = new PluginBundles({
      denoDir: denoCacheDir(),
      root,
      onWarning: (m) => warnings.push(m),
    });
    const sandboxed = (await probeSandbox()).available;
    const launcher = new RecordingLauncher();
    const spec = {
      manifest,
      entrypoint: ENTRY,
      bundle: { name: "echo", checksum, manifestPath: MANIFEST },
    };
    const dir = bundles.entryDir(source);
    const backup = join(work, "backup");
    const restore = async () => {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await copyDir(backup, dir);
    };

    await t.step(
      "the first launch runs the module graph, and close() waits for the bundle it builds",
      async () => {
        assert.equal(await bundles.find(source), undefined);
        const host = new PluginHost({
          env: { PATH },
          cwd: work,
          bundles,
          launcher,
          sandbox: sandboxed ? "auto" : "off",
        });
        try {
          const plugin = await host.launch(spec);
          assert.equal(plugin.path, ENTRY);
          assert.deepEqual(await invoke(plugin, "echo", { text: "hi" }), {
            text: "hi",
          });
        } finally {
          await host.close();
        }
        const found = await bundles.find(source);
        assert.ok(found, "the bundle was built when the host closed");
        assert.equal(found.entry, join(dir, BUNDLE_ENTRY));
        const record = JSON.parse(
          await Deno.readTextFile(join(dir, BUNDLE_RECORD)),
        );
        assert.equal(record.name, "echo");
        assert.equal(record.checksum, checksum);
        assert.ok(record.files[BUNDLE_ENTRY]);
        await copyDir(dir, backup);
      },
    );

    await t.step(
      "a later launch runs the bundle, and the sandbox shows its folder instead of the plugin's and the SDK's",
      async () => {
        launcher.commands.length = 0;
        await using host = new PluginHost({
          env: { PATH },
          cwd: work,
          bundles,
          launcher,
          sandbox: sandboxed ? "auto" : "off",
        });
        const plugin = await host.launch(spec);
        assert.equal(plugin.path, join(dir, BUNDLE_ENTRY));
        assert.deepEqual(await invoke(plugin, "echo", { text: "bundled" }), {
          text: "bundled",
        });
        const args = launcher.commands[0]!.args.join(" ");
        // The bundle needs no deno.json: none is searched above its folder.
        assert.ok(args.includes("--no-config"), args);
        if (sandboxed) {
          assert.ok(args.includes(`--ro-bind-try ${dir} ${dir}`), args);
          assert.ok(!args.includes(`${REPO}/plugins`), args);
          assert.ok(!args.includes(`${REPO}/proto`), args);
        }
      },
    );

    await t.step(
      "an entry with a changed file is refused, removed, and the plugin runs from its module graph",
      async () => {
        const entry = join(dir, BUNDLE_ENTRY);
        await Deno.writeTextFile(entry, "\n// tampered\n", { append: true });
        warnings.length = 0;
        await using host = new PluginHost({
          env: { PATH },
          cwd: work,
          bundles: new PluginBundles({
            denoDir: denoCacheDir(),
            root,
            onWarning: (m) => warnings.push(m),
            // No rebuild in this step: a build fails at once.
            deno: "/nonexistent/deno",
          }),
          sandbox: sandboxed ? "auto" : "off",
        });
        const plugin = await host.launch(spec);
        assert.equal(plugin.path, ENTRY);
        assert.equal(warnings.length, 1);
        assert.match(
          warnings[0]!,
          new RegExp(
            `The cached bundle of builtin/echo at ${dir} is refused: "main.js" differs from its record`,
          ),
        );
        await assert.rejects(Deno.lstat(dir), Deno.errors.NotFound);
      },
    );

    await t.step(
      "an entry with an extra file or another checksum in its record is refused",
      async () => {
        await restore();
        assert.ok(await bundles.find(source));
        await Deno.writeTextFile(join(dir, "extra.js"), "export {};\n");
        warnings.length = 0;
        assert.equal(await bundles.find(source), undefined);
        assert.match(warnings[0]!, /"extra.js" is not in its record/);
        await restore();
        const recordPath = join(dir, BUNDLE_RECORD);
        const record = JSON.parse(await Deno.readTextFile(recordPath));
        record.checksum = `sha256:${"0".repeat(64)}`;
        await Deno.writeTextFile(recordPath, JSON.stringify(record));
        warnings.length = 0;
        assert.equal(await bundles.find(source), undefined);
        assert.match(warnings[0]!, /names echo sha256:0{64}, not echo sha256:/);
      },
    );

    await t.step(
      "build() refuses to key a bundle on a checksum its plugin's files do not have",
      async () => {
        const wrong = { ...source, checksum: `sha256:${"1".repeat(64)}` };
        await assert.rejects(
          bundles.build(wrong),
          (err: unknown) =>
            err instanceof BundleBuildError &&
            /the files of builtin\/echo have checksum sha256:[0-9a-f]{64}, not sha256:1{64}/
              .test(err.message),
        );
        await assert.rejects(
          Deno.lstat(bundles.entryDir(wrong)),
          Deno.errors.NotFound,
        );
        const left = [...Deno.readDirSync(join(dir, ".."))].map((e) => e.name);
        assert.ok(!left.some((n) => n.startsWith(".tmp-")), left.join(" "));
      },
    );

    await t.step(
      "a build that deno bundle refuses is recorded, skipped by later launches, and retried by agent lock's retry",
      async () => {
        // A deno whose `bundle` fails as a graph esbuild cannot resolve does.
        const fake = join(work, "deno");
        await Deno.writeTextFile(
          fake,
          `#!/bin/sh\nif [ "$1" = bundle ]; then echo 'error: Could not find package "x"' >&2; exit 1; fi\nexec "${Deno.execPath()}" "$@"\n`,
        );
        await Deno.chmod(fake, 0o755);
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        const failing = new PluginBundles({
          denoDir: denoCacheDir(),
          root,
          deno: fake,
        });
        await assert.rejects(
          failing.build(source),
          (err: unknown) =>
            err instanceof BundleBuildError && err.final &&
            /deno bundle exited 1: error: Could not find package "x"/.test(
              err.message,
            ),
        );
        assert.match(
          await Deno.readTextFile(`${dir}.failed`),
          /Could not find package/,
        );
        assert.equal(await failing.build(source), undefined);
        await assert.rejects(
          failing.build(source, { retry: true }),
          BundleBuildError,
        );
      },
    );

    await t.step(
      "a build lock whose process is gone is taken over; one held by a live process is honoured",
      async () => {
        await Deno.remove(`${dir}.failed`).catch(() => {});
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        const gone = new Deno.Command("true").spawn();
        await gone.status;
        await Deno.writeTextFile(`${dir}.lock`, `${gone.pid}\n`);
        const built = await bundles.build(source);
        assert.ok(built, "the dead builder's lock did not block the build");
        assert.equal(await exists(`${dir}.lock`), false);
        await Deno.remove(dir, { recursive: true });
        await Deno.writeTextFile(`${dir}.lock`, `${Deno.pid}\n`);
        try {
          assert.equal(await bundles.build(source), undefined);
        } finally {
          await Deno.remove(`${dir}.lock`);
        }
        await restore();
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});

/** What a build needs of this process's environment (TLS roots, proxies). */
function buildEnv(): Record<string, string> {
  return { ...denoRuntimeEnv(Deno.env.toObject()) };
}

/**
 * The files of `dir` that have no V8 code cache entry in the Deno cache
 * `denoDir` (Deno 2's `v8_code_cache_v2`, keyed by module specifier).
 */
function withoutCodeCache(denoDir: string, dir: string): string[] {
  const db = new DatabaseSync(join(denoDir, "v8_code_cache_v2"), {
    readOnly: true,
  });
  try {
    const q = db.prepare("SELECT 1 FROM codecache WHERE specifier = ?");
    return [...Deno.readDirSync(dir)]
      .filter((e) => e.isFile && e.name.endsWith(".js"))
      .map((e) => e.name)
      .filter((name) => !q.get(pathToFileURL(join(dir, name)).href));
  } finally {
    db.close();
  }
}

Deno.test("a bundle's build leaves a V8 code cache entry for each of its files, builtin/tui's external included", async () => {
  // builtin/tui's bundle keeps `react-devtools-core` external: an import
  // the warm-up could not resolve, so it compiled nothing and every
  // sandboxed start of the TUI compiled its bundle again.
  const root = await Deno.makeTempDir({ prefix: "ph-bundles-warm-" });
  try {
    const warnings: string[] = [];
    const bundles = new PluginBundles({
      denoDir: denoCacheDir(),
      root,
      env: buildEnv(),
      onWarning: (m) => warnings.push(m),
    });
    for (const name of ["tui", "echo"]) {
      const manifestPath = `${REPO}/plugins/${name}/plugin.json`;
      const manifest = await readManifest(manifestPath);
      const { checksum } = await computeArtifactChecksum(
        manifestPath,
        manifest,
      );
      const built = await bundles.build({
        name,
        checksum,
        manifestPath,
        entrypoint: `${REPO}/plugins/${name}/main.ts`,
      });
      assert.ok(built, `builtin/${name} was bundled`);
      assert.deepEqual(warnings, []);
      assert.deepEqual(
        withoutCodeCache(denoCacheDir(), built.dir),
        [],
        `files of builtin/${name}'s bundle without a code cache entry`,
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a warm-up that cannot compile the bundle is reported", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-bundles-warm-" });
  const work = await Deno.makeTempDir({ prefix: "ph-bundles-warm-run-" });
  try {
    // A deno that bundles, but whose run of the warm-up fails as one that
    // cannot resolve an import does.
    const fake = join(work, "deno");
    await Deno.writeTextFile(
      fake,
      `#!/bin/sh\nif [ "$1" = run ]; then echo 'error: Import "x" not a dependency' >&2; exit 1; fi\nexec "${Deno.execPath()}" "$@"\n`,
    );
    await Deno.chmod(fake, 0o755);
    const warnings: string[] = [];
    const bundles = new PluginBundles({
      denoDir: denoCacheDir(),
      root,
      deno: fake,
      env: buildEnv(),
      onWarning: (m) => warnings.push(m),
    });
    const manifest = await readManifest(MANIFEST);
    const { checksum } = await computeArtifactChecksum(MANIFEST, manifest);
    const built = await bundles.build({
      name: "echo",
      checksum,
      manifestPath: MANIFEST,
      entrypoint: ENTRY,
    });
    assert.ok(built, "the bundle itself is kept");
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(
      warnings[0]!,
      /^The V8 code cache of builtin\/echo's bundle at .* was not written \(error: Import "x" not a dependency\); the plugin compiles its bundle at every start$/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("a build whose download fails is not recorded as failed for good, and launches skip it for an hour", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-bundles-fetch-" });
  const work = await Deno.makeTempDir({ prefix: "ph-bundles-fetch-run-" });
  try {
    const fake = join(work, "deno");
    await Deno.writeTextFile(
      fake,
      `#!/bin/sh\nif [ "$1" = bundle ]; then printf 'error: Failed loading https://npm.invalid/x for package "x"\\n\\nCaused by:\\n    error sending request for url (https://npm.invalid/x): client error (Connect)\\n' >&2; exit 1; fi\nexec "${Deno.execPath()}" "$@"\n`,
    );
    await Deno.chmod(fake, 0o755);
    const bundles = new PluginBundles({
      denoDir: denoCacheDir(),
      root,
      deno: fake,
    });
    const manifest = await readManifest(MANIFEST);
    const { checksum } = await computeArtifactChecksum(MANIFEST, manifest);
    const source: BundleSource = {
      name: "echo",
      checksum,
      manifestPath: MANIFEST,
      entrypoint: ENTRY,
    };
    await assert.rejects(
      bundles.build(source),
      (err: unknown) =>
        err instanceof BundleBuildError && !err.final && err.download &&
        /deno bundle exited 1: error: Failed loading https:\/\/npm.invalid\/x for package "x" error sending request/
          .test(err.message),
    );
    const dir = bundles.entryDir(source);
    assert.equal(await exists(`${dir}.failed`), false);
    // Launches skip the build for an hour, then try again; agent lock at once.
    assert.equal(await bundles.build(source), undefined);
    const hourAgo = new Date(Date.now() - 61 * 60_000);
    await Deno.utime(`${dir}.offline`, hourAgo, hourAgo);
    await assert.rejects(bundles.build(source), BundleBuildError);
    await assert.rejects(
      bundles.build(source, { retry: true }),
      BundleBuildError,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    await Deno.copyFile(join(from, e.name), join(to, e.name));
  }
}

Deno.test("agent lock bundles the project's builtins into the Deno cache, and agent run then works from them", async () => {
  await using project = await makeProject({
    turns: [READ_TURN, { expect: "Hello from the project", text: "Done." }],
    files: { "README.md": README },
  });
  const lock = await agent(project, ["lock"]);
  assert.equal(lock.code, 0, lock.err);
  // The real cache: another test may have built them first, so the
  // postcondition is checked, not the lines printed.
  const bundles = new PluginBundles({ denoDir: denoCacheDir() });
  const entries: string[] = [];
  for (const name of ["scripted", "filesystem"]) {
    const manifestPath = `${REPO}/plugins/${name}/plugin.json`;
    const manifest = await readManifest(manifestPath);
    const { checksum } = await computeArtifactChecksum(manifestPath, manifest);
    const found = await bundles.find({
      name,
      checksum,
      manifestPath,
      entrypoint: `${REPO}/plugins/${name}/main.ts`,
    });
    assert.ok(found, `builtin/${name} has a verified bundle after agent lock`);
    entries.push(found.entry);
  }
  const run = await agent(project, ["run", "Summarise", "--json"]);
  assert.equal(run.code, 0, run.err);
  const events = jsonLines(run.out);
  const result = events.find((e) => e.type === "tool_result");
  assert.ok(result, run.out);
  assert.match(JSON.stringify(result), /Hello from the project/);
  assert.ok(entries.every((e) => e.endsWith("main.js")));
});
