/**
 * The few POSIX path functions `roots.ts` needs, with `node:path`'s
 * semantics, so that a plugin's SDK does not load Deno's Node
 * compatibility layer for them (measured: about 4.5 MiB RSS per plugin
 * process). POSIX paths only, as every platform our plugins run on
 * (`_posix_path_test.ts` compares each function with `node:path/posix`).
 *
 * @module
 */

/** True for an absolute path. */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/** Resolves `.` and `..` segments and repeated slashes. */
function normalizeSegments(path: string, absolute: boolean): string {
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(seg);
  }
  return out.join("/");
}

/** `path.normalize`. */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  let out = normalizeSegments(path, absolute);
  if (out === "" && !absolute) out = ".";
  if (out !== "" && path.endsWith("/")) out += "/";
  return absolute ? `/${out}` : out;
}

/** `path.join`. */
export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/** `path.resolve`: right to left until absolute, then the working directory. */
export function resolve(...parts: string[]): string {
  let resolved = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(resolved); i--) {
    const p = parts[i]!;
    if (p === "") continue;
    resolved = resolved === "" ? p : `${p}/${resolved}`;
  }
  if (!isAbsolute(resolved)) {
    resolved = resolved === "" ? Deno.cwd() : `${Deno.cwd()}/${resolved}`;
  }
  return `/${normalizeSegments(resolved, true)}`;
}

/** `path.relative`. */
export function relative(from: string, to: string): string {
  const a = resolve(from);
  const b = resolve(to);
  if (a === b) return "";
  const fa = a === "/" ? [] : a.slice(1).split("/");
  const fb = b === "/" ? [] : b.slice(1).split("/");
  let i = 0;
  while (i < fa.length && i < fb.length && fa[i] === fb[i]) i++;
  return [...fa.slice(i).map(() => ".."), ...fb.slice(i)].join("/");
}

/** Drops trailing slashes (a root stays `/`). */
function trimTrailing(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  return path.slice(0, end);
}

/** `path.dirname`. */
export function dirname(path: string): string {
  if (path === "") return ".";
  const p = trimTrailing(path);
  const i = p.lastIndexOf("/");
  if (i === -1) return ".";
  if (i === 0) return "/";
  return p.slice(0, i);
}

/** `path.basename`. */
export function basename(path: string): string {
  const p = trimTrailing(path);
  if (p === "/") return "";
  return p.slice(p.lastIndexOf("/") + 1);
}
