/**
 * Checks the layering of the tree from the module graph, in the spirit of
 * denoland/std's `_tools/check_circular_package_dependencies.ts`.
 *
 * It asks `deno info --json` for the graph of every product module (every
 * module a rule in {@linkcode LAYER_RULES} covers, minus tests, benchmarks,
 * `*_testing.ts` helpers, `testdata/` and whatever `deno.json` excludes from
 * the tree or from publishing), maps each module to its folder, and reports:
 *
 * 1. an import in a direction the rules table forbids, and
 * 2. every folder cycle: a strongly connected component of two or more
 *    folders in the folder-level import graph, where every directory is its
 *    own node (so `config/` ⇄ `config/hcl/` is a cycle). Each edge of the
 *    cycle is shown once, by its first import.
 *
 * Type-only imports and re-exports count, and so do dynamic imports with a
 * literal specifier. `npm:`, `node:`, `jsr:` and remote imports are ignored.
 *
 * Usage: `deno task layering`, or `deno run -A tools/layering.ts [root]`.
 * One line per problem on stdout,
 * `path:line:col: <importer folder> must not import <imported folder> (<rule>)`,
 * and exit code 1 when there is any.
 *
 * @example Check a tree
 * ```ts ignore
 * import { checkLayering, formatProblem, LAYER_RULES } from "./layering.ts";
 * const problems = await checkLayering(".", LAYER_RULES);
 * for (const p of problems) console.log(formatProblem(p));
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * One layer of the target layout: which modules it covers and what they may
 * import.
 *
 * A pattern is a path relative to the root, with `/` as separator:
 * - `kernel/`: that folder and everything under it;
 * - `plugins/*\/`: every direct subfolder of `plugins/` and everything under
 *   it (`*` stands for one folder name);
 * - `plugins/builtin.ts`: exactly that file;
 * - `**`: anything.
 */
export interface LayerRule {
  /**
   * The modules this rule covers. The first rule whose `layer` matches a
   * module is the module's rule, so a narrower layer goes before a wider one
   * (`plugins/sdk/` before `plugins/*\/`).
   */
  readonly layer: string;
  /**
   * What the layer's modules may import besides their own unit (the folder
   * `layer` names, with `*` standing for the module's own folder: a plugin
   * may import its own files, not another plugin's).
   */
  readonly mayImport: readonly string[];
}

/**
 * The target layout of issue 13, bottom to top. Folders no rule covers
 * (`tools/`, `tests/`, `examples/`, `docs/`) are not checked, but importing
 * them from a checked layer is a forbidden direction like any other.
 */
export const LAYER_RULES: readonly LayerRule[] = [
  { layer: "proto/", mayImport: [] },
  { layer: "contract/", mayImport: ["proto/"] },
  { layer: "config/", mayImport: ["contract/", "proto/"] },
  { layer: "plugins/sdk/", mayImport: ["contract/", "proto/"] },
  {
    layer: "plugins/builtin.ts",
    mayImport: [
      "plugins/builtin_checksums.json",
      "plugins/sdk/",
      "contract/",
      "proto/",
    ],
  },
  { layer: "plugins/*/", mayImport: ["plugins/sdk/", "contract/", "proto/"] },
  { layer: "kernel/", mayImport: ["config/", "contract/", "proto/"] },
  {
    layer: "cli/",
    mayImport: [
      "kernel/",
      "config/",
      "contract/",
      "proto/",
      "plugins/builtin.ts",
    ],
  },
  { layer: "mod.ts", mayImport: ["**"] },
  { layer: "main.ts", mayImport: ["**"] },
];

/** One import that breaks the layering. */
export interface Problem {
  /** `direction` for a forbidden import, `cycle` for an edge of a folder cycle. */
  readonly kind: "direction" | "cycle";
  /** The importing module, relative to the root, with `/` separators. */
  readonly file: string;
  /** 1-based line of the import's specifier. */
  readonly line: number;
  /** 1-based column of the import's specifier (its opening quote). */
  readonly col: number;
  /** The specifier as written. */
  readonly specifier: string;
  /** The imported module, relative to the root. */
  readonly imported: string;
  /** The importer's folder, with a trailing `/` (`./` for the root). */
  readonly importerFolder: string;
  /** The imported module's folder, with a trailing `/` (`./` for the root). */
  readonly importedFolder: string;
  /**
   * The rule broken: `config/ may import only config/, contract/, proto/`, or
   * `folder cycle: config/ → kernel/ → config/` (the shortest way back from
   * the imported folder to the importer).
   */
  readonly rule: string;
}

