/**
 * `grep`'s use of ripgrep: when the plugin may run `rg` (the optional
 * `run` grant `"rg?"` of its manifest, `allow_run = ["rg"]`), `rg` walks
 * the start directory as `walk` of `_walk.ts` would ({@linkcode RG_WALK_FLAGS},
 * {@linkcode ripgrepWalk}) and names the files that can contain a match;
 * only those are opened, verified and searched by the JavaScript path.
 * Where `rg` cannot walk for the walk (a `.gitignore` between the root
 * and the start), the walk chooses the files and `rg` only rules some out
 * ({@linkcode RipgrepFilter}). Either way every result is produced by the
 * JavaScript path, so matching, binary and size limits, decoding and the
 * output bounds are identical by construction, and `rg`'s answer, a list
 * of names, is verified name by name before anything is read.
 *
 * A file may be skipped only when no match is possible in it, so `rg`
 * searches for what every match must contain: {@linkcode requiredLiterals}
 * reads the JavaScript pattern and returns, per top-level alternative, one
 * literal run the alternative cannot match without (`needle` in
 * `\bneedle\w*`). `rg` searches for them as fixed strings, in raw bytes
 * (`--encoding none`, no BOM sniffing), binary files included (`--text`),
 * case-insensitively only for ASCII literals (JavaScript's `i` without `u`
 * folds only ASCII with ASCII). A literal holding U+FFFD, a lone
 * surrogate, NUL or a line break is not used (U+FFFD also stands for
 * invalid bytes after decoding). `rg` is never given the regular
 * expression itself. A pattern with no such literal (`\d+`, `a|.b`) makes
 * `rg` list every file; as a prefilter, it is not run.
 *
 * The prefilter passes the files to `rg` as arguments, in batches of at
 * most {@linkcode RG_BATCH_BYTES}, each started as soon as the walk has
 * filled it, so `rg` (its own process, on another core) searches while
 * the walk goes on.
 *
 * @module
 */

/** Bytes of paths passed to one `rg` process (Linux allows 2 MiB in all). */
export const RG_BATCH_BYTES = 128 * 1024;

const QUANTIFIER_START = new Set(["*", "+", "?", "{"]);
const QUANTIFIER_REGEXP = /^\{[0-9]+(,[0-9]*)?\}/;

/** The index after the `]` that closes the class opened at `i`. */
function skipClass(source: string, i: number): number {
  // JavaScript without `u`: the first unescaped `]` closes (`[]` is empty).
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === "\\") j++;
    else if (source[j] === "]") return j + 1;
  }
  return source.length;
}

/** The index after the `)` that closes the group opened at `i`. */
function skipGroup(source: string, i: number): number {
  let depth = 0;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (c === "\\") j++;
    else if (c === "[") j = skipClass(source, j) - 1;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j + 1;
  }
  return source.length;
}

/** The top-level alternatives of a pattern (split at `|` outside groups and classes). */
function alternatives(source: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") i = skipClass(source, i) - 1;
    else if (c === "(") i = skipGroup(source, i) - 1;
    else if (c === "|") {
      out.push(source.slice(from, i));
      from = i + 1;
    }
  }
  out.push(source.slice(from));
  return out;
}

function usable(c: string, caseInsensitive: boolean): boolean {
  const code = c.charCodeAt(0);
  if (code === 0 || c === "\n" || c === "\r" || c === "\uFFFD") return false;
  if (code >= 0xd800 && code <= 0xdfff) return false;
  return !caseInsensitive || code < 0x80;
}

