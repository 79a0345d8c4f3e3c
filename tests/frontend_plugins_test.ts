/**
 * Frontend, widget-free and slash-command plugins run by `openKernel`
 * (plugins.md §6.5, §6.7; kernel.md §2.6), end to end through real plugin
 * subprocesses and the callback channel: the reference TypeScript frontend
 * (examples/frontend) started by `Kernel.startFrontend` drives a session
 * of the scripted model; the `slasher` fixture (tests/fixtures/slasher)
 * serves two direct-invoke commands, listed by the profile's
 * `slash_commands = ["sl.*"]`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { fromBinary } from "@bufbuild/protobuf";
import { openKernel } from "../kernel/kernel.ts";
import type { FrontendHub } from "../kernel/frontend/hub.ts";
import type { Kernel } from "../kernel/api.ts";
import { ProviderError } from "../kernel/api.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { PlanEventSchema } from "../proto/gen/pluggableharness/event/v1/events_pb.ts";
import {
  Liveness,
  MetadataBlockSchema,
} from "../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import { PATH } from "./_helpers.ts";
import { agent, makeProject, type Turn } from "./_agent_project.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";

const FRONTEND = fileURLToPath(
  new URL("../examples/frontend", import.meta.url),
);
const SLASHER = fileURLToPath(
  new URL("./fixtures/slasher", import.meta.url),
);
const METER = fileURLToPath(new URL("./fixtures/meter", import.meta.url));

interface Project extends AsyncDisposable {
  dir: string;
  sessionsDir: string;
  kernel: Kernel;
  /** Writes the frontend's input lines. */
  input(lines: string[]): Promise<void>;
  /** The frontend's output so far. */
  output(): Promise<string>;
}

async function project(
  turns: Turn[],
  options: {
    slashCommands?: string[];
    onAskPolicy?: string;
    /** More `required_providers` entries. */
    extraRequired?: string;
    /** More top-level blocks. */
    extraBlocks?: string;
    /** openKernel's `prestartFrontend` names this frontend. */
    prestart?: string;
  } = {},
): Promise<Project> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-fe-plugins-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  sl       = { source = ${JSON.stringify(SLASHER)}, version = "~> 0.1" }
  line     = { source = ${JSON.stringify(FRONTEND)}, version = "~> 0.1" }
  ${options.extraRequired ?? ""}
}
${options.extraBlocks ?? ""}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

