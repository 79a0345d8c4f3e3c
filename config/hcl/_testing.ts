/**
 * Test support for the HCL front-end: fixture loading, expected-error
 * markers, a stand-in for the schema decoder's evaluation walk, a seeded
 * random generator and the mutations used by the property and differential
 * tests. Not part of the public API.
 *
 * ## Expected-error markers in fixtures
 *
 * A fixture marks each line that must carry an error with a comment holding
 * a substring of the diagnostic's summary (style.md §6):
 *
 * ```hcl
 * max_turns = 20 # ERROR: Attribute redefined
 * ```
 *
 * Several markers may share one comment. Where a comment cannot sit on the
 * failing line (inside a heredoc or string, or at the end of the file), a
 * marker on another line names it: `# ERROR@+N: ...` (N lines below) or
 * `# ERROR@EOF: ...` (the end of the file). Markers are found by a plain
 * text scan, so a marker inside a string counts too: avoid that.
 *
 * @module
 */

import type { Diagnostic } from "../../contract/diagnostic.ts";
import type { Body } from "./ast.ts";
import { evaluate } from "./evaluate.ts";
import { checkSensitiveShape } from "./sensitive.ts";

/** The fixture root, `config/testdata/hcl/`. */
export const FIXTURES: URL = new URL("../testdata/hcl/", import.meta.url);

/** One fixture file. */
export interface Fixture {
  /** File name, e.g. `policies.hcl`. */
  name: string;
  /** Path relative to the fixture root, e.g. `valid/policies.hcl`. */
  path: string;
  /** The file's text. */
  text: string;
}

/**
 * Reads every `.hcl` fixture in one folder, sorted by name.
 *
 * @param kind `valid`, `invalid` or `semantic`.
 * @returns The fixtures.
 */
export function readFixtures(
  kind: "valid" | "invalid" | "semantic",
): Fixture[] {
  const dir = new URL(`${kind}/`, FIXTURES);
  const names = [...Deno.readDirSync(dir)]
    .filter((e) => e.isFile && e.name.endsWith(".hcl"))
    .map((e) => e.name)
    .sort();
  return names.map((name) => ({
    name,
    path: `${kind}/${name}`,
    text: Deno.readTextFileSync(new URL(name, dir)),
  }));
}

/** An expected diagnostic: a line and a substring of the summary. */
export interface Expected {
  /** 1-based line. */
  line: number;
  /** Must occur in the diagnostic's summary. */
  summary: string;
}

const MARKER_REGEXP = /# ERROR(@\+\d+|@EOF)?: /g;

/**
 * Extracts the expected errors from a fixture's markers.
 *
 * @param text The fixture's text.
 * @returns The expected errors, sorted by line.
 */
export function expectedErrors(text: string): Expected[] {
  const lines = text.split("\n");
  const eofLine = lines.length;
  const out: Expected[] = [];
  lines.forEach((line, i) => {
    const matches = [...line.matchAll(MARKER_REGEXP)];
    matches.forEach((m, j) => {
      const start = m.index! + m[0].length;
      const end = j + 1 < matches.length ? matches[j + 1]!.index! : line.length;
      const summary = line.slice(start, end).trim();
      const where = m[1];
      const target = where === "@EOF"
        ? eofLine
        : where
        ? i + 1 + Number(where.slice(2))
        : i + 1;
      out.push({ line: target, summary });
    });
  });
  return out.sort((a, b) => a.line - b.line);
}

/**
 * Checks diagnostics against expected errors: each expected error matches a
 * distinct error diagnostic on its line whose summary contains it, and no
 * error diagnostic is left over.
 *
 * @param diags The diagnostics found.
 * @param expected The expected errors.
 * @returns A description of each mismatch (empty when they match).
 */
