/**
 * The code blocks `deno test --doc` would run, found and turned into
 * modules the way Deno does it, so that tests/doc_snippets_test.ts runs
 * them all in one test module instead of one worker each.
 *
 * Why: `deno test` starts a worker for every test module, and `--doc` makes
 * every code block a test module of its own. A worker costs ~0.45 s of CPU
 * before its first test (measured: 12 one-line snippets took 5.5 s more CPU
 * than one, whatever they imported), so the ~180 snippets of the project
 * cost ~80 s of CPU in workers for ~11 s of tests.
 *
 * What Deno does (cli/util/extract.rs), and this module with it:
 * - every file under the project root except deno.json's `exclude` (hidden
 *   folders included; `.git` and `node_modules` skipped): the JavaScript and
 *   TypeScript files' `/**` comments, and Markdown files;
 * - a fenced block runs when its first attribute names a language (`ts`,
 *   `typescript`, `js`, …) and no attribute is `ignore`;
 * - in a comment, each line loses its `* ` prefix (and a `# ` after it);
 * - the test is named `<file URL>#<first line>-<last line + 1>.<ext>`;
 * - the block's `import` declarations stay at the top of the module, the
 *   rest runs inside the test, and the documented file's exports that the
 *   block does not import itself are imported from it.
 *
 * Two things differ: the block's relative and mapped specifiers are
 * resolved here (the module is loaded from a `data:` URL), and the blocks
 * share one isolate (a module the documented files import is evaluated
 * once). A block this module cannot transform the way Deno would (a shebang,
 * `export` of a name list, a blockquoted fence) fails its test with a
 * message saying so. `.ci/run` compares the names found here with the
 * snippets `deno test --doc --no-run` type-checks and fails on a difference.
 *
 * Usage: `deno run --allow-read tests/_doc_snippets.ts --list` prints each
 * snippet's repository-relative name, one a line.
 *
 * @module
 */

/** One code block that `deno test --doc` would run. */
export interface DocSnippet {
  /** Deno's name for its test: `file:///…/x.ts#12-20.ts`. */
  name: string;
  /** The documented file's URL. */
  file: string;
  /** The block's language extension: `ts`, `js`, `tsx`, … */
  extension: string;
  /** The block's code, its comment prefixes removed, one line each. */
  code: string;
}

const EXTENSIONS: Record<string, string> = {
  js: "js",
  javascript: "js",
  mjs: "mjs",
  cjs: "cjs",
  jsx: "jsx",
  ts: "ts",
  typescript: "ts",
  mts: "mts",
  cts: "cts",
  tsx: "tsx",
};

const SCRIPT_FILE_REGEXP = /\.(?:[mc]?[jt]s|[jt]sx)$/;
const MARKDOWN_FILE_REGEXP = /\.(?:md|mkd|mkdn|mdwn|mdown|markdown)$/;

/** A block's extension from its fence attributes, or undefined: not run. */
function extensionOf(attributes: string): string | undefined {
  const words = attributes.split(" ");
  if (words.includes("ignore")) return undefined;
  return EXTENSIONS[words[0]!];
}

/** A glob of deno.json's `exclude` as a RegExp over relative paths. */
function globRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  // "dir/" excludes the folder and everything in it; a file glob, itself.
  return new RegExp(`^${source}${glob.endsWith("/") ? "" : "(?:/|$)"}`);
}

/**
 * The `/**` comments of a JavaScript or TypeScript source: each comment's
 * text between `/*` and `*\/` and the 0-based line it starts on. Strings,
 * template literals and regular expression literals are skipped, so a
 * `/**` inside one is not a comment.
 */
