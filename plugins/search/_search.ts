/**
 * The search plugin's operations, independent of gRPC: `glob` (files by
 * path pattern) and `grep` (files by content, JavaScript regular
 * expressions), both confined to the configured roots with the filesystem
 * plugin's confinement (`plugins/sdk/roots.ts`), both streaming a
 * `.gitignore`-aware walk and bounded in what they return.
 *
 * @module
 */
import { dirname, isAbsolute, relative } from "node:path";
import {
  closeFile,
  openVerified,
  readAllSync,
  type VerifiedFile,
  VerifiedTree,
  verifyDirectory,
} from "../sdk/confined_fs.ts";
import {
  confine,
  type ConfinedPath,
  isInside,
  PathError,
  type ResolvedRoot,
  resolveRoots,
} from "../sdk/roots.ts";
import {
  checkArgumentTypes,
  classify,
  ToolFailure,
} from "../sdk/tool_failure.ts";
import { compileGlob, type Glob, GlobError, globMatches } from "./_glob.ts";
import { mapOrdered, Slicer, walk } from "./_walk.ts";
import { requiredLiterals, RipgrepFilter, ripgrepWalk } from "./_ripgrep.ts";

/** Paths `glob` returns when no `limit` is given. */
export const GLOB_DEFAULT_LIMIT = 1000;
/** Entries (paths, lines or counts) `grep` returns when no `limit` is given. */
export const GREP_DEFAULT_LIMIT = 500;
/** The largest `limit` either accepts. */
export const MAX_LIMIT = 10_000;
/** Bytes of `content` either returns at most. */
export const MAX_OUTPUT_BYTES: number = 64 * 1024;
/** Characters of one line `grep` shows before cutting it. */
export const MAX_LINE_CHARS = 500;
/** Files larger than this are not searched by `grep`. */
export const MAX_FILE_BYTES: number = 16 * 1024 * 1024;
/** Files `grep` reads at once (measured best of 1, 4, 8 and 16). */
export const READ_CONCURRENCY = 16;
/** Context lines `grep` shows at most on each side of a match. */
export const MAX_CONTEXT = 20;

/** What every operation gets: the configured roots and the call. */
export interface SearchInput {
  /** Configured roots (absolute, or relative to the working directory). */
  roots: readonly string[];
  /** The tool arguments. */
  args: Readonly<Record<string, unknown>>;
  /** `CallContext.working_directory`. */
  workingDirectory: string;
  /** Aborts when the call is cancelled. */
  signal?: AbortSignal;
  /**
   * The `rg` program `grep` may run as a prefilter (`_ripgrep.ts`), when
   * the plugin is granted it; absent: the JavaScript path alone.
   */
  ripgrep?: string;
}

/** File types `grep`'s `type` argument knows, by their extensions. */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ["c", "h"],
  cpp: ["cpp", "cc", "cxx", "hpp", "hh", "hxx", "h"],
  css: ["css", "scss", "sass", "less"],
  go: ["go"],
  hcl: ["hcl", "tf"],
  html: ["html", "htm"],
  java: ["java"],
  js: ["js", "mjs", "cjs", "jsx"],
  json: ["json", "jsonc"],
  kotlin: ["kt", "kts"],
  md: ["md", "markdown"],
  php: ["php"],
  proto: ["proto"],
  py: ["py", "pyi"],
  rb: ["rb"],
  rust: ["rs"],
  sh: ["sh", "bash", "zsh"],
  sql: ["sql"],
  swift: ["swift"],
  toml: ["toml"],
  ts: ["ts", "mts", "cts", "tsx"],
  txt: ["txt"],
  yaml: ["yaml", "yml"],
};

type ArgType = "string" | "number" | "bool";

const ARGUMENTS: Record<string, Record<string, ArgType>> = {
  glob: { pattern: "string", path: "string", limit: "number", sort: "string" },
  grep: {
    pattern: "string",
    path: "string",
    glob: "string",
    type: "string",
    output_mode: "string",
    case_insensitive: "bool",
    multiline: "bool",
    context: "number",
    before: "number",
    after: "number",
    limit: "number",
  },
};

/**
 * Checks a call's arguments: `pattern` present, no unknown keys, types
 * right.
 *
 * @param tool `glob` or `grep`.
 * @param args The arguments.
 * @throws {ToolFailure} `invalid_arguments`, naming every problem.
 */