export function matchExpected(
  diags: Diagnostic[],
  expected: Expected[],
): string[] {
  const remaining = diags.filter((d) => d.severity === "error");
  const problems: string[] = [];
  for (const e of expected) {
    const i = remaining.findIndex((d) =>
      d.range?.start.line === e.line && d.summary.includes(e.summary)
    );
    if (i < 0) problems.push(`missing: line ${e.line}: ${e.summary}`);
    else remaining.splice(i, 1);
  }
  for (const d of remaining) {
    problems.push(
      `unexpected: line ${d.range?.start.line}: ${d.summary} [${d.code}]`,
    );
  }
  return problems;
}

/** The environment the semantic walk evaluates `env()` against. */
export const TEST_ENV: Readonly<Record<string, string>> = {
  CLAUDE_API_KEY: "sk-test-claude-0000",
  CLAUDE_ORG: "org-test",
  CORP_ARTIFACTS_TOKEN: "corp-token-0000",
  WEB_TOKEN: "web-token-0000",
  VAULT_TOKEN: "vault-token-0000",
};

const SENSITIVE_REGEXP =
  /^(api_key|auth|token|password|secret)$|_(key|token|secret|password)$/;

/**
 * A stand-in for the schema decoder, to exercise the evaluator on fixtures:
 * walks every attribute; `env()` is allowed inside `provider` blocks and
 * for a `mirror` block's `auth` only (config.md §3.1); an attribute whose name looks sensitive (`api_key`, `auth`,
 * `token`, `*_key`, `*_secret`, ...) must pass the shape check first, and is
 * not evaluated when it fails.
 *
 * @param body A parsed body.
 * @param env The environment.
 * @returns Every diagnostic from the shape checks and evaluations.
 */
export function semanticCheck(
  body: Body,
  env: Readonly<Record<string, string>> = TEST_ENV,
): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const walk = (b: Body, context: string, where: string) => {
    for (const attr of b.attributes) {
      const place = `attribute "${attr.name}"${where}`;
      const allowEnv = context === "provider" ||
        (context === "mirror" && attr.name === "auth");
      if (allowEnv && SENSITIVE_REGEXP.test(attr.name)) {
        const d = checkSensitiveShape(attr.expr, { place });
        if (d) {
          diags.push(d);
          continue;
        }
      }
      for (
        const each of evaluate(attr.expr, { allowEnv, env, place }).diagnostics
      ) diags.push(each);
    }
    for (const block of b.blocks) {
      const label = block.labels.map((l) => ` "${l.value}"`).join("");
      const inner = context === "provider" ? context : block.type;
      walk(block.body, inner, ` of ${block.type}${label}`);
    }
  };
  walk(body, "", "");
  return diags;
}

/**
 * A seeded pseudo-random generator (mulberry32).
 *
 * @param seed Any integer.
 * @returns A function returning numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PUNCTUATION = [
  "{",
  "}",
  "[",
  "]",
  "(",
  ")",
  '"',
  "=",
  ",",
  "\n",
  "$",
  "%",
  "${",
  "%{",
  "<<EOF\n",
  "~",
  "#",
  "/*",
  "*/",
  "\\",
  ":",
  ".",
  "...",
  "?",
  "-",
  "!",
  "&&",
  "=>",
  "for",
  "in",
  "if",
  "0",
  "1.5",
  "x",
  " ",
  "\t",
  "\r",
  "'",
  "`",
  "é",
  "😀",
  "<<-",
  "\\u",
  "EOF\n",
  "}\n",
  '"\n',
  "~}",
  "%{ endif }",
];

/** The kinds of mutation {@linkcode mutate} applies. */
export const MUTATIONS = [
  "truncate",
  "delete-char",
  "insert-punctuation",
  "swap-tokens",
  "delete-line",
  "duplicate-line",
] as const;

/**
 * Applies one random mutation to a text.
 *
 * @param text The text.
 * @param random A generator from {@linkcode seededRandom}.
 * @returns The mutated text and the mutation's name.
 */
