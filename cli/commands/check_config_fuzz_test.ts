// Property-based fuzzing of check-config (issue 21, defects 9 and 10
// follow-up): whatever a project holds, `check-config --json` returns an
// exit code of 0, 1, 2 or 3, never throws and prints exactly one JSON
// document on stdout. The corpus is the hostile inputs of
// check_config_hostile_test.ts plus seeded mutations of the compile and HCL
// fixtures; a few cases also go through the real subprocess. Seeded, so a
// failure replays; bounded by a case count, with a deadline that only cuts
// the mutation loop short on a slow machine (no timing assertion).
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { compileFixtures, FIXTURE_ENV } from "../../config/_compile_testing.ts";
import {
  mutate,
  readFixtures,
  seededRandom,
} from "../../config/hcl/_testing.ts";
import { MAX_EXPR_DEPTH } from "../../config/hcl/mod.ts";
import { largeConfigs } from "../../config/_large_configs.ts";
import { DENO_ENV } from "../../tests/_helpers.ts";
import { run } from "./check_config.ts";
import type { CliIo } from "./io.ts";

const SEED = 20261207;
const MUTANTS = 150;
const HOSTILE_SHARE = 0.15;
const DEADLINE_MS = 5_000;
const SUBPROCESS_CASES = 3;
/** Size of each large-configuration shape (the benchmark's are 5 MB). */
const LARGE_BYTES = 1024 * 1024;
const REPO = new URL("../../", import.meta.url).pathname;
const COMPILE_TESTDATA =
  new URL("../../config/testdata/compile/", import.meta.url)
    .pathname;

/**
 * The inputs that once crashed or hung check-config (issue 21), at full
 * size, or scaled down (`small`) for seeded mutation: depths stay twice
 * `MAX_EXPR_DEPTH`, volumes shrink twentyfold. Then the large
 * configurations of the 5 MB benchmark (`config/_large_configs.ts`: many
 * small blocks, a large map, nested expressions, a long template, many
 * providers and profiles, an error per block, allow rules against
 * command denies) at 1 MB, or 50 KB when
 * small; `valid` says what check-config must answer for those.
 */
function hostileCorpus(
  small = false,
): { name: string; text: string; valid?: boolean }[] {
  const deep = (n: number) => small ? 2 * MAX_EXPR_DEPTH : n;
  const many = (n: number) => small ? Math.ceil(n / 20) : n;
  const lines = Array.from({ length: many(256_000) }, (_, i) => `line ${i}`);
  const large = largeConfigs(many(LARGE_BYTES)).map((c) => ({
    name: `${(c.text.length / 1024 / 1024).toFixed(2)} MB: ${c.shape}`,
    text: c.text,
    valid: c.valid,
  }));
  return [
    {
      name: "10,000-term expression",
      text: `settings {\n  x = ${
        Array(deep(10_000)).fill("1").join(" + ")
      }\n}\n`,
    },
    { name: "150,000 '@' lines", text: "@\n".repeat(many(150_000)) },
    {
      name: "256k-line heredoc",
      text: `settings {\n  x = <<EOT\n${lines.join("\n")}\nEOT\n}\n`,
    },
    {
      name: "5 MB unterminated heredoc",
      text: "settings {\n  x = <<EOT\n" + "abcdefghi\n".repeat(many(500_000)),
    },
    {
      name: "template directives 100,000 deep",
      text: `settings {\n  x = "${"%{ if true }".repeat(deep(100_000))}"\n}\n`,
    },
    {
      name: "template interpolations 100,000 deep",
      text: `settings {\n  x = "${'${"'.repeat(deep(100_000))}"\n}\n`,
    },
    {
      name: "brackets 100,000 deep",
      text: `settings {\n  x = ${"[".repeat(deep(100_000))}${
        "]".repeat(deep(100_000))
      }\n}\n`,
    },
    {
      name: "parentheses 100,000 deep, unclosed",
      text: `settings {\n  x = ${"(".repeat(deep(100_000))}\n}\n`,
    },
    {
      name: "objects 50,000 deep",
      text: `settings {\n  x = ${"{a=".repeat(deep(50_000))}1${
        "}".repeat(deep(50_000))
      }\n}\n`,
    },
    {
      name: "blocks 50,000 deep",
      text: `${"settings {\n".repeat(deep(50_000))}${
        "}\n".repeat(deep(50_000))
      }`,
    },
    {
      name: "unary operators 100,000 deep",
      text: `settings {\n  x = ${"!-".repeat(deep(50_000))}1\n}\n`,
    },
    {
      name: "conditionals 20,000 deep",
      text: `settings {\n  x = ${"true ? 1 : ".repeat(deep(20_000))}0\n}\n`,
    },
    ...large,
  ];
}

