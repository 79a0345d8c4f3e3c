/**
 * examples/everyday: one session that uses every first-party provider
 * through the agent loop. The configuration passes `check-config --locked`
 * and `--explain` shows AGENTS.md in the assembled context; then the
 * session runs end to end, in a temporary copy, through the library
 * (`openKernel`) with real plugin subprocesses: the wiki page is served on
 * 127.0.0.1, the approval callback approves the file edit and the graph
 * write, and the answer callback answers ask_user.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import type { ApprovalRequest } from "../kernel/mod.ts";
import { serveWiki, WIKI_PORT } from "../examples/everyday/serve_wiki.ts";
import { DENO_ENV, PATH, REPO, runDeno } from "./_helpers.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const EXAMPLE = `${REPO}/examples/everyday`;

/** Files a run writes into the project; never copied. */
const RUN_DATA = /^\.agent\/(memory\.sqlite|graph\.jsonl)/;

const deno = (args: string[], env: Record<string, string>) =>
  runDeno(args, { env });

/** Copies the example's files (not the data of earlier runs) to `to`. */
async function copyExample(from: string, to: string, rel = ""): Promise<void> {
  await Deno.mkdir(`${to}/${rel}`, { recursive: true });
  for await (const entry of Deno.readDir(`${from}/${rel}`)) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (RUN_DATA.test(path)) continue;
    if (entry.isDirectory) await copyExample(from, to, path);
    else if (entry.isFile) {
      await Deno.copyFile(`${from}/${path}`, `${to}/${path}`);
    }
  }
}