provider "line" {
  input       = "./input.txt"
  output      = "./output.txt"
  allow_read  = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_ask" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

policy "no_wipe" {
  match  = { provider = "sl", tool_name = "wipe" }
  action = "deny"
}

settings {
  default_frontend = "line"
  log_level        = "warn"
  telemetry        = false
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools          = ["fs.*"]
  slash_commands = ${JSON.stringify(options.slashCommands ?? ["sl.*"])}
}
`,
  );
  await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify({ turns }));
  await Deno.writeTextFile(`${dir}/output.txt`, "");
  const sessionsDir = `${root}/sessions`;
  const kernel = await openKernel(dir, {
    builtins: BUILTINS,
    env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
    sessionsDir,
    ...(options.prestart
      ? { prestartFrontend: () => ({ name: options.prestart! }) }
      : {}),
  });
  return {
    dir,
    sessionsDir,
    kernel,
    input: (lines) =>
      Deno.writeTextFile(`${dir}/input.txt`, lines.join("\n") + "\n"),
    output: () => Deno.readTextFile(`${dir}/output.txt`),
    [Symbol.asyncDispose]: async () => {
      try {
        await kernel.close();
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  };
}

const WRITE: Turn = {
  tool_calls: [{
    id: "toolu_w",
    name: "write_file",
    arguments: { path: "a.txt", content: "hi\n" },
  }],
};

Deno.test("a frontend plugin started from default_frontend drives a real session over the callback channel: SubmitInput, a plan answered from its input, the transcript", async () => {
  await using p = await project([WRITE, { text: "wrote it" }]);
  await p.input(["write a.txt", "allow", "wait"]);
  const fe = await p.kernel.startFrontend();
  assert.equal(fe.name, "line");
  const exit = await fe.exited;
  const out = await p.output();
  assert.deepEqual(
    [exit.code, exit.signal, exit.crashed],
    [0, null, false],
    out,
  );
  assert.match(out, /^created [0-9A-Z]{26}$/m);
  assert.match(out, /^plan: fs\.write_file ASK$/m);
  assert.match(out, /^answered allow$/m);
  assert.match(out, /^assistant: wrote it$/m);
  assert.match(out, /^detached$/m);
  assert.equal(await Deno.readTextFile(`${p.dir}/a.txt`), "hi\n");
});

/** Deno processes running the example frontend in `dir`. */
function frontendPids(dir: string): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).split("\0");
      if (
        cmd[0]?.endsWith("deno") &&
        cmd.some((a) => a.startsWith(FRONTEND)) &&
        Deno.readLinkSync(`/proc/${e.name}/cwd`) === dir
      ) pids.push(Number(e.name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

Deno.test("openKernel's prestartFrontend starts the frontend's process beside the providers; startFrontend configures that same process, which then drives the session", async () => {
  await using p = await project([WRITE, { text: "wrote it" }], {
    prestart: "line",
  });
  const early = frontendPids(p.dir);
  assert.equal(early.length, 1, "the frontend runs once openKernel returns");
  await p.input(["write a.txt", "allow", "wait"]);
  const fe = await p.kernel.startFrontend("line");
  assert.deepEqual(frontendPids(p.dir), early, "no second process");
  const exit = await fe.exited;
  const out = await p.output();
  assert.deepEqual([exit.code, exit.crashed], [0, false], out);
  assert.match(out, /^answered allow$/m);
  assert.equal(await Deno.readTextFile(`${p.dir}/a.txt`), "hi\n");
});

Deno.test("a prestarted frontend that cannot start is reported by startFrontend, as without prestartFrontend", async () => {
  await using p = await project([{ text: "unused" }], { prestart: "fs" });
  await assert.rejects(
    p.kernel.startFrontend("fs"),
    (e: unknown) =>
      e instanceof ProviderError && /"fs".*not a frontend/.test(e.message),
  );
});

Deno.test("InvokeSlashCommand runs a slash-command plugin's Invoke without a model turn, with call_context set, through the plan/apply gate: policy denies /wipe", async () => {
  await using p = await project([{ text: "unused" }]);
  await p.input(["/greet bob", "/wipe", "/nope"]);
  const fe = await p.kernel.startFrontend("line");
  const exit = await fe.exited;
  const out = await p.output();
  assert.equal(exit.crashed, false, out);
  const created = out.match(/^created ([0-9A-Z]{26})$/m)![1]!;
  // /greet ran in the plugin with the kernel's call_context.
  const greet = out.match(/^result: (\{"session_id".*)$/m);
  assert.ok(greet, out);
  const payload = JSON.parse(greet[1]!);
  assert.equal(payload.text, "hello bob");
  assert.equal(payload.session_id, created);
  assert.match(payload.turn_id, /^[0-9A-Z]{26}$/);
  assert.match(out, /^command \/greet done$/m);
  // /wipe is a resource: planned, and denied by policy (never invoked).
  assert.match(out, /^plan: sl\.wipe DENY$/m);
  assert.doesNotMatch(out, /"wiped":true/);
  assert.match(
    out,
    /^command \/nope failed: .*Unknown slash command "\/nope"/m,
  );
  // The plan item is a slash command's, and no model was called.
  const store = new SqliteSessionStore({ dir: p.sessionsDir });
  try {
    const log = await store.open(created);
    try {
      const kinds: EventKind[] = [];
      let category: Category | undefined;
      const items = [];
      for await (const e of log.readEvents()) {
        kinds.push(e.kind);
        if (e.kind === EventKind.PLAN) {
          const plan = fromBinary(PlanEventSchema, e.payload).plan;
          category = plan?.items[0]?.producerCategory;
          items.push(...plan?.items ?? []);
        }
      }
      assert.equal(category, Category.SLASHCOMMAND);
      // The slasher has no Preview: the plan item carries the raw
      // arguments and no preview (plugins.md §6.7 MUST 12).
      const wipe = items.find((i) => i.operationName === "wipe");
      assert.deepEqual(wipe?.input, {});
      assert.equal(wipe?.preview, undefined);
      assert.ok(!kinds.includes(EventKind.MESSAGE), "no model turn ran");
    } finally {
      await log.close();
    }
  } finally {
    await store.close();
  }
});

Deno.test("a crashed frontend leaves the session running headless and its exit names that session: its pending ask is settled by on_ask at once, and a restarted frontend re-attaches", async () => {
  await using p = await project([WRITE, { text: "could not write" }]);
  await p.input(["write a.txt", "crash-at-ask"]);
  const first = await p.kernel.startFrontend();
  const exit = await first.exited;
  const id = (await p.output()).match(/^created ([0-9A-Z]{26})$/m)![1]!;
  assert.deepEqual(exit, {
    code: 3,
    signal: null,
    crashed: true,
    sessions: [id],
  }, "it names the session it left running (the CLI restarts the TUI on it)");
  // Restarted, it re-attaches the still-running session and sees the
  // ask denied by on_ask and the turn finished.
  await p.input(["attach", "wait 1"]);
  const second = await p.kernel.startFrontend();
  assert.equal((await second.exited).crashed, false, await p.output());
  const out = await p.output();
  assert.match(out, new RegExp(`^attached ${id}$`, "m"));
  assert.match(out, /^error: .*/m);
  assert.match(out, /^assistant: could not write$/m);
  await assert.rejects(Deno.stat(`${p.dir}/a.txt`), Deno.errors.NotFound);
});

Deno.test("a widget plugin publishes a metadata block a frontend sees with ListMetadata and on kernel.metadata, LIVE with the widget as producer; when the widget exits, its block turns DISCONNECTED and stays", async () => {
  await using p = await project([{ text: "hi" }], {
    extraRequired: `meter = { source = ${
      JSON.stringify(METER)
    }, version = "~> 0.1" }`,
    extraBlocks: `hook "post-model-response" {
  provider = "meter"
  mode     = "observe"
}

hook "session-end" {
  provider = "meter"
  mode     = "observe"
}`,
  });
  // (Sessions a frontend creates live in the kernel's hub; its bus
  // carries kernel.metadata.)
  const hub = (p.kernel as unknown as { hub: FrontendHub }).hub;
  const seen = hub._options.bus!.subscribe(["kernel.metadata"]);
  await p.input(["hello", "wait", "metadata 1"]);
  const fe = await p.kernel.startFrontend();
  const exit = await fe.exited;
  const out = await p.output();
  assert.equal(exit.crashed, false, out);
  assert.match(
    out,
    /^metadata: responses meter LIVE \{"key":"model responses","value":"1"\}$/m,
  );
  const live = fromBinary(
    MetadataBlockSchema,
    (await seen.next()).value!.payload,
  );
  assert.deepEqual([live.id, live.producer?.name, live.liveness], [
    "responses",
    "meter",
    Liveness.LIVE,
  ]);
  // Ending the session makes the widget exit (at session-end).
  const id = out.match(/^created ([0-9A-Z]{26})$/m)![1]!;
  await hub.close(hub.get(id)!);
  const gone = fromBinary(
    MetadataBlockSchema,
    (await seen.next()).value!.payload,
  );
  assert.deepEqual([gone.id, gone.liveness], [
    "responses",
    Liveness.DISCONNECTED,
  ]);
  assert.deepEqual(
    hub.metadata.list(id).map((b) => [b.id, b.liveness]),
    [["responses", Liveness.DISCONNECTED]],
    "never deleted",
  );
  seen.close();
});

Deno.test("§6.5/§6.6 MUST 12: a widget's Configure failing with a structured WidgetError, and a frontend's with a FrontendError, are reported with their category and message", async (t) => {
  await t.step("widget", async () => {
    const root = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "ph-agent-fe-widget-err-" }),
    );
    try {
      await Deno.writeTextFile(
        `${root}/agent.hcl`,
        `required_providers {
  meter = { source = ${JSON.stringify(METER)}, version = "~> 0.1" }
}

provider "meter" {
  fail_configure = "the CI status feed is unreachable"
}

settings {
  log_level = "warn"
  telemetry = false
}
`,
      );
      await assert.rejects(
        openKernel(root, {
          builtins: BUILTINS,
          env: { PATH, HOME: root },
          sessionsDir: `${root}/sessions`,
        }),
        (e: unknown) => {
          assert.ok(e instanceof ProviderError, String(e));
          assert.equal(e.provider, "meter");
          assert.equal(
            e.message,
            'Provider "meter": cannot configure: widget error RENDER_FAILED: Cannot show the meter: the CI status feed is unreachable',
          );
          return true;
        },
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
  await t.step("frontend", async () => {
    await using p = await project([{ text: "unused" }]);
    await assert.rejects(
      p.kernel.startFrontend("line", { config: { input: "" } }),
      (e: unknown) => {
        assert.ok(e instanceof ProviderError, String(e));
        assert.equal(
          e.message,
          'Provider "line": cannot configure: frontend error INVALID_REQUEST: config attribute "input" is required',
        );
        return true;
      },
    );
  });
});

Deno.test("startFrontend refuses a provider that is not a frontend, naming it", async () => {
  await using p = await project([{ text: "unused" }]);
  await assert.rejects(
    p.kernel.startFrontend("fs"),
    (e: unknown) =>
      e instanceof ProviderError && /"fs".*not a frontend/.test(e.message),
  );
});

Deno.test("the interactive CLI routes /name lines through the same InvokeSlashCommand operation: builtin/commands answers /help, /cost, /context; /export writes the transcript; /compact says no compactor is configured; an unknown command is named", async () => {
  await using p = await makeProject({
    turns: [{ text: "hello there" }],
    extraRequired: `cmds = { source = "builtin/commands", version = "~> 0.1" }`,
    profile: `slash_commands = ["cmds.*"]`,
    extraProviders: `provider "cmds" {
  allow_write = ["."]
}`,
    policies: `policy "commands_ok" {
  match  = { provider = "cmds" }
  action = "allow"
}`,
  });
  const r = await agent(
    p,
    [],
    "hi\n/help\n/cost\n/context\n/export out.md\n/compact\n/nope\n/exit\n",
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /hello there/);
  assert.match(r.out, /^\/help — Lists these commands\.$/m);
  assert.match(r.out, /^\/export — /m);
  assert.match(
    r.out,
    /^\$\d+\.\d{4} over 1 model call \(\d+ input, \d+ output tokens\)$/m,
  );
  assert.match(r.out, /^scripted\/scripted: \d+ of \d+ context tokens used/m);
  assert.match(r.err, /\/compact: No compactor configured/);
  const md = await Deno.readTextFile(`${p.dir}/out.md`);
  assert.match(md, /^# Session [0-9A-Z]{26}$/m);
  assert.match(md, /## User\n\nhi\n/);
  assert.match(md, /## Assistant\n\nhello there\n/);
  assert.match(r.err, /\/nope: Unknown slash command "\/nope".*\/help/);
});

Deno.test("agent run --frontend NAME starts the frontend plugin beside the run: it attaches the run's session and answers its ask", async () => {
  await using p = await makeProject({
    turns: [
      {
        tool_calls: [{
          id: "toolu_w",
          name: "write_file",
          arguments: { path: "b.txt", content: "via frontend\n" },
        }],
      },
      { text: "all written" },
    ],
    extraRequired: `line = { source = ${
      JSON.stringify(FRONTEND)
    }, version = "~> 0.1" }`,
    extraProviders: `provider "line" {
  input       = "./input.txt"
  output      = "./output.txt"
  allow_read  = ["."]
  allow_write = ["."]
}`,
    files: { "input.txt": "attach\nallow\nwait 1\n", "output.txt": "" },
  });
  const r = await agent(p, ["run", "--frontend", "line", "write b.txt"]);
  const out = await Deno.readTextFile(`${p.dir}/output.txt`);
  assert.equal(r.code, 0, `${r.err}\n${out}`);
  assert.match(out, /^attached [0-9A-Z]{26}$/m);
  assert.match(out, /^answered allow$/m);
  assert.equal(await Deno.readTextFile(`${p.dir}/b.txt`), "via frontend\n");
  assert.match(r.out, /all written/);
});

Deno.test("agent --frontend NAME hands the session to the frontend plugin and exits with it; a crashed frontend is a provider error (6)", async () => {
  const options = {
    turns: [{ text: "hi from the model" }],
    extraRequired: `line = { source = ${
      JSON.stringify(FRONTEND)
    }, version = "~> 0.1" }`,
    extraProviders: `provider "line" {
  input       = "./input.txt"
  output      = "./output.txt"
  allow_read  = ["."]
  allow_write = ["."]
}`,
  };
  await using p = await makeProject({
    ...options,
    files: { "input.txt": "hello\nwait\n", "output.txt": "" },
  });
  const ok = await agent(p, ["--frontend", "line"], "");
  const out = await Deno.readTextFile(`${p.dir}/output.txt`);
  assert.equal(ok.code, 0, `${ok.err}\n${out}`);
  assert.match(out, /^assistant: hi from the model$/m);
  // Without its input file the frontend fails (exit 1): a crash.
  await Deno.remove(`${p.dir}/input.txt`);
  const crashed = await agent(p, ["--frontend", "line"], "");
  assert.equal(crashed.code, 6, crashed.err);
  assert.match(crashed.err, /frontend "line" ended with exit code 1/);
  const missing = await agent(p, ["--frontend", "nope"], "");
  assert.equal(missing.code, 6, missing.err);
  assert.match(missing.err, /"nope".*no such provider/);
});
