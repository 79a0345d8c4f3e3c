/**
 * `agent lock [dir]`: writes `.agent/agent.lock.hcl` for the providers
 * available locally (`lockConfig` of `config/lock.ts` does the work); its arguments,
 * its help and its report on stderr.
 *
 * @module
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILTINS } from "../../plugins/builtin.ts";
import type { CliIo } from "./io.ts";
import { parseOptions, usageError } from "./_common.ts";
import { EXIT_USAGE } from "./exit_codes.ts";

/** The `--help` text of `agent lock`. */
export const LOCK_HELP: string =
  `Usage: agent lock [dir] [--accept-widening] [--upgrade[=NAME]] [--platform OS_ARCH]...

Writes dir/.agent/agent.lock.hcl (dir defaults to the current directory) for
every provider available locally (builtin/<name> and path sources): its
version, the checksum of its artifact, its capability envelope and its config
schema, and the tools its manifest declares with their kinds and risk
classes. Forge providers (github.com/... and gitlab.com/... sources) are
resolved through the forge's Releases API: the locked version is kept while
it satisfies the constraint, else the newest satisfying release is chosen;
the checksum of every platform in the release's checksum file is recorded
and the host's archive is verified and cached. dev_overrides names are never
written. An unchanged project is written byte for byte the same. The bundle
of each first-party plugin the configuration uses is then built into the Deno
cache (unless AGENT_PLUGIN_BUNDLES=off), so that it starts from it.

A new version of a locked plugin whose capability envelope, tools or risk
classes are wider than the locked ones is refused, listing each widened
item, unless --accept-widening is given; the lock file then records what was
accepted (accepted_widening) and agent plan shows it.

Options:
  --accept-widening  Record versions that widen the locked envelope, tools
                     or risk classes
  --upgrade[=NAME]   Move forge providers (or only NAME; repeatable) to the
                     newest version their constraints allow
  --platform OS_ARCH Record only these platforms' checksums (repeatable,
                     e.g. linux_amd64); default: every published platform
  -h, --help         Show this help
`;

const USAGE =
  "Usage: agent lock [dir] [--accept-widening] [--upgrade[=NAME]] [--platform OS_ARCH]...";

/**
 * Runs `agent lock`.
 *
 * @param args The arguments after `lock`.
 * @param io Streams, environment, directory.
 * @returns The exit code: 0 written or up to date, 1 the configuration is
 * invalid (nothing written), 3 usage error.
 */
