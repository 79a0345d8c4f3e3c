/**
 * Makes a remote Deno module available to a child started with
 * `--cached-only`: importing it once puts its whole module graph (and its
 * npm packages) into the shared Deno cache. Modules imported this way guard
 * their side effects with `import.meta.main`, so the import only caches.
 *
 * @module
 */

const warmed = new Map<string, Promise<void>>();

/** True for specifiers that Deno fetches (not local files). */
export function isRemoteSpecifier(specifier: string): boolean {
  return /^(https?|jsr|npm):/.test(specifier);
}

/**
 * Ensures `specifier`'s module graph is in the Deno cache (remote modules
 * only; local files need nothing).
 *
 * @param specifier A module URL.
 * @returns Resolves once the graph is cached.
 */
export function ensureCached(specifier: string): Promise<void> {
  if (!isRemoteSpecifier(specifier)) return Promise.resolve();
  let p = warmed.get(specifier);
  if (!p) {
    p = import(specifier).then(() => {});
    warmed.set(specifier, p);
    p.catch(() => warmed.delete(specifier));
  }
  return p;
}

function processEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * The npm registry of the running process (`NPM_CONFIG_REGISTRY`), when
 * set. Deno keeps npm packages in its cache under the registry's host, so a
 * child that loads them with `--cached-only` from the same cache must use
 * the same registry.
 *
 * @returns The registry URL, or `undefined` for Deno's default.
 */
export function denoNpmRegistry(): string | undefined {
  return processEnv("NPM_CONFIG_REGISTRY");
}

/**
 * The Deno cache directory of the running process, which children started
 * with `--cached-only` must share (they get it as `DENO_DIR`, since their
 * environment is otherwise empty).
 *
 * @returns The cache directory.
 */
export function denoCacheDir(): string {
  const env = processEnv;
  const explicit = env("DENO_DIR");
  if (explicit) return explicit;
  const xdg = env("XDG_CACHE_HOME");
  if (xdg) return `${xdg}/deno`;
  return `${env("HOME") ?? "/tmp"}/.cache/deno`;
}

/**
 * The `--allow-import` flag that lets a remote module import from its own
 * origin (http(s) modules only; `jsr:` and `npm:` need none).
 *
 * @param specifier The module URL.
 * @returns Zero or one flag.
 */
export function importFlag(specifier: string): string[] {
  if (!/^https?:/.test(specifier)) return [];
  return [`--allow-import=${new URL(specifier).host}`];
}
