/**
 * A Deno plugin from a release runs with the same permission scoping as a
 * builtin, but Deno does not check statically analysable imports against
 * `--allow-read` (runtime-notes.md: `import("/etc/hostname", { with: {
 * type: "text" } })` reads the file with no permission), and a remote or
 * `npm:` import would run code that no checksum covers. So before a
 * release's Deno plugin enters the cache, its module graph is listed
 * without touching the network and every import must stay inside the
 * unpacked folder (or be a `node:` builtin).
 *
 * @module
 */

import { dirname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findDenoConfig } from "../../config/mod.ts";
import { ForgeError } from "./forge_api.ts";

interface InfoDependency {
  specifier?: string;
  code?: { specifier?: string };
  type?: { specifier?: string };
}

interface InfoModule {
  specifier: string;
  error?: string;
  dependencies?: InfoDependency[];
}

/**
 * Checks that the module graph of a Deno plugin's entrypoint stays inside
 * its folder: every module a local file under `root`, every import a
 * relative or absolute path under `root` or a `node:` builtin. Runs `deno
 * info --json --no-remote --no-npm --no-lock` (so nothing is fetched), with
 * the release's own `deno.json` as its config when there is one (the
 * nearest from the entrypoint's folder up to `root`, as at launch), else
 * none.
 *
 * @param root The unpacked plugin folder.
 * @param entrypoint The manifest's entrypoint (relative to `root`).
 * @param label What to call the plugin in errors (source, version, platform).
 * @throws {ForgeError} Naming the importing module and the import that
 * leaves the folder, or why the graph cannot be listed.
 */
export async function checkDenoBundleGraph(
  root: string,
  entrypoint: string,
  label: string,
): Promise<void> {
  const top = resolve(root);
  const entry = resolve(top, entrypoint);
  if (!inside(top, entry)) {
    throw new ForgeError(
      `${label}: its plugin.json entrypoint "${entrypoint}" is outside the release's folder`,
    );
  }
  // The same search as the launch's (kernel/plugin/_command_line.ts):
  // from the entrypoint's folder up to the release's folder, never above.
  const found = await findDenoConfig(dirname(entry), { stopAt: top });
  const config = found ? ["--config", found] : ["--no-config"];
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "info",
      "--json",
      "--no-remote",
      "--no-npm",
      "--no-lock",
      ...config,
      entry,
    ],
    cwd: top,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    clearEnv: false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new ForgeError(
      `${label}: cannot list the module graph of ${entrypoint}: ${
        new TextDecoder().decode(out.stderr).trim().split("\n")[0] ||
        `deno info exited ${out.code}`
      }`,
    );
  }
  let modules: InfoModule[];
  try {
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules?: InfoModule[];
    };
    modules = info.modules ?? [];
  } catch {
    throw new ForgeError(
      `${label}: cannot read the module graph of ${entrypoint}`,
    );
  }
  const name = (specifier: string): string => {
    const p = localPath(specifier);
    return p !== undefined && inside(top, p) ? relative(top, p) : specifier;
  };
  const refuse = (from: string, to: string, why: string): never => {
    throw new ForgeError(
      `${label}: ${
        name(from)
      } imports "${to}", ${why}. A Deno plugin from a release must be one bundle whose imports stay inside its folder (bundle it with "deno bundle"); it is not installed.`,
    );
  };
  for (const m of modules) {
    const path = localPath(m.specifier);
    if (path === undefined || !inside(top, path)) {
      // Reached only through an import, which the loop below names.
      continue;
    }
    for (const d of m.dependencies ?? []) {
      for (const s of [d.code?.specifier, d.type?.specifier]) {
        if (s === undefined || s.startsWith("node:")) continue;
        const p = localPath(s);
        if (p === undefined) {
          refuse(
            m.specifier,
            d.specifier ?? s,
            "which is not a file of the release (remote and npm: modules are not covered by its checksum)",
          );
        } else if (!inside(top, p)) {
          refuse(
            m.specifier,
            d.specifier ?? s,
            `which is outside the release's folder (${p})`,
          );
        }
      }
    }
  }
  for (const m of modules) {
    if (m.error !== undefined) {
      throw new ForgeError(
        `${label}: module ${name(m.specifier)} cannot be loaded: ${
          m.error.split("\n")[0]
        }`,
      );
    }
    if (m.specifier.startsWith("node:")) continue;
    const p = localPath(m.specifier);
    if (p === undefined || !inside(top, p)) {
      throw new ForgeError(
        `${label}: its module graph reaches ${m.specifier}, outside the release's folder; it is not installed`,
      );
    }
  }
}

function localPath(specifier: string): string | undefined {
  if (!specifier.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(specifier);
  } catch {
    return undefined;
  }
}

function inside(root: string, path: string): boolean {
  const r = relative(root, path);
  return r === "" || (r.split(/[\\/]/)[0] !== ".." && !isAbsolute(r));
}