export function mutate(
  text: string,
  random: () => number,
): { text: string; mutation: string } {
  const pick = (n: number) => Math.floor(random() * n);
  const mutation = MUTATIONS[pick(MUTATIONS.length)]!;
  const pos = pick(text.length + 1);
  switch (mutation) {
    case "truncate":
      return { text: text.slice(0, pos), mutation };
    case "delete-char":
      return { text: text.slice(0, pos) + text.slice(pos + 1), mutation };
    case "insert-punctuation": {
      const p = PUNCTUATION[pick(PUNCTUATION.length)]!;
      return { text: text.slice(0, pos) + p + text.slice(pos), mutation };
    }
    case "swap-tokens": {
      const parts = text.split(/(\s+)/);
      const a = pick(parts.length);
      const b = pick(parts.length);
      [parts[a], parts[b]] = [parts[b]!, parts[a]!];
      return { text: parts.join(""), mutation };
    }
    case "delete-line": {
      const lines = text.split("\n");
      lines.splice(pick(lines.length), 1);
      return { text: lines.join("\n"), mutation };
    }
    case "duplicate-line": {
      const lines = text.split("\n");
      lines.splice(pick(lines.length), 0, lines[pick(lines.length)]!);
      return { text: lines.join("\n"), mutation };
    }
  }
}

/**
 * Generates a realistic agent.hcl of at least `minLines` lines: required
 * providers, provider bodies with env() and heredocs, policies, profiles
 * with model chains, hooks and settings. Deterministic.
 *
 * @param minLines The least number of lines wanted.
 * @returns Valid HCL text.
 */
export function generateConfig(minLines: number): string {
  const out: string[] = [];
  const n = Math.max(1, Math.ceil(minLines / 55));
  out.push("# Generated agent.hcl", "required_providers {");
  for (let i = 0; i < n * 3; i++) {
    out.push(
      `  provider-${i} = { source = "github.com/example-org/provider-${i}", version = "~> ${
        i % 4
      }.${i % 7}" }`,
    );
  }
  out.push("}", "");
  let i = 0;
  while (out.length + 11 < minLines) {
    out.push(
      `provider "provider-${i}" {`,
      `  api_key      = env("PROVIDER_${i}_KEY")`,
      `  base_url     = "https://llm-${i}.internal.example/v1"`,
      `  roots        = [".", "../shared-${i}", "docs/**/README.md"]`,
      `  token_budget = ${1000 + i * 10}`,
      "  headers = {",
      `    "X-Team"  = "team-${i % 5}"`,
      `    "X-Index" = "${i}"`,
      "  }",
      "  system_prompt = <<-EOT",
      `    You are assistant number ${i}.`,
      "    Answer briefly; cite files as $${path}.",
      "    EOT",
      "}",
      "",
      `policy "writes-${i}" {`,
      `  match  = { provider = "provider-${i}", kind = "resource" }`,
      `  action = "${["allow", "ask", "deny"][i % 3]}"`,
      "}",
      "",
      `policy "tool-${i}" {`,
      `  match  = { tool_name = "delete_tree_${i}" }`,
      '  action = "deny"',
      "}",
      "",
      `agent_profile "profile-${i}" {`,
      "  model {",
      "    primary {",
      `      provider = "provider-${i}"`,
      `      id       = "model-large-${i}"`,
      "    }",
      "    fallback {",
      `      provider = "provider-${i + 1}"`,
      `      id       = "model-medium-${i}"`,
      "    }",
      "  }",
      `  tools            = ["provider-${i}.*", "grep.search", "fs.read_file"]`,
      '  slash_commands   = ["summarize", "reset"]',
      `  max_turns        = ${20 + i}`,
      `  max_cost_usd     = ${(i % 9) + 0.5}`,
      "  max_wall_clock_s = 30 * 60",
      `  max_depth        = ${i % 3}`,
      "}",
      "",
      `hook "post-apply" {`,
      `  provider = "provider-${i}"`,
      '  mode     = "observe"',
      "}",
      "",
    );
    i++;
  }
  out.push(
    "settings {",
    '  default_frontend = "web"',
    '  log_level        = "info"',
    "  telemetry        = true",
    "  retry {",
    "    base_delay_ms  = 250",
    "    backoff_factor = 2",
    "    max_retries    = 5",
    "  }",
    "}",
    "",
  );
  return out.join("\n");
}
