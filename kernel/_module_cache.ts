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