function io(
  cwd: string,
  env: Record<string, string>,
): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: { HOME: "/nonexistent-home", ...env },
    cwd,
    platform: "linux_amd64",
    out: () => out,
    err: () => err,
  };
}

/** The property, for one run's outcome; a violation message or undefined. */
function violation(code: number, stdout: string): string | undefined {
  if (![0, 1, 2, 3].includes(code)) return `exit code ${code}`;
  let doc;
  try {
    doc = JSON.parse(stdout); // one document: trailing text would throw
  } catch (err) {
    return `stdout is not one JSON document (${
      err instanceof Error ? err.message : String(err)
    }): ${JSON.stringify(stdout.slice(0, 200))}`;
  }
  if (typeof doc !== "object" || doc === null) return "stdout is not an object";
  if (!Array.isArray(doc.diagnostics)) return "no diagnostics array";
  if (doc.valid !== (code === 0)) {
    return `valid is ${doc.valid} but the exit code is ${code}`;
  }
  return undefined;
}

/** Runs check-config in process; returns a violation message or undefined. */
async function checkInProcess(
  dir: string,
  flags: string[],
  env: Record<string, string>,
  valid?: boolean,
): Promise<string | undefined> {
  const t = io(dir, env);
  let code: number;
  try {
    code = await run([dir, "--json", "--no-cache", ...flags], t);
  } catch (err) {
    return `run() threw: ${
      err instanceof Error ? err.stack ?? err.message : String(err)
    }`;
  }
  const v = violation(code, t.out()) ??
    (t.err() === "" ? undefined : `stderr: ${t.err().slice(0, 200)}`);
  if (v !== undefined || valid === undefined) return v;
  const doc = JSON.parse(t.out());
  return doc.valid === valid
    ? undefined
    : `valid is ${doc.valid}, not ${valid}: ${
      JSON.stringify(doc.diagnostics.slice(0, 2))
    }`;
}

/** Runs the real `check-config` process; returns a violation or undefined. */
async function checkSubprocess(
  dir: string,
  flags: string[],
  env: Record<string, string>,
): Promise<string | undefined> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(REPO, "cli/commands/check_config.ts"),
      dir,
      "--json",
      "--no-cache",
      ...flags,
    ],
    cwd: REPO,
    // The HOME is temporary: Deno's cache stays this process's (a cache of
    // its own would be filled, with download notes on stderr).
    env: { ...DENO_ENV, ...env, HOME: "/nonexistent-home", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  return violation(out.code, new TextDecoder().decode(out.stdout)) ??
    (stderr === "" ? undefined : `stderr: ${stderr.slice(0, 200)}`);
}

interface Base {
  /** Fixture name. */
  name: string;
  /** Project directory inside the temporary root. */
  dir: string;
  /** Relative path → original text, of the files a mutation may change. */
  files: Record<string, string>;
  /** Flags of the fixture (`args`). */
  args: string[];
  /** Whether it is a scaled-down hostile input. */
  hostile: boolean;
}

/**
 * Copies the valid compile fixtures (with the `_plugins` their relative
 * sources point at) and the valid HCL fixtures, each as the `agent.hcl` of
 * a project, under `root`.
 */
async function copyBases(root: string): Promise<Base[]> {
  const bases: Base[] = [];
  const copyTree = async (from: string, to: string) => {
    await Deno.mkdir(to, { recursive: true });
    for await (const e of Deno.readDir(from)) {
      if (e.isDirectory) await copyTree(join(from, e.name), join(to, e.name));
      else if (e.isFile) {
        await Deno.copyFile(join(from, e.name), join(to, e.name));
      }
    }
  };
  await copyTree(join(COMPILE_TESTDATA, "_plugins"), join(root, "_plugins"));
  for (const f of compileFixtures("valid")) {
    const dir = join(root, "valid", basename(f.dir));
    await copyTree(f.dir, dir);
    const files: Record<string, string> = {};
    for (
      const rel of [
        "agent.hcl",
        ".agent/agent.lock.hcl",
        "xdg/agent/config.hcl",
      ]
    ) {
      try {
        files[rel] = await Deno.readTextFile(join(dir, rel));
      } catch {
        // this fixture has no such file
      }
    }
    bases.push({ name: f.name, dir, files, args: f.args, hostile: false });
  }
  for (const f of readFixtures("valid")) {
    const dir = join(root, "hcl", f.name.replace(/\W/g, "_"));
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, "agent.hcl"), f.text);
    bases.push({
      name: `hcl/${f.name}`,
      dir,
      files: { "agent.hcl": f.text },
      args: [],
      hostile: false,
    });
  }
  for (const [i, c] of hostileCorpus(true).entries()) {
    const dir = join(root, "hostile", String(i));
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, "agent.hcl"), c.text);
    bases.push({
      name: `hostile/${c.name}`,
      dir,
      files: { "agent.hcl": c.text },
      args: [],
      hostile: true,
    });
  }
  return bases;
}