/** Options of {@linkcode checkLayering}. */
export interface CheckLayeringOptions {
  /**
   * The Deno executable that runs `deno info`.
   *
   * @default {Deno.execPath()}
   */
  deno?: string;
}

/**
 * Formats a problem as one line:
 * `path:line:col: <importer folder> must not import <imported folder> (<rule>)`.
 *
 * @example Usage
 * ```ts
 * import { formatProblem } from "./layering.ts";
 * import assert from "node:assert/strict";
 * const line = formatProblem({
 *   kind: "direction", file: "config/a.ts", line: 1, col: 19,
 *   specifier: "../kernel/b.ts", imported: "kernel/b.ts",
 *   importerFolder: "config/", importedFolder: "kernel/",
 *   rule: "config/ may import only config/, contract/, proto/",
 * });
 * assert.equal(
 *   line,
 *   "config/a.ts:1:19: config/ must not import kernel/ (config/ may import only config/, contract/, proto/)",
 * );
 * ```
 *
 * @param problem The problem.
 * @returns The line, without a newline.
 */
export function formatProblem(problem: Problem): string {
  return `${problem.file}:${problem.line}:${problem.col}: ` +
    `${problem.importerFolder} must not import ${problem.importedFolder} ` +
    `(${problem.rule})`;
}

/**
 * Reads the module graph of the tree under `rootDir` and returns every
 * layering problem, sorted by file, line and column.
 *
 * @param rootDir The repository root (where `deno.json` is).
 * @param rules The rules table; first match wins.
 * @param options The Deno executable.
 * @returns The problems; empty when the tree keeps the layering.
 * @throws {Error} When `rootDir` is not a directory, `deno info` fails, a
 * checked module cannot be loaded or an import cannot be resolved (the
 * message names the module and the import), or `deno.json` is not valid
 * JSON.
 */
export async function checkLayering(
  rootDir: string,
  rules: readonly LayerRule[] = LAYER_RULES,
  options: CheckLayeringOptions = {},
): Promise<Problem[]> {
  const imports = await readLocalImports(rootDir, rules, options);
  return findProblems(imports, rules.map(compileRule));
}

/** A local import of a checked module, as the module graph has it. */
export interface LocalImport {
  /** The importing module, relative to the root, with `/` separators. */
  readonly file: string;
  /** The imported module, relative to the root. */
  readonly imported: string;
  /** The specifier as written. */
  readonly specifier: string;
  /** 1-based line of the specifier. */
  readonly line: number;
  /** 1-based column of the specifier (its opening quote). */
  readonly col: number;
}

/**
 * Returns every local import of the modules `rules` covers (tests and
 * excluded files left out), in file order: what {@linkcode checkLayering}
 * judges, for tools that want the whole list (every import behind a folder
 * edge, say).
 *
 * @param rootDir The repository root (where `deno.json` is).
 * @param rules The rules table that says which modules are checked.
 * @param options The Deno executable.
 * @returns The imports, sorted by file, line and column.
 * @throws {Error} As {@linkcode checkLayering}.
 */