/** The longest literal run every match of one alternative contains. */
function longestLiteral(branch: string, caseInsensitive: boolean): string {
  let best = "";
  let run = "";
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < branch.length;) {
    const c = branch[i]!;
    let literal: string | undefined;
    let next = i + 1;
    if (c === "\\") {
      const e = branch[i + 1];
      if (e === undefined) break;
      next = i + 2;
      if (/[0-9A-Za-z]/.test(e)) {
        // \d, \b, \x41, \u0041, \cJ, \1, \k<name>: not a literal, and
        // neither is its operand.
        end();
        const rest = branch.slice(next);
        if (e === "x" && /^[0-9A-Fa-f]{2}/.test(rest)) next += 2;
        else if (e === "u" && /^[0-9A-Fa-f]{4}/.test(rest)) next += 4;
        else if (e === "c" && /^[A-Za-z]/.test(rest)) next += 1;
        else if (/[0-9]/.test(e)) next += /^[0-9]*/.exec(rest)![0].length;
        else if (e === "k" && rest.startsWith("<")) {
          const close = rest.indexOf(">");
          next += close < 0 ? rest.length : close + 1;
        }
        i = next;
        continue;
      }
      literal = e; // \. \\ \/ \( …: the character itself
    } else if (c === "(") {
      end();
      i = skipGroup(branch, i);
      continue;
    } else if (c === "[") {
      end();
      i = skipClass(branch, i);
      continue;
    } else if (c === "{") {
      // A {n}, {n,} or {n,m} quantifier as a whole (its digits are not
      // literals); otherwise a literal brace, skipped.
      end();
      const q = QUANTIFIER_REGEXP.exec(branch.slice(i));
      i = q ? i + q[0].length : next;
      continue;
    } else if (
      c === "." || c === "^" || c === "$" || c === ")" || c === "]" ||
      c === "}" || QUANTIFIER_START.has(c)
    ) {
      end();
      i = next;
      continue;
    } else literal = c;
    // A quantified character is optional or repeated: not part of the run.
    if (
      QUANTIFIER_START.has(branch[next] ?? "") ||
      !usable(literal, caseInsensitive)
    ) {
      end();
    } else run += literal;
    i = next;
  }
  end();
  return best;
}

/**
 * What every match of a JavaScript pattern (flags `m`, optionally `i` and
 * `s`, never `u`) contains: one literal per top-level alternative, or
 * undefined when some alternative has none usable.
 *
 * @param source The pattern.
 * @param caseInsensitive The `i` flag (then only ASCII literals are used).
 * @returns The literals, or undefined.
 */
export function requiredLiterals(
  source: string,
  caseInsensitive: boolean,
): string[] | undefined {
  const out: string[] = [];
  for (const branch of alternatives(source)) {
    const literal = longestLiteral(branch, caseInsensitive);
    if (literal === "") return undefined;
    if (!out.includes(literal)) out.push(literal);
  }
  return out;
}

/** Options of {@linkcode RipgrepFilter}. */
export interface RipgrepFilterOptions {
  /** The `rg` program (a name on `PATH` or a path). */
  program: string;
  /** From {@linkcode requiredLiterals}. */
  literals: readonly string[];
  /** Match the literals case-insensitively. */
  caseInsensitive: boolean;
  /** Kills the `rg` processes. */
  signal?: AbortSignal;
}

/**
 * Feeds files to `rg` in batches while a walk produces them, then tells
 * which contain a literal.
 */
export class RipgrepFilter {
  readonly #o: RipgrepFilterOptions;
  readonly #runs: Promise<string[] | undefined>[] = [];
  #batch: string[] = [];
  #bytes = 0;

  /**
   * Creates the filter.
   *
   * @param options The program, the literals and the signal.
   */
  constructor(options: RipgrepFilterOptions) {
    this.#o = options;
  }