export function checkArguments(
  tool: string,
  args: Readonly<Record<string, unknown>>,
): void {
  const spec = ARGUMENTS[tool];
  if (!spec) {
    throw new ToolFailure(
      "invalid_arguments",
      `Unknown tool "${tool}": this provider has glob and grep`,
    );
  }
  checkArgumentTypes(tool, args, spec, ["pattern"]);
}

function integer(
  args: Readonly<Record<string, unknown>>,
  key: string,
  min: number,
  max: number,
): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new ToolFailure(
      "invalid_arguments",
      `"${key}" must be an integer from ${min} to ${max}, got ${
        JSON.stringify(v)
      }`,
    );
  }
  return v;
}

function oneOf<T extends string>(
  args: Readonly<Record<string, unknown>>,
  key: string,
  values: readonly T[],
  fallback: T,
): T {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  if (!values.includes(v as T)) {
    throw new ToolFailure(
      "invalid_arguments",
      `"${key}" must be one of ${values.map((x) => `"${x}"`).join(", ")}, got ${
        JSON.stringify(v)
      }`,
    );
  }
  return v as T;
}

function glob(pattern: string, key: string): Glob {
  try {
    return compileGlob(pattern);
  } catch (err) {
    if (err instanceof GlobError) {
      throw new ToolFailure("invalid_arguments", `"${key}": ${err.message}`);
    }
    throw err;
  }
}

/** Where a search starts: a directory (or a file) inside a root. */
interface Start {
  target: ConfinedPath;
  isDir: boolean;
  /** The real root it lies in (its `.gitignore` files apply). */
  root: string;
  /** The call's resolved roots (every file read is verified against them). */
  roots: ResolvedRoot[];
}

async function start(input: SearchInput, action: string): Promise<Start> {
  const given = input.args.path;
  let roots: ResolvedRoot[];
  let target: ConfinedPath;
  try {
    roots = await resolveRoots(input.roots, input.workingDirectory);
    let path = typeof given === "string" && given !== "" ? given : undefined;
    if (path === undefined) {
      if (input.workingDirectory && isAbsolute(input.workingDirectory)) {
        path = input.workingDirectory;
      } else if (roots.length === 1) path = roots[0]!.absolute;
      else {
        throw new ToolFailure(
          "invalid_arguments",
          `${action}: the call has no absolute working directory and there are several roots; give "path"`,
        );
      }
    }
    target = await confine(path, input.workingDirectory, roots);
  } catch (err) {
    throw classify(err, action);
  }
  if (!target.exists) {
    throw new ToolFailure(
      "not_found",
      `${action}: "${target.absolute}" does not exist`,
    );
  }
  // At the time of use: a file is opened and verified when it is read; a
  // directory must still be a directory at its real path inside a root
  // (the walk checks every directory again as it lists it).
  let isDir: boolean;
  try {
    const info = await Deno.lstat(target.real);
    if (info.isSymlink) {
      throw new PathError(
        "permission_denied",
        `"${target.absolute}" became a symbolic link while it was being used`,
      );
    }
    isDir = info.isDirectory;
    if (isDir) {
      const dir = verifyDirectory(target.real, roots, target.absolute);
      if (dir.real !== target.real) {
        throw new PathError(
          "permission_denied",
          `"${target.absolute}" changed while it was being used`,
        );
      }
    }
  } catch (err) {
    throw classify(err, `${action}: "${target.absolute}"`);
  }
  const root = roots.filter((r) => isInside(r.real, target.real))
    .sort((a, b) => a.real.length - b.real.length)[0]!;
  return { target, isDir, root: root.real, roots };
}

/**
 * Whether a `.gitignore` file lies in a directory between the root and
 * the start (the start excluded): the walk applies those, `rg` does not
 * read them.
 */
function hasIgnoreFilesAbove(start: Start): boolean {
  const rel = relative(start.root, start.target.real);
  if (rel === "" || rel.startsWith("..")) return false;
  for (let d = dirname(start.target.real);; d = dirname(d)) {
    try {
      Deno.lstatSync(`${d}/.gitignore`);
      return true;
    } catch {
      // none here
    }
    if (d === start.root || dirname(d) === d) return false;
  }
}

