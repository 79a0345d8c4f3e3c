/**
 * `agent run` end to end with the search and filesystem providers (real
 * plugin subprocesses, the scripted model): a session globs and greps the
 * project, then renames a function across two files and adds a third with
 * one `multi_edit`, shown as one plan item with a diff section per file.
 * Approved, every file changes; rejected, every file is left untouched and
 * the model sees the denial.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  agent,
  jsonLines,
  makeProject,
  type Project,
  type Turn,
} from "./_agent_project.ts";

const FILES: Record<string, string> = {
  ".gitignore": "dist/\n",
  "README.md": "# Demo\n",
  "src/util.ts": "export function oldName(): number {\n  return 1;\n}\n",
  "src/main.ts":
    "import { oldName } from './util.ts';\nconsole.log(oldName());\n",
  "dist/bundle.ts": "function oldName() {}\n",
};

const TURNS: Turn[] = [
  {
    text: "Let me find the TypeScript files and the uses of oldName.",
    tool_calls: [
      { id: "toolu_glob", name: "glob", arguments: { pattern: "**/*.ts" } },
      {
        id: "toolu_grep",
        name: "grep",
        arguments: {
          pattern: "\\boldName\\b",
          type: "ts",
          output_mode: "content",
        },
      },
    ],
  },
  {
    // Both results are in the last user message: the glob's paths and the
    // grep's numbered lines (dist/ is ignored through .gitignore).
    expect: "src/main.ts:2:console.log(oldName());",
    tool_calls: [{
      id: "toolu_multi",
      name: "multi_edit",
      arguments: {
        files: [
          {
            path: "src/util.ts",
            edits: [{
              old_str: "function oldName",
              new_str: "function newName",
            }],
          },
          {
            path: "src/main.ts",
            edits: [{
              old_str: "oldName",
              new_str: "newName",
              replace_all: true,
            }],
          },
          { path: "CHANGELOG.md", content: "Renamed oldName to newName.\n" },
        ],
      },
    }],
  },
];

async function project(last: Turn): Promise<Project> {
  const p = await makeProject({
    turns: [...TURNS, last],
    extraRequired: `search = { source = "builtin/search", version = "~> 0.1" }`,
    extraProviders: `
provider "search" {
  roots      = ["."]
  allow_read = ["."]
}
`,
    tools: ["fs.*", "search.*"],
  });
  for (const [path, text] of Object.entries(FILES)) {
    const at = `${p.dir}/${path}`;
    await Deno.mkdir(at.slice(0, at.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(at, text);
  }
  return p;
}

async function files(p: Project): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of [...Object.keys(FILES), "CHANGELOG.md"]) {
    try {
      out[path] = await Deno.readTextFile(`${p.dir}/${path}`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return out;
}

Deno.test("agent run: glob, grep, then an approved multi_edit changes every file", async () => {
  await using p = await project({
    expect: "CHANGELOG.md",
    text: "Renamed oldName to newName in two files.",
  });
  const r = await agent(p, [
    "run",
    "Rename oldName to newName",
    "--approve-all",
  ]);
  assert.equal(r.code, 0, r.err);
  // The searches ran without asking; the grep skipped the ignored dist/.
  assert.match(r.out, /→ search\.glob/);
  assert.match(r.out, /→ search\.grep/);
  // One plan item, one diff section per file.
  assert.match(r.out, /plan fs\.multi_edit .* \[moderate\] → ask/);
  assert.match(r.out, /Change 3 files atomically \(1 new\)/);
  assert.match(r.out, /Edit .*src\/util\.ts: 1 replacement \(\+1 −1\)/);
  assert.match(r.out, /Edit .*src\/main\.ts: 2 replacements \(\+2 −2\)/);
  assert.match(r.out, /Create .*CHANGELOG\.md \(1 line\)/);
  assert.match(r.out, /Renamed oldName to newName in two files\.\n$/);
  assert.deepEqual(await files(p), {
    ...FILES,
    "src/util.ts": "export function newName(): number {\n  return 1;\n}\n",
    "src/main.ts":
      "import { newName } from './util.ts';\nconsole.log(newName());\n",
    "CHANGELOG.md": "Renamed oldName to newName.\n",
  });
});

Deno.test("agent run: a rejected multi_edit leaves every file untouched", async () => {
  await using p = await project({
    expect: "denied by on_ask:deny",
    text: "The rename was not approved; nothing changed.",
  });
  const before = await files(p);
  const r = await agent(p, ["run", "Rename oldName to newName", "--json"]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await files(p), before, "no file changed, none created");
  const events = jsonLines(r.out);
  const grep = events.find((e) =>
    e.type === "tool_result" && e.tool === "grep"
  ) as { result?: { content?: string } } | undefined;
  assert.equal(
    grep?.result?.content,
    "src/main.ts:1:import { oldName } from './util.ts';\n" +
      "src/main.ts:2:console.log(oldName());\n" +
      "src/util.ts:1:export function oldName(): number {",
  );
  const glob = events.find((e) =>
    e.type === "tool_result" && e.tool === "glob"
  ) as { result?: { content?: string } } | undefined;
  assert.equal(glob?.result?.content, "src/main.ts\nsrc/util.ts");
  const plan = events.find((e) => e.type === "plan") as
    | { items: { tool: string; decision: string }[] }
    | undefined;
  assert.deepEqual(plan?.items.map((i) => [i.tool, i.decision]), [
    ["multi_edit", "ask"],
  ]);
  const denied = events.find((e) =>
    e.type === "tool_result" && e.tool === "multi_edit"
  );
  assert.equal(denied?.isError, true);
  assert.equal(denied?.deniedBy, "on_ask:deny");
  assert.equal(events.at(-1)?.status, "completed");
});
