/**
 * `agent providers list|outdated|install|search`: the project's forge
 * providers against their forges and the plugin cache.
 *
 * @module
 */
import { resolve } from "node:path";
import type { CliIo } from "./io.ts";
import { parseOptions, usageError } from "./_common.ts";
import { EXIT_USAGE } from "./exit_codes.ts";

/** The `--help` text of `agent providers`. */
export const PROVIDERS_HELP: string =
  `Usage: agent providers <list|outdated|install> [dir] [--json]
       agent providers search [TOPIC] [--forge github.com|gitlab.com] [--json]

The project's forge providers (github.com/... and gitlab.com/... sources):

  list      Each one's source, constraint, locked version, the newest version
            the constraint allows, the newest version published, and whether
            the locked version is in the plugin cache for this platform
  outdated  Those whose newest allowed or newest published version is newer
            than the locked one
  install   Fetch every locked version into the plugin cache
            ($XDG_CACHE_HOME/agent/plugins), verified against the lock file
            (for CI images: later --locked runs need no network)
  search    Repositories carrying TOPIC (default agent-harness-provider) on a
            forge (default github.com), every page up to 10 (1000
            repositories, GitHub's own cap)

Options:
  --json         One JSON document on stdout
  --forge HOST   The forge searched (search)
  -h, --help     Show this help

Exit codes: 0 done, 1 a forge or the cache failed (each row says why),
2 the configuration or lock file cannot be read, 3 usage.
`;

const USAGE =
  "Usage: agent providers <list|outdated|install|search> [dir|TOPIC] [--json]";

/** One row of `list` / `outdated`. */
interface ProviderRow {
  name: string;
  source: string;
  constraint: string;
  locked: string | null;
  newest_allowed: string | null;
  newest_available: string | null;
  cache: "cached" | "missing" | "not locked" | "dev override";
  error?: string;
}