export function docComments(source: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let line = 0;
  // The last significant character outside comments and strings, to tell a
  // regular expression literal from a division.
  let previous = "";
  let word = "";
  const templates: number[] = []; // brace depth of each open `${`
  let braces = 0;
  const REGEX_AFTER_WORD = new Set([
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "yield",
    "await",
    "instanceof",
  ]);
  const n = source.length;
  let i = 0;
  // Skips a template literal's text from i (after "`" or "}"), stopping
  // after its closing "`" or after a "${".
  const template = (): void => {
    while (i < n) {
      const c = source[i]!;
      if (c === "\\") {
        if (source[i + 1] === "\n") line++;
        i += 2;
        continue;
      }
      if (c === "\n") line++;
      if (c === "`") {
        i++;
        previous = "`";
        return;
      }
      if (c === "$" && source[i + 1] === "{") {
        i += 2;
        templates.push(braces);
        braces++;
        previous = "{";
        return;
      }
      i++;
    }
  };
  while (i < n) {
    const c = source[i]!;
    if (c === "\n") {
      line++;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? n : end;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end;
      const text = source.slice(i + 2, stop);
      if (text.startsWith("*")) out.push({ text, line });
      for (const ch of text) if (ch === "\n") line++;
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== "\n") {
        j += source[j] === "\\" ? 2 : 1;
      }
      i = j + 1;
      previous = c;
      word = "";
      continue;
    }
    if (c === "`") {
      i++;
      template();
      word = "";
      continue;
    }
    if (c === "/") {
      const regex = previous === "" ||
        "(,=:[!&|?{};+-*%<>~^".includes(previous) ||
        REGEX_AFTER_WORD.has(word);
      if (regex) {
        // A regular expression literal ends on its line; if none does, the
        // slash was a division after all.
        let j = i + 1;
        let inClass = false;
        while (j < n && source[j] !== "\n") {
          const d = source[j]!;
          if (d === "\\") j++;
          else if (d === "[") inClass = true;
          else if (d === "]") inClass = false;
          else if (d === "/" && !inClass) break;
          j++;
        }
        if (j < n && source[j] === "/") {
          i = j + 1;
          previous = "/";
          word = "";
          continue;
        }
      }
    }
    if (c === "{") braces++;
    if (c === "}") {
      braces--;
      if (templates.length > 0 && templates[templates.length - 1] === braces) {
        templates.pop();
        i++;
        template();
        word = "";
        continue;
      }
    }
    if (/[\w$]/.test(c)) {
      let j = i;
      while (j < n && /[\w$]/.test(source[j]!)) j++;
      word = source.slice(i, j);
      previous = "a";
      i = j;
      continue;
    }
    previous = c;
    word = "";
    i++;
  }
  return out;
}

// The line prefixes Deno strips from a comment's lines: "* " and a "# "
// after it (rustdoc's hidden lines); "#!" starts a shebang.
const COMMENT_LINE_REGEXP = /(?:\* ?)((#!+).*)|(?:\* ?)(?:# ?)?(.*)/;

function codeOf(body: string, fromComment: boolean): string {
  const lines = body.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const out: string[] = [];
  for (const raw of lines) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (!fromComment) {
      out.push(line);
      continue;
    }
    const m = COMMENT_LINE_REGEXP.exec(line);
    if (!m) continue;
    out.push(m[1] ?? m[3] ?? "");
  }
  return out.map((l) => `${l}\n`).join("");
}

/** The snippets of one JavaScript or TypeScript file's `/**` comments. */
export function scriptSnippets(file: string, source: string): DocSnippet[] {
  const out: DocSnippet[] = [];
  for (const comment of docComments(source)) {
    for (
      const m of comment.text.matchAll(
        /```([^\r\n]*)\r?\n([\s\S]*?)```/g,
      )
    ) {
      const extension = extensionOf(m[1]!);
      if (!extension) continue;
      const lineOffset = comment.text.slice(0, m.index).split("\n").length - 1;
      const lineCount = m[0].split("\n").length;
      const first = comment.line + lineOffset + 1;
      const fence = comment.text.slice(0, m.index!);
      const fenceLine = fence.slice(fence.lastIndexOf("\n") + 1);
      const code = /^[\s*]*>/.test(fenceLine)
        ? `throw new Error("tests/_doc_snippets.ts cannot run a blockquoted code block");\n`
        : codeOf(m[2]!, true);
      out.push({
        name: `${file}#${first}-${first + lineCount}.${extension}`,
        file,
        extension,
        code,
      });
    }
  }
  return out;
}

/** The snippets of one Markdown file's fenced blocks. */
export function markdownSnippets(file: string, source: string): DocSnippet[] {
  const lines = source.split("\n").map((l) =>
    l.endsWith("\r") ? l.slice(0, -1) : l
  );
  if (lines[lines.length - 1] === "") lines.pop();
  const out: DocSnippet[] = [];
  const fence = (line: string) => {
    let rest = line.replace(/^[ \t]*/, "");
    let quoted = false;
    while (rest.startsWith(">")) {
      quoted = true;
      rest = rest.slice(1).replace(/^[ \t]/, "");
    }
    const ticks = /^`*/.exec(rest)![0].length;
    return { ticks, rest: rest.slice(ticks), quoted };
  };
  let inHtmlComment = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (inHtmlComment) {
      if (line.includes("-->")) inHtmlComment = false;
      continue;
    }
    if (line.replace(/^[ \t]*/, "").startsWith("<!--")) {
      if (!line.includes("-->")) inHtmlComment = true;
      continue;
    }
    const open = fence(line);
    if (open.ticks < 3) continue;
    let close = i + 1;
    for (; close < lines.length; close++) {
      const f = fence(lines[close]!);
      if (f.ticks >= open.ticks && /^[ \t]*$/.test(f.rest)) break;
    }
    if (close === lines.length) continue;
    const extension = extensionOf(open.rest);
    if (extension) {
      out.push({
        name: `${file}#${i + 1}-${close + 2}.${extension}`,
        file,
        extension,
        code: open.quoted
          ? `throw new Error("tests/_doc_snippets.ts cannot run a blockquoted code block");\n`
          : codeOf(lines.slice(i + 1, close).join("\n") + "\n", false),
      });
    }
    i = close;
  }
  return out;
}

