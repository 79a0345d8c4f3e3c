/**
 * Every code block `deno test --doc` would run (JSDoc and Markdown), each a
 * test with Deno's own name for it, in this one test module instead of a
 * worker each (see tests/_doc_snippets.ts), and the tests of that
 * extraction. `deno task test` runs without `--doc`; the blocks' type check
 * is `deno check --doc` (in `deno task check`) and, in CI,
 * `deno test --doc --no-run` beside the tests, whose list of snippets
 * `.ci/run` compares with the one found here.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  collectDocSnippets,
  type DocSnippet,
  exportedNames,
  markdownSnippets,
  scriptSnippets,
  snippetModule,
} from "./_doc_snippets.ts";

const ROOT = new URL("..", import.meta.url);

const MEDIA_TYPES: Record<string, string> = {
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  jsx: "text/jsx",
  tsx: "text/tsx",
};

/** Specifiers as the documented file's folder and deno.json resolve them. */
function resolverFor(file: string): (specifier: string) => string {
  return (specifier) => {
    if (/^\.{1,2}\//.test(specifier)) return new URL(specifier, file).href;
    if (/^(?:node|npm|jsr|file|data|https?):/.test(specifier)) return specifier;
    return import.meta.resolve(specifier);
  };
}

const exportsOf = new Map<string, ReturnType<typeof exportedNames>>();

/**
 * Loads a snippet's module and runs it; rejects as the snippet fails.
 * `documentedSource` stands in for the documented file's text.
 */
async function runSnippet(
  snippet: DocSnippet,
  documentedSource?: string,
): Promise<void> {
  let documented = exportsOf.get(snippet.file);
  if (documentedSource !== undefined) {
    documented = exportedNames(documentedSource);
  } else if (!documented) {
    // A Markdown file exports nothing.
    documented = exportedNames(
      /\.(?:[mc]?[jt]s|[jt]sx)$/.test(snippet.file)
        ? await Deno.readTextFile(new URL(snippet.file))
        : "",
    );
    exportsOf.set(snippet.file, documented);
  }
  const code = snippetModule(snippet, documented, resolverFor(snippet.file));
  const type = MEDIA_TYPES[snippet.extension] ?? "application/typescript";
  const module = await import(`data:${type},${encodeURIComponent(code)}`);
  await module.default();
}

for (const snippet of await collectDocSnippets(ROOT)) {
  Deno.test(snippet.name, () => runSnippet(snippet));
}

const FILE = "file:///repo/lib/thing.ts";

Deno.test("doc snippets: a JSDoc block is named by Deno's line range and loses its comment prefixes; ignore, unknown languages and comment-like text in strings and regular expressions yield none", () => {
  const source = [
    "/**", //                                  line 1
    " * ```ts",
    " * const a = 1;",
    " *",
    " * # hidden(a);",
    " * ```",
    " * ```ts ignore",
    " * no();",
    " * ```",
    " * ```hcl",
    " * x = 1",
    " * ```",
    " * ```",
    " * plain",
    " * ```",
    " */",
    'export const s = "/** ```ts\\n * bad();\\n * ``` */";',
    "export const r = /\\/** ```ts/;",
    "/** text",
    " * ```js",
    " * ok();",
    " * ```",
    " */",
  ].join("\n");
  const found = scriptSnippets(FILE, source);
  assert.deepEqual(found.map((s) => s.name), [
    `${FILE}#2-7.ts`,
    `${FILE}#20-23.js`,
  ]);
  assert.equal(found[0]!.code, "const a = 1;\n\nhidden(a);\n\n");
  assert.equal(found[1]!.code, "ok();\n\n");
});

Deno.test("doc snippets: a Markdown block is named by its fence lines; HTML comments, ignore and blocks without a language yield none", () => {
  const source = [
    "# Title", //                              line 1
    "",
    "```ts",
    'console.log("md");',
    "```",
    "<!--",
    "```ts",
    "hidden();",
    "```",
    "-->",
    "```",
    "plain",
    "```",
    "````ts ignore",
    "no();",
    "````",
  ].join("\n");
  const found = markdownSnippets("file:///repo/a.md", source);
  assert.deepEqual(found.map((s) => [s.name, s.code]), [
    ["file:///repo/a.md#3-6.ts", 'console.log("md");\n'],
  ]);
});

Deno.test("doc snippets: the module keeps the block's imports on top with their specifiers resolved, imports the documented file's other exports, and runs the rest in its function", () => {
  const documented = exportedNames(
    [
      "export function add(a: number, b: number): number {",
      "export const ONE = 1;",
      "export interface Shape {",
      "export { helper, type Kind, inner as renamed } from './other.ts';",
      "  export const nested = 1;",
    ].join("\n"),
  );
  assert.deepEqual(documented, {
    values: ["add", "ONE", "helper", "renamed"],
    types: ["Shape", "Kind"],
    defaultName: undefined,
  });
  const [snippet] = scriptSnippets(
    FILE,
    [
      "/**",
      " * ```ts",
      " * import {",
      " *   ONE,",
      ' * } from "./one.ts";',
      ' * import assert from "node:assert/strict";',
      " * export function twice(n: number): number {",
      " *   return add(n, n);",
      " * }",
      " * assert.equal(twice(ONE), 2);",
      " * ```",
      " */",
    ].join("\n"),
  );
  const code = snippetModule(
    snippet!,
    documented,
    (s) => s.startsWith(".") ? new URL(s, FILE).href : s,
  );
  assert.equal(
    code,
    [
      "import {",
      "  ONE,",
      '} from "file:///repo/lib/one.ts";',
      'import assert from "node:assert/strict";',
      `import { add, helper, renamed, type Shape, type Kind } from "${FILE}";`,
      "export default async function () {",
      "function twice(n: number): number {",
      "  return add(n, n);",
      "}",
      "assert.equal(twice(ONE), 2);",
      "",
      "",
      "}",
      "",
    ].join("\n"),
  );
});

Deno.test("doc snippets: a form the module cannot reproduce is refused, naming the snippet", () => {
  const [snippet] = scriptSnippets(
    FILE,
    "/**\n * ```ts\n * const x = 1;\n * export { x };\n * ```\n */",
  );
  assert.throws(
    () => snippetModule(snippet!, exportedNames(""), (s) => s),
    new RegExp(`${FILE}#2-6\\.ts: "export \\{ x \\};" is not supported`),
  );
});

Deno.test("doc snippets: a block runs with the documented file's exports, and a failing assertion fails its test", async () => {
  const documented = "export const ANSWER = 42;\n";
  const file = new URL("tests/_doc_snippets.ts", ROOT).href;
  const [passing, failing] = scriptSnippets(
    file,
    [
      "/**",
      " * ```ts",
      ' * import assert from "node:assert/strict";',
      " * assert.equal(await Promise.resolve(ANSWER), 42);",
      " * ```",
      " * ```ts",
      ' * import assert from "node:assert/strict";',
      " * assert.equal(ANSWER, 41);",
      " * ```",
      " */",
    ].join("\n"),
  );
  // The documented file here is this test's text, not the file on disk:
  // ANSWER comes from a data: module standing in for it.
  const stand = `data:application/typescript,${encodeURIComponent(documented)}`;
  await runSnippet({ ...passing!, file: stand }, documented);
  await assert.rejects(
    runSnippet({ ...failing!, file: stand }, documented),
    /42 !== 41|Expected values to be strictly equal/,
  );
});