/** A path as the model sees it: relative to the working directory when inside it. */
function display(real: string, start: Start, workingDirectory: string): string {
  // Report paths under the lexical form of the start (what the user gave).
  const lexical = start.target.absolute +
    real.slice(start.target.real.length);
  if (workingDirectory && isAbsolute(workingDirectory)) {
    const rel = relative(workingDirectory, lexical);
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return rel;
  }
  return lexical;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Collects output lines up to a count and a byte cap. */
class Output {
  readonly #lines: string[] = [];
  #bytes = 0;
  #full = false;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds a line; false once the output is full (nothing more is kept). */
  push(line: string): boolean {
    if (this.#full) return false;
    const size = line.length + 1;
    if (
      this.#lines.length >= this.#limit || this.#bytes + size > MAX_OUTPUT_BYTES
    ) {
      this.#full = true;
      return false;
    }
    this.#lines.push(line);
    this.#bytes += size;
    return true;
  }

  /** True once a line was refused. */
  get full(): boolean {
    return this.#full;
  }

  /** Lines kept. */
  get length(): number {
    return this.#lines.length;
  }

  text(): string {
    return this.#lines.join("\n");
  }
}

/** The result payload of `glob`. */
export interface GlobResult {
  /** Matching paths, one per line, then a truncation marker if cut. */
  content: string;
  /** Paths shown. */
  shown: number;
  /** Paths that matched. */
  total: number;
  /** True when matches were left out. */
  truncated: boolean;
  /** Keeps the result a JSON object. */
  [key: string]: string | number | boolean;
}

/**
 * `glob`: the files below `path` (default: the working directory) whose
 * path relative to it matches `pattern`, sorted by path (walk order:
 * depth first, names sorted) or, with `sort: "modified"`, newest first.
 *
 * @param input The roots and the call.
 * @returns The result payload.
 * @throws {ToolFailure} Classified.
 */
export async function globFiles(input: SearchInput): Promise<GlobResult> {
  checkArguments("glob", input.args);
  const pattern = glob(String(input.args.pattern), "pattern");
  const limit = integer(input.args, "limit", 1, MAX_LIMIT) ??
    GLOB_DEFAULT_LIMIT;
  const sort = oneOf(input.args, "sort", ["path", "modified"], "path");
  const action = `Cannot glob "${pattern.source}"`;
  const from = await start(input, action);
  if (!from.isDir) {
    throw new ToolFailure(
      "invalid_arguments",
      `${action}: "path" must be a directory, "${from.target.absolute}" is a file`,
    );
  }
  // Start below the pattern's literal prefix, when it exists.
  let dir = from.target.real;
  let prefix = "";
  if (pattern.base !== "") {
    const candidate = `${dir}/${pattern.base}`;
    let isDir = false;
    try {
      isDir = (await Deno.lstat(candidate)).isDirectory;
    } catch {
      // missing: nothing matches
    }
    if (!isDir) return { content: "", shown: 0, total: 0, truncated: false };
    dir = candidate;
    prefix = `${pattern.base}/`;
  }
  const matches: { path: string; mtime: number }[] = [];
  const out = new Output(limit);
  let total = 0;
  const slicer = new Slicer();
  try {
    for (
      const e of walk(dir, {
        ...(pattern.depth !== Infinity ? { maxDepth: pattern.depth } : {}),
        ignoreFrom: from.root,
        roots: from.roots,
        ...(input.signal ? { signal: input.signal } : {}),
      })
    ) {
      const pause = slicer.tick();
      if (pause) await pause;
      if (!globMatches(pattern, prefix + e.rel)) continue;
      total++;
      if (sort === "path") {
        out.push(display(e.path, from, input.workingDirectory));
      } else matches.push({ path: e.path, mtime: 0 });
    }
  } catch (err) {
    throw classify(err, action);
  }
  if (input.signal?.aborted) {
    throw new ToolFailure("cancelled", `Cancelled: ${action}`);
  }
  if (sort === "modified") {
    await Promise.all(matches.map(async (m) => {
      try {
        // lstat: a file swapped for a symbolic link shows no time from outside
        m.mtime = (await Deno.lstat(m.path)).mtime?.getTime() ?? 0;
      } catch {
        m.mtime = 0;
      }
    }));
    matches.sort((a, b) =>
      b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    );
    for (const m of matches) {
      if (!out.push(display(m.path, from, input.workingDirectory))) break;
    }
  }
  let content = out.text();
  const shown = out.length;
  if (shown < total) {
    content += `${content ? "\n" : ""}[truncated: ${
      plural(total - shown, "more file")
    } not shown (${total} matched); narrow the pattern or the path${
      shown === limit && limit < MAX_LIMIT ? `, or raise "limit"` : ""
    }]`;
  }
  return { content, shown, total, truncated: shown < total };
}

/** The result payload of `grep`. */
export interface GrepResult {
  /** The output (see the tool description), then a truncation marker if cut. */
  content: string;
  /** Files with at least one match. */
  files: number;
  /** Matching lines over all files (`content` and `count` modes). */
  matches: number;
  /** Entries shown (paths, lines or counts). */
  shown: number;
  /** True when entries were left out. */
  truncated: boolean;
  /** Keeps the result a JSON object. */
  [key: string]: string | number | boolean;
}

type Mode = "files_with_matches" | "content" | "count";

/** One file's matching lines (0-based), or undefined when it does not match. */
interface FileMatch {
  path: string;
  lines?: string[];
  matched: number[];
}

/** Line start offsets of a text. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  return starts;
}

function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.endsWith("\r")) lines[i] = l.slice(0, -1);
  }
  return lines;
}

function cut(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${
    line.slice(0, MAX_LINE_CHARS)
  } … [line truncated: ${line.length} characters]`;
}

/**
 * `grep`: files below `path` whose content matches the JavaScript regular
 * expression `pattern`, with `glob`/`type` file filters, three output
 * modes and context lines. Binary files (a NUL byte), files over
 * {@linkcode MAX_FILE_BYTES} and ignored files are skipped.
 *
 * @param input The roots and the call.
 * @returns The result payload.
 * @throws {ToolFailure} Classified; an invalid regular expression is
 * `invalid_arguments` with the engine's message.
 */
export async function grepFiles(input: SearchInput): Promise<GrepResult> {
  checkArguments("grep", input.args);
  const args = input.args;
  const source = String(args.pattern);
  if (source === "") {
    throw new ToolFailure("invalid_arguments", `"pattern" must not be empty`);
  }
  const mode = oneOf<Mode>(
    args,
    "output_mode",
    ["files_with_matches", "content", "count"],
    "files_with_matches",
  );
  const multiline = args.multiline === true;
  const flags = `${args.case_insensitive === true ? "i" : ""}m${
    multiline ? "s" : ""
  }`;
  let lineRe: RegExp;
  let textRe: RegExp;
  try {
    lineRe = new RegExp(source, flags);
    textRe = new RegExp(source, `${flags}g`);
  } catch (err) {
    throw new ToolFailure(
      "invalid_arguments",
      `"pattern" is not a valid JavaScript regular expression: ${
        (err as Error).message
      }`,
    );
  }
  const context = integer(args, "context", 0, MAX_CONTEXT);
  const before = integer(args, "before", 0, MAX_CONTEXT) ?? context ?? 0;
  const after = integer(args, "after", 0, MAX_CONTEXT) ?? context ?? 0;
  if (mode !== "content" && (before > 0 || after > 0)) {
    throw new ToolFailure(
      "invalid_arguments",
      `"context", "before" and "after" need "output_mode": "content"`,
    );
  }
  const limit = integer(args, "limit", 1, MAX_LIMIT) ?? GREP_DEFAULT_LIMIT;
  const filter = typeof args.glob === "string" && args.glob !== ""
    ? glob(args.glob, "glob")
    : undefined;
  let extensions: Set<string> | undefined;
  if (typeof args.type === "string" && args.type !== "") {
    const exts = FILE_TYPES[args.type];
    if (!exts) {
      throw new ToolFailure(
        "invalid_arguments",
        `"type" ${JSON.stringify(args.type)} is unknown; known types: ${
          Object.keys(FILE_TYPES).join(", ")
        }`,
      );
    }
    extensions = new Set(exts);
  }
  const action = `Cannot grep for ${JSON.stringify(source)}`;
  const from = await start(input, action);
  const signal = input.signal;
  // Every file searched below a directory start is opened through one
  // tree: each directory verified once, each file against it (lstat calls
  // instead of two realpath calls per file: less CPU where files share a
  // directory, as many where each lies in its own).
  let tree: VerifiedTree | undefined;
  if (from.isDir) {
    try {
      tree = new VerifiedTree(
        from.target.real,
        from.roots,
        from.target.absolute,
      );
    } catch (err) {
      throw classify(err, `${action}: "${from.target.absolute}"`);
    }
  }

  const wanted = (rel: string): boolean => {
    if (extensions) {
      const dot = rel.lastIndexOf(".");
      if (dot === -1 || dot < rel.lastIndexOf("/")) return false;
      if (!extensions.has(rel.slice(dot + 1).toLowerCase())) return false;
    }
    return !filter || globMatches(filter, rel, true);
  };

  function* files(): Generator<string> {
    if (!from.isDir) {
      yield from.target.real;
      return;
    }
    for (
      const e of walk(from.target.real, {
        ignoreFrom: from.root,
        roots: from.roots,
        ...(signal ? { signal } : {}),
      })
    ) {
      if (wanted(e.rel)) yield e.path;
    }
  }

  /** Reads and searches one file. */
  const decoder = new TextDecoder();
  // The reads below are synchronous: slice them, so that a long search
  // still answers cancellation and other calls.
  const slicer = new Slicer();
  const search = async (path: string): Promise<FileMatch | undefined> => {
    const pause = slicer.tick();
    if (pause) await pause;
    if (signal?.aborted) return undefined;
    let bytes: Uint8Array | undefined;
    let file: VerifiedFile | undefined;
    try {
      // Opened, then verified to be a regular file in a verified directory
      // inside a root, and read only through the handle: a file (or a
      // directory on its way) swapped for a symbolic link to outside after
      // the walk listed it is refused here, never read.
      file = tree ? tree.open(path) : openVerified(path, from.roots, path);
      if (file.size > MAX_FILE_BYTES) return undefined;
      // Synchronous: measured faster than a read through the event loop
      // for many small files.
      bytes = readAllSync(file, MAX_FILE_BYTES);
    } catch {
      return undefined; // vanished, unreadable or swapped: skipped (grep -s)
    } finally {
      if (file) closeFile(file);
    }
    if (bytes === undefined) return undefined; // grew past the limit
    if (bytes.indexOf(0) !== -1) return undefined; // binary
    const text = decoder.decode(bytes);
    textRe.lastIndex = 0;
    if (!textRe.test(text)) return undefined;
    const matched: number[] = [];
    if (multiline) {
      const starts = lineStarts(text);
      const seen = new Set<number>();
      textRe.lastIndex = 0;
      for (let m = textRe.exec(text); m !== null; m = textRe.exec(text)) {
        const first = lineOf(starts, m.index);
        const end = m.index + Math.max(m[0].length - 1, 0);
        const last = lineOf(starts, end);
        for (let l = first; l <= last; l++) {
          if (!seen.has(l)) {
            seen.add(l);
            matched.push(l);
          }
        }
        if (m[0].length === 0) textRe.lastIndex++;
        if (mode === "files_with_matches") break;
      }
      matched.sort((a, b) => a - b);
      const lines = mode === "content" ? splitLines(text) : undefined;
      if (lines) {
        while (matched.length && matched.at(-1)! >= lines.length) {
          matched.pop();
        }
      }
      return { path, matched, ...(lines ? { lines } : {}) };
    }
    const lines = splitLines(text);
    for (let i = 0; i < lines.length; i++) {
      if (lineRe.test(lines[i]!)) {
        matched.push(i);
        if (mode === "files_with_matches") break;
      }
    }
    if (matched.length === 0) return undefined; // matched only across lines
    return { path, matched, ...(mode === "content" ? { lines } : {}) };
  };

  /**
   * A result kept for later: in content mode, only the lines it can show
   * (matches and their context), so that waiting results never hold
   * whole files.
   */
  const trim = (m: FileMatch | undefined): FileMatch | undefined => {
    if (!m?.lines) return m;
    const all = m.lines;
    const kept: string[] = new Array(all.length);
    for (const l of m.matched) {
      const last = Math.min(all.length - 1, l + after);
      for (let c = Math.max(0, l - before); c <= last; c++) kept[c] = all[c]!;
    }
    return { ...m, lines: kept };
  };

  /**
   * With `rg`: `rg` walks (as the walk would) and names the files holding
   * a required literal, or every file when the pattern has none; the
   * JavaScript path then opens, verifies and searches only those. When
   * `rg` cannot walk for the walk (`.gitignore` files above the start) or
   * fails, the walk's files, of which only those `rg` finds a required
   * literal in are searched (all of them when `rg` cannot answer).
   */
  const early = new Map<string, Promise<FileMatch | undefined>>();
  const candidates = async (): Promise<Iterable<string>> => {
    const literals = input.ripgrep && from.isDir
      ? requiredLiterals(source, args.case_insensitive === true)
      : undefined;
    if (input.ripgrep && from.isDir && !hasIgnoreFilesAbove(from)) {
      const base = from.target.real === "/" ? "" : from.target.real;
      // Each file is searched as soon as rg names it (while rg walks on);
      // the results wait, trimmed to what they can show, until rg's
      // whole answer puts them in walk order.
      const rels = await ripgrepWalk({
        program: input.ripgrep,
        start: from.target.real,
        ...(literals ? { literals } : {}),
        caseInsensitive: args.case_insensitive === true,
        // No maxFileBytes: rg's --max-filesize costs a stat of every file
        // of the tree (30% more CPU for rg on 10k small files), while the
        // bound is kept anyway where a file is read: search() skips a file
        // over MAX_FILE_BYTES by the size of its open handle, before
        // reading it, and readAllSync stops past it.
        onFile: (rel) => {
          if (!wanted(rel)) return;
          const path = `${base}/${rel}`;
          early.set(path, search(path).then(trim));
        },
        ...(signal ? { signal } : {}),
      });
      if (rels) return rels.filter(wanted).map((rel) => `${base}/${rel}`);
      early.clear(); // rg failed: nothing it named counts
    }
    if (!literals) return files();
    const filter = new RipgrepFilter({
      program: input.ripgrep!,
      literals,
      caseInsensitive: args.case_insensitive === true,
      ...(signal ? { signal } : {}),
    });
    const all: string[] = [];
    const walkSlicer = new Slicer();
    for (const f of files()) {
      all.push(f);
      filter.add(f);
      const pause = walkSlicer.tick();
      if (pause) await pause;
    }
    const found = await filter.matches();
    return found ? all.filter((f) => found.has(f)) : all;
  };

  const out = new Output(limit);
  let fileCount = 0;
  let matchCount = 0;
  let leftLines = 0;
  let leftFiles = 0;
  try {
    const paths = await candidates();
    const found = (path: string) => early.get(path) ?? search(path);
    for await (const m of mapOrdered(paths, READ_CONCURRENCY, found)) {
      if (signal?.aborted) break;
      if (!m || m.matched.length === 0) continue;
      fileCount++;
      matchCount += m.matched.length;
      const shown = display(m.path, from, input.workingDirectory);
      if (mode === "files_with_matches") {
        if (!out.push(shown)) leftFiles++;
        continue;
      }
      if (mode === "count") {
        if (!out.push(`${shown}:${m.matched.length}`)) leftFiles++;
        continue;
      }
      // content: path:line:text, context as path-line-text, groups split by --
      const lines = m.lines!;
      const show = new Map<number, boolean>(); // line → is a match
      for (const l of m.matched) {
        for (let c = Math.max(0, l - before); c < l; c++) {
          if (!show.has(c)) show.set(c, false);
        }
        show.set(l, true);
        for (let c = l + 1; c <= Math.min(lines.length - 1, l + after); c++) {
          if (!show.has(c)) show.set(c, false);
        }
      }
      const order = [...show.keys()].sort((a, b) => a - b);
      let prev = -2;
      let leftHere = 0;
      for (const l of order) {
        const isMatch = show.get(l)!;
        if (out.full) {
          if (isMatch) leftHere++;
          continue;
        }
        if ((before > 0 || after > 0) && out.length > 0 && l !== prev + 1) {
          if (!out.push("--")) {
            if (isMatch) leftHere++;
            continue;
          }
        }
        const sep = isMatch ? ":" : "-";
        if (!out.push(`${shown}${sep}${l + 1}${sep}${cut(lines[l]!)}`)) {
          if (isMatch) leftHere++;
          continue;
        }
        prev = l;
      }
      if (leftHere > 0) {
        leftLines += leftHere;
        if (leftHere === m.matched.length) leftFiles++;
      }
    }
  } catch (err) {
    throw classify(err, action);
  }
  if (signal?.aborted) {
    throw new ToolFailure("cancelled", `Cancelled: ${action}`);
  }
  let content = out.text();
  const truncated = leftFiles > 0 || leftLines > 0;
  if (truncated) {
    const what = mode === "content"
      ? `${plural(leftLines, "more matching line")}${
        leftFiles > 0 ? ` (${plural(leftFiles, "more file")})` : ""
      }`
      : plural(leftFiles, "more file");
    content += `${content ? "\n" : ""}[truncated: ${what} not shown (${
      plural(fileCount, "file")
    } matched${
      mode === "files_with_matches" ? "" : `, ${plural(matchCount, "line")}`
    }); narrow the pattern, "path", "glob" or "type"${
      limit < MAX_LIMIT ? `, or raise "limit"` : ""
    }]`;
  }
  return {
    content,
    files: fileCount,
    matches: matchCount,
    shown: out.length,
    truncated,
  };
}
