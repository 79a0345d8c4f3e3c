/**
 * Whether a path exists, for the kernel's cache folders.
 *
 * @module
 */

/**
 * Whether `path` exists (a link counts, whatever it points to).
 *
 * @param path The path.
 * @returns Whether `lstat` finds it.
 */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