Deno.test("check-config --json survives the hostile corpus: exit 0-3, no throw, one JSON document", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-fuzz-" });
  try {
    const failures: string[] = [];
    for (const c of hostileCorpus()) {
      await Deno.writeTextFile(join(dir, "agent.hcl"), c.text);
      const v = await checkInProcess(dir, [], {}, c.valid);
      if (v) failures.push(`${c.name}: ${v}`);
    }
    assert.deepEqual(failures, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(`check-config --json survives up to ${MUTANTS} seeded mutations of the fixtures: exit 0-3, no throw, one JSON document`, async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-fuzz-" });
  try {
    const bases = await copyBases(root);
    const hostile = bases.filter((b) => b.hostile);
    const fixtures = bases.filter((b) => !b.hostile);
    const random = seededRandom(SEED);
    const pick = <T>(xs: readonly T[]): T =>
      xs[Math.floor(random() * xs.length)]!;
    const failures: string[] = [];
    const codes = new Map<number, number>();
    const deadline = Date.now() + DEADLINE_MS;
    let cases = 0;
    for (; cases < MUTANTS && Date.now() < deadline; cases++) {
      const base = pick(random() < HOSTILE_SHARE ? hostile : fixtures);
      const rel = pick(Object.keys(base.files));
      let text = base.files[rel]!;
      const applied: string[] = [];
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const m = mutate(text, random);
        text = m.text;
        applied.push(m.mutation);
      }
      const flags = [
        ...base.args,
        ...(random() < 0.3 ? ["--locked"] : []),
        ...(random() < 0.2 ? ["--require-env"] : []),
      ];
      const env = { ...FIXTURE_ENV, XDG_CONFIG_HOME: join(base.dir, "xdg") };
      const path = join(base.dir, rel);
      await Deno.writeTextFile(path, text);
      try {
        const t = io(base.dir, env);
        let code: number | undefined;
        let v: string | undefined;
        try {
          code = await run([
            base.dir,
            "--json",
            "--no-cache",
            ...new Set(flags),
          ], t);
          v = violation(code, t.out()) ??
            (t.err() === "" ? undefined : `stderr: ${t.err().slice(0, 200)}`);
        } catch (err) {
          v = `run() threw: ${err instanceof Error ? err.stack : String(err)}`;
        }
        if (code !== undefined) codes.set(code, (codes.get(code) ?? 0) + 1);
        if (v) {
          failures.push(
            `${base.name} ${rel} [${applied.join(", ")}] ${
              flags.join(" ")
            }: ${v}\n${JSON.stringify(text.slice(0, 2000))}`,
          );
        }
      } finally {
        await Deno.writeTextFile(path, base.files[rel]!);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(cases > 0);
    // The corpus reaches both sides: some mutants stay valid, some do not.
    assert.ok((codes.get(1) ?? 0) > 0, JSON.stringify([...codes]));
    assert.ok((codes.get(0) ?? 0) > 0, JSON.stringify([...codes]));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the real check-config process prints one JSON document and exits 0-3 on hostile and mutated input", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-fuzz-" });
  try {
    const hostile = hostileCorpus();
    const bases = (await copyBases(root)).filter((b) => !b.hostile);
    const random = seededRandom(SEED + 1);
    const failures: string[] = [];
    const hostileDir = join(root, "subprocess");
    await Deno.mkdir(hostileDir);
    const perBlock = hostile.find((c) =>
      c.name.endsWith("an error per block")
    )!;
    for (const c of [hostile[0]!, hostile[6]!, perBlock]) {
      await Deno.writeTextFile(join(hostileDir, "agent.hcl"), c.text);
      const v = await checkSubprocess(hostileDir, [], {
        XDG_CONFIG_HOME: join(hostileDir, "xdg"),
      });
      if (v) failures.push(`${c.name}: ${v}`);
    }
    for (let i = 0; i < SUBPROCESS_CASES; i++) {
      const base = bases[Math.floor(random() * bases.length)]!;
      const text = mutate(base.files["agent.hcl"]!, random).text;
      const path = join(base.dir, "agent.hcl");
      await Deno.writeTextFile(path, text);
      try {
        const v = await checkSubprocess(base.dir, base.args, {
          ...FIXTURE_ENV,
          XDG_CONFIG_HOME: join(base.dir, "xdg"),
        });
        if (v) failures.push(`${base.name}: ${v}\n${JSON.stringify(text)}`);
      } finally {
        await Deno.writeTextFile(path, base.files["agent.hcl"]!);
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