export async function readLocalImports(
  rootDir: string,
  rules: readonly LayerRule[] = LAYER_RULES,
  options: CheckLayeringOptions = {},
): Promise<LocalImport[]> {
  const root = resolve(rootDir);
  try {
    if (!(await Deno.stat(root)).isDirectory) {
      throw new Error(`Cannot check "${rootDir}": not a directory`);
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    throw new Error(`Cannot check "${rootDir}": no such directory`);
  }
  const compiled = rules.map(compileRule);
  const config = await readConfig(root);
  const excluded = [...config.exclude].map(globRegExp);
  const files = (await walk(root, "", excluded)).filter((f) =>
    ruleOf(compiled, f) !== undefined
  );
  if (files.length === 0) return [];
  const imports = await readImports(root, files, config.path, options);
  return imports.sort(byPosition);
}

interface CompiledRule {
  readonly rule: LayerRule;
  readonly layer: RegExp;
  readonly mayImport: readonly RegExp[];
  readonly text: string;
}

function compileRule(rule: LayerRule): CompiledRule {
  const self = rule.layer.includes("*")
    ? "its own folder"
    : rule.layer.endsWith("/")
    ? rule.layer
    : undefined;
  const allowed = [...(self ? [self] : []), ...rule.mayImport];
  const text = rule.mayImport.includes("**")
    ? `${rule.layer} may import anything`
    : `${rule.layer} may import only ${allowed.join(", ") || "itself"}`;
  return {
    rule,
    layer: patternRegExp(rule.layer),
    mayImport: rule.mayImport.map(patternRegExp),
    text,
  };
}

/**
 * A rule pattern as a RegExp; the groups capture what `*` stood for, so the
 * module's own unit can be rebuilt.
 */
function patternRegExp(pattern: string): RegExp {
  if (pattern === "**") return /^/;
  const body = pattern.split("*").map(escapeRegExp).join("([^/]+)");
  return new RegExp(`^${body}${pattern.endsWith("/") ? "" : "$"}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

function ruleOf(
  rules: readonly CompiledRule[],
  file: string,
): CompiledRule | undefined {
  return rules.find((r) => r.layer.test(file));
}

/** Whether `file` may import `imported` under `rule`. */
function isAllowed(rule: CompiledRule, file: string, imported: string) {
  const m = rule.layer.exec(file)!;
  let unit = rule.rule.layer;
  for (const captured of m.slice(1)) unit = unit.replace("*", captured);
  if (unit.endsWith("/") ? imported.startsWith(unit) : imported === unit) {
    return true;
  }
  return rule.mayImport.some((p) => p.test(imported));
}

function folderOf(file: string): string {
  const dir = dirname(file);
  return dir === "." ? "./" : `${dir}/`;
}

/**
 * Files any layer may read as data: the package's own `deno.json` (its name
 * and version). It imports nothing, so it can close no cycle of code.
 */
export const SHARED_DATA: readonly string[] = ["deno.json"];

function findProblems(
  all: readonly LocalImport[],
  rules: readonly CompiledRule[],
): Problem[] {
  const imports = all.filter((i) => !SHARED_DATA.includes(i.imported));
  const problems: Problem[] = [];
  const toProblem = (i: LocalImport, kind: Problem["kind"], rule: string) => ({
    kind,
    ...i,
    importerFolder: folderOf(i.file),
    importedFolder: folderOf(i.imported),
    rule,
  });
  // The first import of each folder edge, in file order, stands for it.
  const edges = new Map<string, Map<string, LocalImport>>();
  for (const i of [...imports].sort(byPosition)) {
    const rule = ruleOf(rules, i.file)!;
    if (!isAllowed(rule, i.file, i.imported)) {
      problems.push(toProblem(i, "direction", rule.text));
    }
    const from = folderOf(i.file);
    const to = folderOf(i.imported);
    if (from === to) continue;
    let out = edges.get(from);
    if (!out) edges.set(from, out = new Map());
    if (!out.has(to)) out.set(to, i);
  }
  for (const component of stronglyConnected(edges)) {
    if (component.size < 2) continue;
    for (const from of component) {
      for (const [to, i] of edges.get(from) ?? []) {
        if (!component.has(to)) continue;
        const back = shortestPath(edges, component, to, from);
        const cycle = [from, ...back].join(" → ");
        problems.push(toProblem(i, "cycle", `folder cycle: ${cycle}`));
      }
    }
  }
  return problems.sort((a, b) =>
    byPosition(a, b) || a.kind.localeCompare(b.kind) ||
    a.rule.localeCompare(b.rule)
  );
}

function byPosition(
  a: { file: string; line: number; col: number },
  b: { file: string; line: number; col: number },
): number {
  return compareText(a.file, b.file) || a.line - b.line || a.col - b.col;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Tarjan's algorithm over the folder graph. */
function stronglyConnected(
  edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
): Set<string>[] {
  const nodes = new Set<string>(edges.keys());
  for (const out of edges.values()) for (const to of out.keys()) nodes.add(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: Set<string>[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component = new Set<string>();
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.add(w);
      } while (w !== v);
      components.push(component);
    }
  };
  for (const v of [...nodes].sort(compareText)) if (!index.has(v)) visit(v);
  return components;
}

/** The folders from `from` to `to` inside `within`, both ends included. */
function shortestPath(
  edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
  within: ReadonlySet<string>,
  from: string,
  to: string,
): string[] {
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift()!;
    if (v === to) break;
    const next = [...(edges.get(v)?.keys() ?? [])].sort(compareText);
    for (const w of next) {
      if (within.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [to];
  while (path[0] !== from) path.unshift(previous.get(path[0])!);
  return path;
}

interface Config {
  /** The config file, if any. */
  readonly path: string | undefined;
  /** Patterns excluded from the tree or from publishing. */
  readonly exclude: readonly string[];
}

async function readConfig(root: string): Promise<Config> {
  for (const name of ["deno.json", "deno.jsonc"]) {
    const path = join(root, name);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) continue;
      throw e;
    }
    let json: {
      exclude?: unknown;
      publish?: { exclude?: unknown };
    };
    try {
      json = JSON.parse(stripJsonComments(text));
    } catch (e) {
      throw new Error(
        `Cannot read "${path}": ${e instanceof Error ? e.message : e}`,
      );
    }
    const list = (value: unknown, field: string): string[] => {
      if (value === undefined) return [];
      if (
        !Array.isArray(value) || value.some((v) => typeof v !== "string")
      ) {
        throw new Error(
          `Cannot read "${path}": "${field}" must be a list of strings`,
        );
      }
      return value;
    };
    return {
      path,
      exclude: [
        ...list(json.exclude, "exclude"),
        ...list(json.publish?.exclude, "publish.exclude"),
      ],
    };
  }
  return { path: undefined, exclude: [] };
}

/** Removes `//` and `/* *\/` comments outside strings (for `deno.jsonc`). */
function stripJsonComments(text: string): string {
  return text.replace(
    /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (_, string) => string ?? "",
  );
}

/**
 * A `deno.json` exclude pattern as a RegExp that matches the paths it
 * excludes: the path itself or anything under it. `**` spans folders, `*`
 * one name.
 */
function globRegExp(pattern: string): RegExp {
  const p = pattern.replace(/^\.\//, "").replace(/\/$/, "");
  let body = "";
  for (let i = 0; i < p.length; i++) {
    if (p.startsWith("**/", i)) {
      body += "(?:.*/)?";
      i += 2;
    } else if (p.startsWith("**", i)) {
      body += ".*";
      i += 1;
    } else if (p[i] === "*") body += "[^/]*";
    else body += escapeRegExp(p[i]);
  }
  return new RegExp(`^${body}(?:/.*)?$`);
}

const SOURCE_REGEXP = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const TEST_REGEXP = /(?:_test|_bench|_testing)\.[a-z]+$/;

/** Every source file under `dir` that is not a test, as root-relative paths. */
async function walk(
  root: string,
  dir: string,
  excluded: readonly RegExp[],
): Promise<string[]> {
  const files: string[] = [];
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(join(root, dir))) entries.push(e);
  for (const e of entries.sort((a, b) => compareText(a.name, b.name))) {
    const path = dir === "" ? e.name : `${dir}/${e.name}`;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    if (e.name === "testdata" || excluded.some((r) => r.test(path))) continue;
    if (e.isDirectory) files.push(...await walk(root, path, excluded));
    else if (
      e.isFile && SOURCE_REGEXP.test(e.name) && !TEST_REGEXP.test(e.name)
    ) {
      files.push(path);
    }
  }
  return files;
}

interface Span {
  readonly start: { readonly line: number; readonly character: number };
}

interface InfoResolution {
  readonly specifier?: string;
  readonly error?: string;
  readonly span?: Span;
}

interface InfoDependency {
  readonly specifier: string;
  readonly code?: InfoResolution;
  readonly type?: InfoResolution;
}

interface InfoModule {
  readonly specifier: string;
  readonly error?: string;
  readonly dependencies?: readonly InfoDependency[];
}

/**
 * Runs `deno info --json` once, on a temporary module that imports every
 * file, and returns the local imports of those files.
 */
async function readImports(
  root: string,
  files: readonly string[],
  configPath: string | undefined,
  options: CheckLayeringOptions,
): Promise<LocalImport[]> {
  const tmp = await Deno.makeTempDir({ prefix: "layering_" });
  try {
    const entry = join(tmp, "entry.ts");
    await Deno.writeTextFile(
      entry,
      files.map((f) =>
        `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};\n`
      ).join(""),
    );
    const args = ["info", "--json", "--no-npm", "--no-remote", "--no-lock"];
    args.push(...(configPath ? ["--config", configPath] : ["--no-config"]));
    const output = await new Deno.Command(options.deno ?? Deno.execPath(), {
      args: [...args, entry],
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (!output.success) {
      const stderr = new TextDecoder().decode(output.stderr).trim();
      throw new Error(`Cannot read the module graph: deno info: ${stderr}`);
    }
    const info: { modules: InfoModule[] } = JSON.parse(
      new TextDecoder().decode(output.stdout),
    );
    return importsOf(root, new Set(files), info.modules);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

function importsOf(
  root: string,
  files: ReadonlySet<string>,
  modules: readonly InfoModule[],
): LocalImport[] {
  const local = (specifier: string | undefined) => {
    if (!specifier?.startsWith("file:")) return undefined;
    return relative(root, fileURLToPath(specifier)).split(sep).join("/");
  };
  const errors = new Map<string, string>();
  for (const m of modules) {
    const file = local(m.specifier);
    if (file !== undefined && m.error) errors.set(file, m.error);
  }
  const imports: LocalImport[] = [];
  for (const m of modules) {
    const file = local(m.specifier);
    if (file === undefined || !files.has(file)) continue;
    if (m.error) throw new Error(`Cannot load module "${file}": ${m.error}`);
    for (const d of m.dependencies ?? []) {
      // A specifier imported both for types and for code is one dependency
      // with two resolutions; the earlier of the two is reported.
      const uses = [d.code, d.type].filter((u) => u?.span !== undefined);
      uses.sort((a, b) =>
        a!.span!.start.line - b!.span!.start.line ||
        a!.span!.start.character - b!.span!.start.character
      );
      const use = uses[0];
      if (!use) continue;
      const at = `${file}:${use.span!.start.line + 1}:${
        use.span!.start.character + 1
      }`;
      const failed = uses.find((u) => u!.error)?.error;
      if (failed) {
        throw new Error(`Cannot resolve "${d.specifier}" at ${at}: ${failed}`);
      }
      const imported = local(use.specifier);
      if (imported === undefined) continue;
      const error = errors.get(imported);
      if (error) {
        throw new Error(
          `Cannot load module "${imported}" imported at ${at}: ${error}`,
        );
      }
      imports.push({
        file,
        imported,
        specifier: d.specifier,
        line: use.span!.start.line + 1,
        col: use.span!.start.character + 1,
      });
    }
  }
  return imports;
}

/** Where {@linkcode main} writes. */
export interface LayeringIo {
  /** Writes to standard output. */
  stdout(text: string): void;
  /** Writes to standard error. */
  stderr(text: string): void;
}

const USAGE = "Usage: deno run -A tools/layering.ts [root]\n";

/**
 * The command line: checks `root` (default: this repository) against
 * {@linkcode LAYER_RULES} and prints one line per problem.
 *
 * @param args The arguments: an optional root directory, `-h`/`--help`.
 * @param io Where output goes.
 * @returns 0 without problems, 1 with problems or when the graph cannot be
 * read, 2 on a usage error.
 */
export async function main(
  args: readonly string[],
  io: LayeringIo,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { help: { type: "boolean", short: "h" } },
    });
  } catch (e) {
    io.stderr(`${USAGE}error: ${e instanceof Error ? e.message : e}\n`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    io.stderr(`${USAGE}error: expected at most one root directory\n`);
    return 2;
  }
  const root = parsed.positionals[0] ??
    dirname(dirname(fileURLToPath(import.meta.url)));
  let problems: Problem[];
  try {
    problems = await checkLayering(root);
  } catch (e) {
    io.stderr(`error: ${e instanceof Error ? e.message : e}\n`);
    return 1;
  }
  for (const p of problems) io.stdout(`${formatProblem(p)}\n`);
  if (problems.length > 0) {
    io.stderr(`Found ${problems.length} layering problems\n`);
    return 1;
  }
  return 0;
}

if (import.meta.main) {
  const write = (stream: typeof Deno.stdout) => (text: string) => {
    const bytes = new TextEncoder().encode(text);
    let off = 0;
    while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
  };
  Deno.exit(
    await main(Deno.args, {
      stdout: write(Deno.stdout),
      stderr: write(Deno.stderr),
    }),
  );
}
