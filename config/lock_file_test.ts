import assert from "node:assert/strict";
import { evaluate, parseHcl } from "./hcl/mod.ts";
import {
  formatLockFile,
  hclString,
  type LockedProvider,
  type LockFile,
  parseLockFile,
} from "./lock_file.ts";

const SUM = `sha256:${"0123456789abcdef".repeat(4)}`;

function sample(): LockFile {
  return {
    version: 1,
    providers: new Map<string, LockedProvider>([
      ["zeta", {
        name: "zeta",
        source: "github.com/acme/zeta",
        version: "2.0.0-beta.1",
        resolvedAt: "2026-05-02T10:30:00Z",
        checksums: { linux_amd64: SUM, darwin_arm64: SUM },
        category: "model",
      }],
      ["alpha", {
        name: "alpha",
        source: "./plugins/alpha",
        version: "0.1.0",
        resolvedAt: "2026-05-02T10:30:00+02:00",
        checksums: { linux_amd64: SUM },
        envelope: {
          env: ["A_*"],
          run: ["git"],
          read: ["."],
          write: [],
          net: ["x.example:443"],
        },
        configSchema: [
          {
            name: "tricky",
            type: "string",
            required: false,
            sensitive: false,
            description:
              'Quotes " and \\ and ${not} and %{not} and\nnewlines\ttabs \u0001.',
            objectAttributes: [],
            defaultJson: '"${x}"',
          },
          {
            name: "o",
            type: "object",
            required: true,
            sensitive: false,
            description: "",
            objectAttributes: [{
              name: "k",
              type: "string",
              required: false,
              sensitive: true,
              description: "",
              objectAttributes: [],
            }],
          },
        ],
      }],
    ]),
  };
}

Deno.test("formatLockFile() round-trips through parseLockFile(), entries sorted", () => {
  const text = formatLockFile(sample());
  const { lock, diagnostics } = parseLockFile(text, "agent.lock.hcl");
  assert.deepEqual(diagnostics, []);
  assert.deepEqual([...lock!.providers.keys()], ["alpha", "zeta"]);
  const strip = (l: LockFile) =>
    [...l.providers.values()].map(({ range: _range, ...rest }) => rest)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  const expected = strip(sample()).map((p) => ({
    ...p,
    checksums: Object.fromEntries(Object.entries(p.checksums).sort()),
  }));
  assert.deepEqual(strip(lock!), expected);
  // Deterministic: formatting the parsed file gives the same bytes.
  assert.equal(formatLockFile(lock!), text);
});

Deno.test("hclString() escapes what HCL would otherwise interpret", () => {
  for (
    const s of [
      'a"b',
      "back\\slash",
      "${x}",
      "%{ if x }",
      "$${x}",
      "line\nbreak",
      "\u0000\u001f\u007f",
      "émoji 😀",
      "$",
      "%",
    ]
  ) {
    const { body, diagnostics } = parseHcl(`v = ${hclString(s)}\n`, "t.hcl");
    assert.deepEqual(diagnostics, [], s);
    assert.equal(
      evaluate(body.attributes[0]!.expr, { allowEnv: false }).value,
      s,
    );
  }
});

Deno.test("parseLockFile() refuses a file without lock_file_version, or with a non-integer one", () => {
  assert.equal(parseLockFile("", "l").diagnostics[0]?.code, "E_LOCK_VERSION");
  const r = parseLockFile('lock_file_version = "one"\n', "l");
  assert.deepEqual(r.diagnostics.map((d) => d.code), ["E_LOCK_VERSION"]);
});

Deno.test("parseLockFile() checks each entry: required attributes, exact version, RFC 3339, checksum format", () => {
  const r = parseLockFile(
    'lock_file_version = 1\nprovider "x" {\n  source = "s"\n  version = ">= 1.0"\n  resolved_at = "2026-13-45"\n  checksums = { linux_amd64 = "sha256:XYZ" }\n}\nprovider "y" {\n}\n',
    "l",
  );
  assert.equal(r.lock, undefined);
  assert.deepEqual(r.diagnostics.map((d) => d.code), [
    "E_INVALID_VALUE",
    "E_INVALID_VALUE",
    "E_INVALID_VALUE",
    "E_MISSING_ATTR",
    "E_MISSING_ATTR",
    "E_MISSING_ATTR",
    "E_MISSING_ATTR",
  ]);
});

Deno.test("parseLockFile() refuses a category that is not a plugin category, naming it", () => {
  const r = parseLockFile(
    'lock_file_version = 1\nprovider "x" {\n  source = "github.com/a/b"\n  version = "1.0.0"\n  resolved_at = "2026-01-01T00:00:00Z"\n  checksums = {}\n  category = "gadget"\n}\n',
    "l",
  );
  assert.equal(r.lock, undefined);
  assert.deepEqual(r.diagnostics.map((d) => d.code), ["E_INVALID_VALUE"]);
  assert.match(r.diagnostics[0]!.summary, /Invalid category in provider "x"/);
  assert.match(r.diagnostics[0]!.detail ?? "", /got "gadget"/);
});

Deno.test("parseLockFile() rejects functions and references: the lock file is plain data", () => {
  const r = parseLockFile(
    'lock_file_version = 1\nprovider "x" {\n  source = env("S")\n  version = "1.0.0"\n  resolved_at = "2026-01-01T00:00:00Z"\n  checksums = {}\n}\n',
    "l",
  );
  assert.deepEqual(r.diagnostics.map((d) => d.code), [
    "E_FUNCTION_NOT_ALLOWED",
  ]);
});