Deno.test("examples/everyday: check-config --locked passes and --explain shows AGENTS.md in the context", async () => {
  // Its own directory, so that --explain's memory provider (it opens its
  // database at Configure) writes nothing into the example.
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-everyday-check-" }),
  );
  try {
    const dir = `${root}/everyday`;
    const env = {
      HOME: root,
      EVERYDAY_GRAPH_FILE: `${dir}/.agent/graph.jsonl`,
    };
    if (Deno.env.get("UPDATE_GOLDEN") === "1") {
      const lock = await deno(["run", "-A", "main.ts", "lock", EXAMPLE], env);
      assert.equal(lock.code, 0, lock.stderr);
    }
    const r = await deno([
      "run",
      "-A",
      "cli/commands/check_config.ts",
      EXAMPLE,
      "--locked",
      "--no-cache",
    ], env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^The configuration is valid: 10 providers, 14 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
    );

    await copyExample(EXAMPLE, dir);
    const explain = await deno([
      "run",
      "-A",
      "cli/commands/check_config.ts",
      dir,
      "--locked",
      "--explain",
      "--no-cache",
    ], env);
    assert.equal(explain.code, 0, explain.stdout + explain.stderr);
    assert.match(
      explain.stdout,
      /^ {2}assembled context: \d+ tokens? in \d+ sections? /m,
    );
    assert.match(explain.stdout, /^ {4}docs: AGENTS\.md \(\d+ tokens\)$/m);
    // Every tool provider's tools are in scope of the one profile.
    assert.match(
      explain.stdout,
      /tools: fs\.\*, search\.\*, sh\.\*, web\.\*, graph\.\*, ask\.\*, tasks\.\*, memory\.\*/,
    );
    assert.match(explain.stdout, /"wc \*": allow {2}\[policy "sh_wc"\]/);
    assert.match(explain.stdout, /"rm \*": deny {2}\[policy "no_rm"\]/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** The tool calls of script.json by the provider that serves them, sorted. */
const EXPECTED_CALLS: Record<string, string[]> = {
  fs: ["edit_file", "read_file"],
  search: ["glob", "grep"],
  sh: ["bash", "bash"],
  web: ["web_fetch"],
  graph: ["graph_create_entities", "graph_open_nodes"],
  ask: ["ask_user"],
  tasks: [
    "task_create",
    "task_create",
    "task_list",
    "task_update",
    "task_update",
    "task_update",
  ],
  memory: ["remember", "search"],
};

Deno.test("examples/everyday: the session uses every provider end to end", async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-everyday-" }),
  );
  await using wiki = serveWiki({ port: 0 });
  const port = wiki.addr.port;
  try {
    const dir = `${root}/everyday`;
    await copyExample(EXAMPLE, dir);
    // The script fetches from the wiki's documented port; use ours.
    const script = await Deno.readTextFile(`${dir}/script.json`);
    assert.ok(script.includes(`http://127.0.0.1:${WIKI_PORT}/rounding`));
    await Deno.writeTextFile(
      `${dir}/script.json`,
      script.replaceAll(`127.0.0.1:${WIKI_PORT}`, `127.0.0.1:${port}`),
    );
    const before = await Deno.readTextFile(`${dir}/src/convert.ts`);

    await using kernel = await openKernel(dir, {
      builtins: BUILTINS,
      locked: true,
      env: {
        PATH,
        HOME: root,
        XDG_STATE_HOME: `${root}/state`,
        XDG_DATA_HOME: `${root}/data`,
        XDG_CONFIG_HOME: `${root}/config`,
        // The run's HOME is temporary: keep Deno's cache and network
        // settings, for the MCP server that runs as `deno run npm:…`.
        ...DENO_ENV,
        NO_COLOR: "1",
        EVERYDAY_GRAPH_FILE: `${dir}/.agent/graph.jsonl`,
      },
    });
    const asked: ApprovalRequest[] = [];
    const questions: string[] = [];
    const run = kernel.run(
      "Round the Fahrenheit conversion the way the team wants",
      {
        approve: (request) => {
          asked.push(request);
          return Promise.resolve({ decision: "allow", scope: "once" });
        },
        answer: (request) => {
          questions.push(String(request.prompt.question));
          return Promise.resolve({ answer: "only Fahrenheit" });
        },
      },
    );
    const events: SessionEvent[] = [];
    for await (const e of run) events.push(e);
    const result = await run.result;
    const results = events.filter((e) => e.type === "tool_result");
    assert.equal(
      result.status,
      "completed",
      JSON.stringify({ error: result.error, results }, null, 2),
    );
    assert.equal(
      result.finalText,
      "Done: toFahrenheit now rounds to one decimal, as the team wiki says; toCelsius is unchanged, as you decided. The rule is in the knowledge graph and in the project's memory, and both tasks are complete.",
    );

    // Every provider's tools ran, and every call succeeded.
    const failed = results.filter((e) => e.isError);
    assert.deepEqual(failed, [], JSON.stringify(failed, null, 2));
    // (Calls of one turn may finish in any order.)
    const byProvider: Record<string, string[]> = {};
    for (const e of results) (byProvider[e.provider] ??= []).push(e.tool);
    for (const tools of Object.values(byProvider)) tools.sort();
    assert.deepEqual(byProvider, EXPECTED_CALLS);

    // The edit and the graph write were asked for (and approved); nothing
    // else was.
    assert.deepEqual(
      asked.map((a) => `${a.provider}.${a.tool}`).sort(),
      ["fs.edit_file", "graph.graph_create_entities"],
    );
    assert.deepEqual(questions, [
      "Should toCelsius be rounded to one decimal too?",
    ]);

    // AGENTS.md is in the context of every model call; the remembered
    // fact is recalled into the calls after `remember`.
    const contexts = events.filter((e) => e.type === "context_assembled");
    assert.equal(contexts.length, 12);
    for (const c of contexts) {
      assert.ok(
        c.sections.some((s) =>
          s.provider === "docs" && s.label === "AGENTS.md"
        ),
        JSON.stringify(c.sections),
      );
    }
    const rememberedAt = events.findIndex((e) =>
      e.type === "tool_result" && e.tool === "remember"
    );
    const memoryLabel = /^memory:project:rounding-of-converted-temperatures$/;
    assert.ok(
      !events.slice(0, rememberedAt).some((e) =>
        e.type === "context_assembled" &&
        e.sections.some((s) => memoryLabel.test(s.label))
      ),
      "nothing is recalled before it is remembered",
    );
    const later = events.slice(rememberedAt).filter((e) =>
      e.type === "context_assembled"
    );
    assert.ok(later.length > 0);
    for (const c of later) {
      assert.ok(
        c.type === "context_assembled" &&
          c.sections.some((s) =>
            s.provider === "memory" && memoryLabel.test(s.label)
          ),
        JSON.stringify(c),
      );
    }

    // The control plane told the agent of the memory it wrote and searched
    // (builtin/memory's tools), and of the recall that followed.
    const memoryControl = events.flatMap((e) =>
      e.type === "control" &&
        (e.channel === "memory" || e.channel === "memory-recall")
        ? [[e.channel, e.attributes]]
        : []
    );
    assert.deepEqual(memoryControl, [
      ["memory", { op: "save", scope: "project" }],
      ["memory-recall", {
        count: "1",
        names: "rounding-of-converted-temperatures",
      }],
      ["memory", { op: "recall", scope: "all", "hit-count": "1" }],
    ]);

    // The wiki page's text reached the model (as markdown).
    const page = results.find((e) => e.tool === "web_fetch");
    assert.match(page?.text ?? "", /# Rounding rules/);
    assert.match(page?.text ?? "", /Math\.round\(value \* 10\) \/ 10/);

    // The file changed on disk, exactly as planned.
    const after = await Deno.readTextFile(`${dir}/src/convert.ts`);
    assert.notEqual(after, before);
    assert.equal(
      after,
      before.replace(
        "  // TODO: round as the wiki says\n  return celsius * 9 / 5 + 32;",
        "  // One decimal, as the team wiki says (/rounding).\n  return Math.round((celsius * 9 / 5 + 32) * 10) / 10;",
      ),
    );
    // The MCP server kept the entity in its graph file, and the memory
    // provider its record in the project's database.
    assert.match(
      await Deno.readTextFile(`${dir}/.agent/graph.jsonl`),
      /"name":"fahrenheit-rounding","entityType":"convention"/,
    );
    assert.ok((await Deno.stat(`${dir}/.agent/memory.sqlite`)).isFile);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