  /**
   * Adds a file (an absolute path); starts `rg` on a full batch.
   *
   * @param path The file.
   */
  add(path: string): void {
    this.#batch.push(path);
    this.#bytes += new TextEncoder().encode(path).length + 1;
    if (this.#bytes >= RG_BATCH_BYTES) this.#flush();
  }

  /**
   * Waits for every batch.
   *
   * @returns The files that contain a literal, or undefined when `rg`
   * could not answer for every batch (then nothing may be skipped).
   */
  async matches(): Promise<Set<string> | undefined> {
    this.#flush();
    const found = new Set<string>();
    for (const run of await Promise.all(this.#runs)) {
      if (run === undefined) return undefined;
      for (const f of run) found.add(f);
    }
    return found;
  }

  #flush(): void {
    if (this.#batch.length === 0) return;
    const files = this.#batch;
    this.#batch = [];
    this.#bytes = 0;
    const run = this.#run(files);
    // Settled in matches(); never an unhandled rejection meanwhile.
    run.catch(() => {});
    this.#runs.push(run);
  }

  async #run(files: string[]): Promise<string[] | undefined> {
    const o = this.#o;
    const args = [
      "--no-config",
      "--files-with-matches",
      "--null",
      "--no-messages",
      "--text",
      "--encoding",
      "none",
      "--fixed-strings",
      ...(o.caseInsensitive ? ["--ignore-case"] : ["--case-sensitive"]),
      ...o.literals.flatMap((l) => ["-e", l]),
      "--",
      ...files,
    ];
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(o.program, {
        args,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
        ...(o.signal ? { signal: o.signal } : {}),
      }).output();
    } catch {
      return undefined; // not installed, not granted, or killed
    }
    // 0: some matched; 1: none matched; anything else: an error or a
    // signal, after which its answer may be incomplete.
    if (out.code === 1) return [];
    if (out.code !== 0) return undefined;
    const text = new TextDecoder().decode(out.stdout);
    return text.split("\0").filter((p) => p !== "");
  }
}

/**
 * Whether this process may run `program` (granted by Deno's permissions).
 *
 * @param program The program name.
 * @returns True when granted.
 */
export function canRun(program: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command: program })
      .state === "granted";
  } catch {
    return false;
  }
}

/**
 * The flags that make `rg`'s walk the walk of `_walk.ts`: hidden files
 * searched; `.gitignore` files applied in every directory (inside a git
 * repository or not), each below its own directory, and none above the
 * start (the caller checks there is none between the root and the
 * start); no `.ignore`/`.rgignore`, `.git/info/exclude` or global
 * excludes; `.git` directories skipped; links not followed (`rg`'s
 * default: a linked directory is not entered and a linked file met in a
 * walk is not searched); no configuration file.
 */
export const RG_WALK_FLAGS: readonly string[] = [
  "--no-config",
  "--hidden",
  "--no-ignore-dot",
  "--no-ignore-exclude",
  "--no-ignore-global",
  "--no-ignore-parent",
  "--no-require-git",
  "--glob",
  "!.git/",
  "--no-messages",
  "--null",
];

/**
 * Walk order, on paths relative to the start (`/`-separated): depth
 * first, a directory's files before its subdirectories, names compared by
 * UTF-16 code units (the order `walk` of `_walk.ts` yields).
 *
 * @param a A relative path.
 * @param b Another.
 * @returns Negative when `a` comes first, positive when `b` does, 0 when
 * equal.
 */
export function compareWalkOrder(a: string, b: string): number {
  let i = 0;
  for (;;) {
    const ea = a.indexOf("/", i);
    const eb = b.indexOf("/", i);
    const sa = ea === -1 ? a.slice(i) : a.slice(i, ea);
    const sb = eb === -1 ? b.slice(i) : b.slice(i, eb);
    if (sa !== sb) {
      // A file of this directory comes before its subdirectories.
      if ((ea === -1) !== (eb === -1)) return ea === -1 ? -1 : 1;
      return sa < sb ? -1 : 1;
    }
    if (ea === -1 || eb === -1) return ea === eb ? 0 : ea === -1 ? -1 : 1;
    i = ea + 1;
  }
}

