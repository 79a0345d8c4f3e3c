/**
 * Large `agent.hcl` texts of several shapes, for the 5 MB benchmark
 * (`compile_bench.ts`) and, scaled down, the check-config fuzz corpus
 * (issue 21: "a 5 MB file checked in ≤ 1 s"). Each shape stresses one
 * per-node cost of the parser or the compiler; every valid shape is a
 * configuration the compiler accepts without error, so every stage runs to
 * the end. Deterministic. Not part of the API.
 *
 * @module
 */

/** One generated configuration. */
export interface LargeConfig {
  /** A short name: `policy blocks`, `map attributes`, … */
  shape: string;
  /** The `agent.hcl` text, at least the size asked for. */
  text: string;
  /** Whether the compiler accepts it without error. */
  valid: boolean;
}

/** Repeats `unit(i)` for i = 0, 1, … until `bytes` characters are reached. */
function fill(bytes: number, unit: (i: number) => string): string[] {
  const parts: string[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const u = unit(i);
    parts.push(u);
    n += u.length;
  }
  return parts;
}

/**
 * Nesting depth of the `nested expressions` shape: within the parser's
 * bounds (128 brackets, 1,000 expression levels), deep enough that a
 * per-level cost shows.
 */
const NEST = 40;

/**
 * Generates the large configurations, each of at least `bytes` characters.
 *
 * @param bytes The least size of each text, in UTF-16 code units (ASCII).
 * @returns One configuration per shape, in a fixed order.
 */
export function largeConfigs(bytes: number): LargeConfig[] {
  const echo = 'required_providers {\n  echo = { source = "builtin/echo", ' +
    'version = "~> 0.1" }\n}\n\n';
  const mcp = 'required_providers {\n  m = { source = "builtin/mcp", ' +
    'version = "~> 0.1" }\n}\n\n';
  const line = "abcdefghijklmnopqrstuvwxyz0123456789 the quick brown fox\n";
  const heredoc = `policy "big" {\n  match  = { tool_name = <<EOT\n${
    line.repeat(Math.ceil(bytes / line.length))
  }EOT\n  }\n  action = "deny"\n}\n`;

  const policies = fill(
    bytes,
    (i) =>
      `policy "p${i}" {\n  match  = { tool_name = "tool_${i}" }\n` +
      `  action = "deny"\n}\n`,
  ).join("");

  const env = fill(bytes, (i) => `    VARIABLE_${i} = "value number ${i}"\n`);
  const attributes = `${mcp}provider "m" {\n  command = "server"\n` +
    `  args    = [\n${
      env.slice(0, env.length >> 1).map((_, i) => `    "--flag-${i}",\n`)
        .join("")
    }  ]\n  env = {\n${env.join("")}  }\n}\n`;

  const open = "{ a = ".repeat(NEST);
  const close = " }".repeat(NEST);
  const path = ".a".repeat(NEST);
  const nested = fill(
    bytes,
    (i) =>
      `policy "n${i}" {\n  match  = { tool_name = (${
        "(".repeat(NEST)
      }${open}"tool_${i}"${close}${path}${")".repeat(NEST)}) }\n` +
      `  action = "deny"\n}\n`,
  ).join("");

  const pieces = fill(
    bytes,
    (i) =>
      i % 2 === 0
        ? `piece \${${i} + 1} of the prompt, `
        : `%{ if ${i} > 0 }positive%{ else }zero%{ endif } \${"x${i}"}\n`,
  );
  const template = `${echo}provider "echo" {\n  prefix = <<EOT\n${
    pieces.join("")
  }\nEOT\n}\n`;

  const providers = fill(
    bytes / 2,
    (i) => `  e${i} = { source = "builtin/echo", version = "~> 0.1" }\n`,
  );
  const manyProviders = `required_providers {\n${providers.join("")}}\n\n${
    providers.map((_, i) => `provider "e${i}" {\n  prefix = "${i}: "\n}\n`)
      .join("")
  }`;

  const profiles = `${echo}${
    fill(bytes, (i) =>
      `agent_profile "profile_${i}" {\n  tools     = ["echo.*"]\n` +
      `  max_turns = ${1 + i % 50}\n  max_depth = ${i % 3}\n}\n`).join("")
  }`;

  const errors = fill(
    bytes,
    (i) =>
      `policy "e${i}" {\n  match  = { tool_name = "t" }\n` +
      `  action = "maybe_${i}"\n}\n`,
  ).join("");

  // Allow rules and deny rules with a `command` (issue 21: 2,000 of each,
  // 290 KB, took over 120 s in the allow-overrides-deny warning): every
  // tenth allow narrows its deny, so there are many warnings to bound.
  const tools = ["git", "rm", "curl", "npm", "docker", "kubectl", "ssh"];
  const commandRules = fill(bytes, (i) => {
    const tool = tools[i % tools.length];
    const deny = i % 3 === 0
      ? `command = "${tool} op${i} *"`
      : i % 3 === 1
      ? `command = "*--target-${i}"`
      : `provider = "sh", command = "${tool} op${i} * --force"`;
    const allow = i % 10 === 0
      ? `command = "${tool} op${i} --dry-run *"`
      : i % 10 === 1
      ? `command = "${tool} x --target-${i}"`
      : i % 10 === 2
      ? `provider = "sh", command = "${tool} op${i} --dry-run * --force"`
      : `command = "${tool} status${i} *"`;
    return `policy "deny_${i}" {\n  match  = { ${deny} }\n  action = "deny"\n}\n` +
      `policy "allow_${i}" {\n  match  = { ${allow} }\n  action = "allow"\n}\n`;
  }).join("");

  return [
    { shape: "one heredoc", text: heredoc, valid: true },
    { shape: "policy blocks", text: policies, valid: true },
    { shape: "map attributes", text: attributes, valid: true },
    { shape: "nested expressions", text: nested, valid: true },
    { shape: "long template", text: template, valid: true },
    { shape: "providers", text: manyProviders, valid: true },
    { shape: "profiles", text: profiles, valid: true },
    { shape: "an error per block", text: errors, valid: false },
    { shape: "allow and command deny rules", text: commandRules, valid: true },
  ];
}