/**
 * Every snippet under the project root `root` (a directory URL ending in
 * `/`, holding deno.json), in path order, as `deno test --doc` finds them.
 */
export async function collectDocSnippets(root: URL): Promise<DocSnippet[]> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", root)),
  );
  const exclude = ((config.exclude ?? []) as string[]).map(globRegExp);
  const files: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = [];
    for await (const e of Deno.readDir(new URL(relative || ".", root))) {
      entries.push(e);
    }
    for (const e of entries) {
      const path = `${relative}${e.name}`;
      if (e.isDirectory) {
        if (e.name === ".git" || e.name === "node_modules") continue;
        if (exclude.some((r) => r.test(`${path}/`))) continue;
        await walk(`${path}/`);
      } else if (
        e.isFile && (SCRIPT_FILE_REGEXP.test(e.name) ||
          MARKDOWN_FILE_REGEXP.test(e.name)) &&
        !exclude.some((r) => r.test(path))
      ) {
        files.push(path);
      }
    }
  };
  await walk("");
  files.sort();
  const out: DocSnippet[] = [];
  for (const path of files) {
    const url = new URL(path, root).href;
    const source = await Deno.readTextFile(new URL(path, root));
    if (!source.includes("```")) continue;
    out.push(
      ...(MARKDOWN_FILE_REGEXP.test(path)
        ? markdownSnippets(url, source)
        : scriptSnippets(url, source)),
    );
  }
  return out;
}

/** The names a file exports, as Deno imports them into its snippets. */
export function exportedNames(
  source: string,
): { values: string[]; types: string[]; defaultName?: string } {
  const values = new Set<string>();
  const types = new Set<string>();
  let defaultName: string | undefined;
  const NAME = "([A-Za-z_$][\\w$]*)";
  for (
    const m of source.matchAll(
      new RegExp(
        `^export\\s+(?:declare\\s+)?(default\\s+)?(?:abstract\\s+)?(?:async\\s+)?(function\\*?|class|const\\s+enum|enum|const|let|var|namespace|type|interface)\\s+${NAME}`,
        "gm",
      ),
    )
  ) {
    const [, isDefault, kind, name] = m;
    if (isDefault) defaultName = name;
    else if (kind === "type" || kind === "interface") {
      if (!values.has(name!)) types.add(name!);
    } else {
      types.delete(name!);
      values.add(name!);
    }
  }
  for (
    const m of source.matchAll(
      /^export\s+(type\s+)?\{([^}]*)\}(\s*from\s)?/gm,
    )
  ) {
    for (const part of m[2]!.split(",")) {
      const spec = part.replace(/\/\/.*$/gm, "").trim();
      if (!spec) continue;
      const typeOnly = Boolean(m[1]) || spec.startsWith("type ");
      const words = spec.replace(/^type\s+/, "").split(/\s+as\s+/);
      const name = (words[1] ?? words[0])!.trim();
      if (name === "default") continue;
      if (typeOnly) {
        if (!values.has(name)) types.add(name);
      } else {
        types.delete(name);
        values.add(name);
      }
    }
  }
  const d = /^export\s+default\s+([A-Za-z_$][\w$]*)\s*;/m.exec(source);
  if (d && !["function", "class", "async", "abstract"].includes(d[1]!)) {
    defaultName = d[1];
  }
  return { values: [...values], types: [...types], defaultName };
}