/** Options of {@linkcode ripgrepWalk}. */
export interface RipgrepWalkOptions {
  /** The `rg` program (a name on `PATH` or a path). */
  program: string;
  /** The directory to walk: an absolute real path. */
  start: string;
  /**
   * From {@linkcode requiredLiterals}: only files holding one of them
   * (raw bytes, binary files included); absent: every file.
   */
  literals?: readonly string[];
  /** Match the literals case-insensitively. */
  caseInsensitive?: boolean;
  /**
   * Leave out files larger than this many bytes. `rg` then stats every
   * file it walks (about 30% more CPU on a tree of small files), so a
   * caller that bounds the size where it reads anyway does better without.
   */
  maxFileBytes?: number;
  /**
   * Called with each file (relative to `start`) as soon as `rg` names it,
   * in `rg`'s order, so the caller can work while `rg` walks on; the
   * answer still decides (a file named before `rg` fails is not in it).
   */
  onFile?: (rel: string) => void;
  /** Kills `rg`. */
  signal?: AbortSignal;
}

/**
 * `rg` walks `start` as `walk` of `_walk.ts` would (see
 * {@linkcode RG_WALK_FLAGS}) and lists its files, or only those holding a
 * literal.
 *
 * What comes back is only a list of names: the caller opens, verifies
 * (real path inside a root, not a link) and searches each itself, so
 * nothing `rg` read is ever returned as such, and a name `rg` reached
 * through a directory swapped for a link during its walk is refused then.
 *
 * @param options The program, the start, the literals and the signal.
 * @returns The files, relative to `start` and in walk order; undefined
 * when `rg` could not answer (not installed, not granted, killed, or any
 * error on the way, after which its answer may be incomplete).
 */
export async function ripgrepWalk(
  options: RipgrepWalkOptions,
): Promise<string[] | undefined> {
  const o = options;
  const args = [
    ...RG_WALK_FLAGS,
    ...(o.maxFileBytes !== undefined
      ? ["--max-filesize", String(o.maxFileBytes)]
      : []),
    ...(o.literals
      ? [
        "--files-with-matches",
        "--text",
        "--encoding",
        "none",
        "--fixed-strings",
        ...(o.caseInsensitive ? ["--ignore-case"] : ["--case-sensitive"]),
        ...o.literals.flatMap((l) => ["-e", l]),
      ]
      : ["--files"]),
    "--",
    o.start,
  ];
  const prefix = o.start.endsWith("/") ? o.start : `${o.start}/`;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const rels: string[] = [];
  let foreign = false;
  /** One NUL-terminated name. */
  const take = (bytes: Uint8Array): void => {
    let path: string;
    try {
      path = decoder.decode(bytes);
    } catch {
      return; // not UTF-8: Deno cannot name the file, the walk skips it too
    }
    if (!path.startsWith(prefix)) {
      foreign = true; // not rg's own answer
      return;
    }
    const rel = path.slice(prefix.length);
    rels.push(rel);
    o.onFile?.(rel);
  };
  let status: Deno.CommandStatus;
  try {
    const child = new Deno.Command(o.program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      ...(o.signal ? { signal: o.signal } : {}),
    }).spawn();
    let rest: Uint8Array = new Uint8Array(0);
    for await (const chunk of child.stdout) {
      let data = chunk;
      if (rest.length > 0) {
        data = new Uint8Array(rest.length + chunk.length);
        data.set(rest);
        data.set(chunk, rest.length);
      }
      let from = 0;
      for (let end = data.indexOf(0); end !== -1; end = data.indexOf(0, from)) {
        take(data.subarray(from, end));
        from = end + 1;
      }
      rest = data.slice(from);
    }
    if (rest.length > 0) take(rest);
    status = await child.status;
  } catch {
    return undefined; // not installed, not granted, or killed
  }
  // 0: some found; 1: none; anything else: an error or a signal.
  if (status.code === 1) return [];
  if (status.code !== 0 || foreign) return undefined;
  return rels.sort(compareWalkOrder);
}