export async function lockCommand(
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  // `--upgrade` alone upgrades every forge provider; `--upgrade=NAME`
  // only NAME (a bare value would be taken for the directory).
  let upgrade: boolean | string[] = false;
  const rest: string[] = [];
  for (const a of args) {
    if (a === "--upgrade") upgrade = true;
    else if (a.startsWith("--upgrade=")) {
      const name = a.slice("--upgrade=".length);
      if (name === "") return usageError(io, USAGE, "--upgrade= needs a name");
      if (upgrade !== true) upgrade = [...(upgrade || []), name];
    } else rest.push(a);
  }
  const parsed = parseOptions(io, USAGE, rest, {
    help: { type: "boolean", short: "h" },
    "accept-widening": { type: "boolean" },
    platform: { type: "string", multiple: true },
  });
  if (!parsed) return EXIT_USAGE;
  if (parsed.values.help) {
    io.stdout(LOCK_HELP);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    return usageError(io, USAGE, "expected at most one directory");
  }
  const dir = resolve(io.cwd, parsed.positionals[0] ?? ".");
  const { lockConfig } = await import("../../config/lock.ts");
  const { renderHuman } = await import("../../config/render.ts");
  const { forgeLockResolver } = await import("../../kernel/registry/mod.ts");
  const given = parsed.values.platform as string | string[] | undefined;
  const platforms = given === undefined
    ? undefined
    : Array.isArray(given)
    ? given
    : [given];
  for (const p of platforms ?? []) {
    if (!/^[a-z0-9]+_[a-z0-9]+$/.test(p)) {
      return usageError(
        io,
        USAGE,
        `--platform ${JSON.stringify(p)} is not <os>_<arch> (e.g. linux_amd64)`,
      );
    }
  }
  const r = await lockConfig(dir, {
    builtins: BUILTINS,
    env: io.env,
    acceptWidening: parsed.values["accept-widening"] ?? false,
    upgrade,
    forge: forgeLockResolver({
      env: io.env,
      ...(platforms ? { platforms } : {}),
      onWarning: (m) => io.stderr(`warning: ${m}\n`),
    }),
  });
  if (!r.ok) {
    io.stderr(
      renderHuman({
        exitCode: 1,
        plan: undefined,
        diagnostics: r.diagnostics,
        sources: r.sources,
      }).replace(/\n[^\n]*\n$/, "\n"),
    );
    io.stderr(
      `Cannot write the lock file: ${
        r.diagnostics.filter((d) => d.severity === "error").length
      } error(s).\n`,
    );
    return 1;
  }
  for (const c of r.changes) {
    const what = c.status === "locked"
      ? "locked"
      : c.status === "unchanged"
      ? "unchanged"
      : "kept (not resolvable here)";
    io.stderr(`  ${c.name}: ${c.version ?? "-"} from ${c.source}, ${what}\n`);
    for (const w of c.widening ?? []) {
      io.stderr(`    accepted widening: ${w}\n`);
    }
  }
  io.stderr(
    r.changed ? `Wrote ${r.path}\n` : `${r.path} is up to date\n`,
  );
  await bundleBuiltins(r.changes.map((c) => c.source), io);
  return 0;
}

/**
 * Builds the missing bundle of each first-party plugin in `sources`
 * (`kernel/process/plugin_bundle.ts`), retrying one that failed before; a
 * failure is a warning (the plugin then runs from its module graph).
 * `.ci/run` also builds every builtin's bundle through it
 * (`tests/_ci_bundles.ts`).
 *
 * @param sources Provider sources; only `builtin/NAME` ones are bundled.
 * @param io Where progress and warnings go (`io.env` holds the bundle switch).
 */
export async function bundleBuiltins(
  sources: readonly string[],
  io: CliIo,
): Promise<void> {
  const { pluginBundlesOf } = await import(
    "../../kernel/process/plugin_bundle.ts"
  );
  const { bundles } = pluginBundlesOf(io.env);
  if (!bundles) return;
  const { readManifest } = await import("../../contract/manifest.ts");
  const { computeArtifactChecksum } = await import(
    "../../config/checksum.ts"
  );
  const names = new Set(
    sources.filter((s) => s.startsWith("builtin/")).map((s) => s.slice(8)),
  );
  for (const name of names) {
    if (!BUILTINS.names.includes(name)) continue;
    const url = BUILTINS.manifestUrl(name);
    // A package run from a registry: its plugins are remote modules.
    if (url.protocol !== "file:") continue;
    try {
      const manifestPath = fileURLToPath(url);
      const manifest = await readManifest(manifestPath);
      if (manifest.runtime !== "deno") continue;
      const { checksum } = await computeArtifactChecksum(
        manifestPath,
        manifest,
      );
      const source = {
        name,
        checksum,
        manifestPath,
        entrypoint: fileURLToPath(new URL(manifest.entrypoint, url)),
      };
      if (await bundles.find(source)) continue;
      const built = await bundles.build(source, { retry: true });
      io.stderr(
        built
          ? `  builtin/${name}: bundled into ${built.dir}\n`
          : `  builtin/${name}: another process is bundling it\n`,
      );
    } catch (err) {
      io.stderr(
        `warning: Cannot bundle builtin/${name}, which runs from its module graph: ${
          err instanceof Error ? err.message : String(err)
        }\n`,
      );
    }
  }
}