/**
 * Runs `agent providers`.
 *
 * @param args The arguments after `providers`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function providersCommand(
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const parsed = parseOptions(io, USAGE, args, {
    help: { type: "boolean", short: "h" },
    json: { type: "boolean" },
    forge: { type: "string" },
  });
  if (!parsed) return EXIT_USAGE;
  if (parsed.values.help) {
    io.stdout(PROVIDERS_HELP);
    return 0;
  }
  const [verb, arg, ...extra] = parsed.positionals;
  if (extra.length > 0) {
    return usageError(io, USAGE, "too many arguments");
  }
  const json = parsed.values.json ?? false;
  const registry = await import("../../kernel/registry/mod.ts");
  if (verb === "search") {
    const host = parsed.values.forge ?? "github.com";
    if (host !== "github.com" && host !== "gitlab.com") {
      return usageError(
        io,
        USAGE,
        `--forge ${JSON.stringify(host)}: expected github.com or gitlab.com`,
      );
    }
    const topic = arg ?? "agent-harness-provider";
    try {
      const { repositories: found, truncated } = await registry.searchTopic(
        new registry.ForgeClient(host, { env: io.env }),
        topic,
      );
      if (json) {
        io.stdout(
          JSON.stringify({ topic, repositories: found, truncated }) + "\n",
        );
      } else {
        for (const r of found) {
          io.stdout(
            `${r.source}${r.description ? `  ${r.description}` : ""}\n`,
          );
        }
        if (found.length === 0) {
          io.stderr(`No repository has the topic ${topic}\n`);
        } else if (truncated) {
          io.stderr(
            `The first ${found.length} repositories: the search has more pages than are read\n`,
          );
        }
      }
      return 0;
    } catch (err) {
      io.stderr(`agent providers search: ${(err as Error).message}\n`);
      return 1;
    }
  }
  if (verb !== "list" && verb !== "outdated" && verb !== "install") {
    return usageError(
      io,
      USAGE,
      verb === undefined
        ? "expected list, outdated, install or search"
        : `unknown subcommand ${
          JSON.stringify(verb)
        }: expected list, outdated, install or search`,
    );
  }
  const dir = resolve(io.cwd, arg ?? ".");
  const project = await readProject(dir, io);
  if (typeof project === "number") return project;
  const { hostPlatform } = await import("../../config/mod.ts");
  const platform = hostPlatform();
  const rows: ProviderRow[] = [];
  let failed = false;
  for (const rp of project.providers) {
    const entry = project.lock.get(rp.name);
    const row: ProviderRow = {
      name: rp.name,
      source: rp.source,
      constraint: rp.constraintText,
      locked: entry?.version ?? null,
      newest_allowed: null,
      newest_available: null,
      cache: "not locked",
    };
    rows.push(row);
    if (project.overrides.has(rp.name)) {
      row.cache = "dev override";
      continue;
    }
    try {
      if (verb === "install") {
        if (!entry) throw new Error(`not locked: run "agent lock"`);
        const expected = entry.checksums[platform];
        if (expected === undefined) {
          throw new Error(`the lock entry has no checksum for ${platform}`);
        }
        await registry.installForgePlugin(rp.source, entry.version, expected, {
          env: io.env,
          mirror: project.mirror,
          onWarning: (m) => io.stderr(`warning: ${m}\n`),
        });
        row.cache = "cached";
        continue;
      }
      if (entry) {
        row.cache = (await isDir(
            registry.forgeCacheEntry(
              rp.source,
              entry.version,
              platform,
              io.env,
            ),
          ))
          ? "cached"
          : "missing";
      }
      const s = registry.parseForgeSource(rp.source);
      const releases = await new registry.ForgeClient(s.host, { env: io.env })
        .listReleases(s);
      const versions = releases.map((r) => r.version);
      const { selectNewest, parseVersionConstraint } = await import(
        "../../config/mod.ts"
      );
      row.newest_allowed = selectNewest(versions, rp.constraint) ?? null;
      row.newest_available = selectNewest(
        versions,
        parseVersionConstraint(">= 0.0.0").constraint!,
      ) ??
        null;
    } catch (err) {
      row.error = err instanceof Error ? err.message : String(err);
      failed = true;
    }
  }
  const { parseVersionConstraint, satisfies } = await import(
    "../../config/mod.ts"
  );
  const newer = (a: string | null, b: string | null) =>
    a !== null && b !== null && a !== b &&
    satisfies(a, parseVersionConstraint(`> ${b}`).constraint!);
  const shown = verb === "outdated"
    ? rows.filter((r) =>
      r.error !== undefined || r.locked === null ||
      newer(r.newest_allowed, r.locked) || newer(r.newest_available, r.locked)
    )
    : rows;
  if (json) {
    io.stdout(JSON.stringify({ providers: shown }, null, 2) + "\n");
  } else {
    for (const r of shown) {
      io.stdout(
        verb === "install"
          ? `${r.name}  ${r.source}  ${r.locked ?? "-"}  ${
            r.error ? `failed: ${r.error}` : r.cache
          }\n`
          : `${r.name}  ${r.source}  ${r.constraint}  locked ${
            r.locked ?? "-"
          }  allowed ${r.newest_allowed ?? "-"}  available ${
            r.newest_available ?? "-"
          }  ${r.cache}${r.error ? `  (${r.error})` : ""}\n`,
      );
    }
    if (shown.length === 0) {
      io.stderr(
        verb === "outdated"
          ? "Every forge provider is up to date\n"
          : "No forge provider\n",
      );
    }
  }
  return failed ? 1 : 0;
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** The project's forge providers, lock entries, dev overrides and mirror. */
async function readProject(dir: string, io: CliIo): Promise<
  | {
    providers: import("../../config/mod.ts").RequiredProvider[];
    lock: Map<string, import("../../config/mod.ts").LockedProvider>;
    overrides: Set<string>;
    mirror?: import("../../config/mod.ts").RegistryMirror;
  }
  | number
> {
  const config = await import("../../config/mod.ts");
  const inputs = await config.loadConfigInputs(dir, { env: io.env });
  if (inputs.agent === undefined) {
    io.stderr(`agent providers: there is no agent.hcl in ${dir}\n`);
    return 2;
  }
  const { parseHcl } = await import("../../config/hcl/mod.ts");
  let decoded;
  try {
    decoded = config.decodeAgentConfig(
      parseHcl(inputs.agent.text, inputs.agent.path).body,
      [],
    );
  } catch (err) {
    io.stderr(
      `agent providers: cannot read ${inputs.agent.path}: ${
        (err as Error).message
      } (agent check-config says more)\n`,
    );
    return 2;
  }
  let lock = new Map<string, import("../../config/mod.ts").LockedProvider>();
  if (inputs.lock) {
    const parsed = config.parseLockFile(inputs.lock.text, inputs.lock.path);
    if (!parsed.lock) {
      io.stderr(
        `agent providers: ${inputs.lock.path} is invalid (agent check-config says why)\n`,
      );
      return 2;
    }
    lock = parsed.lock.providers;
  }
  const global = inputs.global
    ? config.decodeGlobalConfig(
      inputs.global.text,
      inputs.global.path,
      io.env,
      { requireEnv: false },
    ).config
    : undefined;
  return {
    providers: decoded.requiredProviders.filter((p) =>
      p.sourceKind === "forge"
    ),
    lock,
    overrides: new Set(Object.keys(global?.devOverrides ?? {})),
    ...(global?.registryMirror ? { mirror: global.registryMirror } : {}),
  };
}