/** The local names an import declaration binds. */
function importBindings(declaration: string): string[] {
  const clause = /^import\s+(?:type\s+)?([\s\S]*?)\s+from\s/.exec(declaration)
    ?.[1];
  if (!clause) return [];
  const names: string[] = [];
  const braces = /\{([\s\S]*)\}/.exec(clause);
  for (const part of braces?.[1]?.split(",") ?? []) {
    const spec = part.trim().replace(/^type\s+/, "");
    if (!spec) continue;
    const words = spec.split(/\s+as\s+/);
    names.push((words[1] ?? words[0])!.trim());
  }
  const outside = clause.replace(/\{[\s\S]*\}/, "").split(",");
  for (const part of outside) {
    const spec = part.trim();
    if (!spec) continue;
    const ns = /^\*\s+as\s+([\w$]+)$/.exec(spec);
    names.push(ns ? ns[1]! : spec);
  }
  return names;
}

/**
 * A snippet as the source of a module whose default export runs it: its
 * imports at the top (their specifiers resolved with `resolve`), the
 * documented file's other exports imported from `exports`, and the rest of
 * its code in the function. Throws when the snippet has a form that Deno
 * transforms and this function does not.
 */
export function snippetModule(
  snippet: DocSnippet,
  documented: ReturnType<typeof exportedNames>,
  resolve: (specifier: string) => string,
): string {
  const lines = snippet.code.split("\n");
  const imports: string[] = [];
  const body: string[] = [];
  const bound = new Set<string>();
  const resolveIn = (declaration: string) =>
    declaration.replace(
      /(\bfrom\s*|^import\s*)(["'])([^"']+)\2/m,
      (_, before: string, quote: string, specifier: string) =>
        `${before}${quote}${resolve(specifier)}${quote}`,
    );
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i === 0 && line.startsWith("#!")) {
      throw new Error(`${snippet.name}: a shebang line is not supported here`);
    }
    if (/^import\s*[\w${*"']/.test(line) && !/^import\s*[.(]/.test(line)) {
      let declaration = line;
      while (!/;\s*$/.test(declaration)) {
        if (++i >= lines.length) {
          throw new Error(
            `${snippet.name}: an import declaration without its closing ";"`,
          );
        }
        declaration += `\n${lines[i]}`;
      }
      for (const name of importBindings(declaration)) bound.add(name);
      imports.push(resolveIn(declaration));
    } else if (/^export\s/.test(line)) {
      if (/^export\s+(?:default|\{|\*|type\s*\{)/.test(line)) {
        throw new Error(
          `${snippet.name}: "${line.trim()}" is not supported here`,
        );
      }
      body.push(line.replace(/^export\s+/, ""));
    } else body.push(line);
  }
  const specifiers = [
    ...documented.values.filter((n) => !bound.has(n)),
    ...documented.types.filter((n) => !bound.has(n)).map((n) => `type ${n}`),
  ];
  const defaultName = documented.defaultName &&
      !bound.has(documented.defaultName) &&
      !documented.values.includes(documented.defaultName)
    ? documented.defaultName
    : undefined;
  if (specifiers.length > 0 || defaultName) {
    const clause = [
      ...(defaultName ? [defaultName] : []),
      ...(specifiers.length > 0 ? [`{ ${specifiers.join(", ")} }`] : []),
    ].join(", ");
    imports.push(`import ${clause} from ${JSON.stringify(snippet.file)};`);
  }
  return `${imports.join("\n")}\nexport default async function () {\n${
    body.join("\n")
  }\n}\n`;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url);
  if (Deno.args.length !== 1 || Deno.args[0] !== "--list") {
    console.error("usage: deno run --allow-read tests/_doc_snippets.ts --list");
    Deno.exit(2);
  }
  for (const s of await collectDocSnippets(root)) {
    console.log(s.name.slice(root.href.length));
  }
}
