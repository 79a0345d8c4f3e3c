/**
 * `deno task demo`: runs the quickstart project (examples/quickstart: the
 * scripted model and the filesystem tool) end to end with
 * `agent run --approve-all`, in a temporary copy so that the repository
 * stays untouched, then shows the diff of what the agent wrote.
 *
 * The session is stored in a temporary state directory too; pass
 * `--keep` to keep both and print their paths.
 *
 * @module
 */
import { join } from "node:path";
import { run } from "../main.ts";

const QUICKSTART = new URL("./quickstart/", import.meta.url).pathname;
const PROMPT = "Summarize notes.md into SUMMARY.md, with the action items.";

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(join(from, e.name), join(to, e.name));
    else if (e.isFile) {
      await Deno.copyFile(join(from, e.name), join(to, e.name));
    }
  }
}

async function files(root: string, dir = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(join(root, dir))) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory) {
      for (const [k, v] of await files(root, rel)) out.set(k, v);
    } else if (e.isFile) out.set(rel, await Deno.readTextFile(join(root, rel)));
  }
  return out;
}

/** A minimal line diff (LCS) for the demo's small files. */
function diffLines(a: string[], b: string[]): string[] {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from(
    { length: n + 1 },
    () => new Array<number>(m + 1).fill(0),
  );
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j]
        ? lcs[i + 1]![j + 1]! + 1
        : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(`+${b[j++]}`);
    } else {
      out.push(`-${a[i++]}`);
    }
  }
  return out;
}

function split(text: string | undefined): string[] {
  if (text === undefined || text === "") return [];
  return text.replace(/\n$/, "").split("\n");
}

const keep = Deno.args.includes("--keep");
const color = Deno.stdout.isTerminal() && !Deno.env.get("NO_COLOR");
const paint = (code: number, s: string) =>
  color ? `\x1b[${code}m${s}\x1b[0m` : s;
const tmp = await Deno.makeTempDir({ prefix: "agent-demo-" });
const project = join(tmp, "quickstart");
const state = join(tmp, "state");
let code = 1;
try {
  await copyTree(QUICKSTART, project);
  const before = await files(project);
  console.log(paint(1, `$ agent run "${PROMPT}" --approve-all`));
  console.log(paint(2, `  (in a copy of examples/quickstart: ${project})\n`));
  code = await run(
    ["run", PROMPT, "--dir", project, "--approve-all"],
    {
      stdout: (t) => Deno.stdout.writeSync(new TextEncoder().encode(t)),
      stderr: (t) => Deno.stderr.writeSync(new TextEncoder().encode(t)),
      isTerminal: Deno.stdout.isTerminal(),
      env: { ...Deno.env.toObject(), XDG_STATE_HOME: state },
      cwd: Deno.cwd(),
    },
  );
  const after = await files(project);
  console.log(paint(1, "\nWhat the agent changed:"));
  let changes = 0;
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(name);
    const b = after.get(name);
    if (a === b) continue;
    changes++;
    console.log(paint(1, `--- ${a === undefined ? "/dev/null" : `a/${name}`}`));
    console.log(paint(1, `+++ ${b === undefined ? "/dev/null" : `b/${name}`}`));
    for (const l of diffLines(split(a), split(b))) {
      console.log(
        l.startsWith("+") ? paint(32, l) : l.startsWith("-") ? paint(31, l) : l,
      );
    }
  }
  if (changes === 0) console.log("(nothing)");
  console.log(
    paint(
      2,
      `\nagent run exited with ${code}${code === 0 ? " (success)" : ""}.`,
    ),
  );
  if (keep) {
    console.log(
      `Kept ${project}; replay the session with:\n  XDG_STATE_HOME=${state} deno task agent sessions list`,
    );
  }
} finally {
  if (!keep) await Deno.remove(tmp, { recursive: true });
}
Deno.exit(code);
