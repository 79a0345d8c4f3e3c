/**
 * The exec tool provider through a real plugin subprocess: the §6.2 MUST
 * list as it applies to a plugin, live streamed output, exit codes,
 * timeouts and cancellation that kill the whole process tree, background
 * commands and their bus notification, confinement, the environment, and
 * the refusal of an ungranted bash.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "@bufbuild/protobuf";
import { EventBus, PluginHost, PluginStartError } from "../../kernel/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type Schema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  OutputStream,
  type ToolEvent,
} from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { MAGIC_COOKIE_KEY } from "../../proto/handshake.ts";
import { type PluginManifest, readManifest } from "../sdk/mod.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const ENTRY = fileURLToPath(new URL("./main.ts", import.meta.url));
const decoder = new TextDecoder();

/** Every event of every Invoke in this file, per call, for the MUST checks. */
const streams: { tool: string; events: ToolEvent[] }[] = [];

/** Whether a process runs (a zombie waiting for its reaper does not). */
function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 4000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/**
 * Host process ids of the live processes whose command line is exactly
 * `argv`. A plugin in the OS sandbox has its own PID namespace, so the
 * `$!` a command reports is not a host pid: the tests that follow a
 * process tree through the plugin find it by a command line no other
 * process has.
 */
function hostPids(argv: readonly string[]): number[] {
  const want = argv.join("\0") + "\0";
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${e.name}/cmdline`);
      if (cmdline === want && isAlive(Number(e.name))) {
        pids.push(Number(e.name));
      }
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Waits until a process with this command line runs (true) or `ms` pass. */
async function started(argv: readonly string[], ms = 4000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (hostPids(argv).length > 0) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** Waits until no process with this command line runs (true) or `ms` pass. */
async function allGone(argv: readonly string[], ms = 4000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (hostPids(argv).length === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return hostPids(argv).length === 0;
}

let sleeps = 0;
/** `sleep 30.<n>`: a sleep whose command line no other process has. */
function uniqueSleep(): string[] {
  return ["sleep", `30.${Deno.pid}${++sleeps}`];
}

function walkSchema(s: Schema | undefined, where: string): void {
  assert.ok(s, `${where}: a schema is present`);
  assert.ok(
    [
      SchemaType.OBJECT,
      SchemaType.STRING,
      SchemaType.NUMBER,
      SchemaType.BOOLEAN,
    ]
      .includes(s.type),
    `${where}: type is set and in the subset`,
  );
  for (const r of s.required) assert.ok(r in s.properties, `${where}.${r}`);
  for (const [k, v] of Object.entries(s.properties)) {
    walkSchema(v, `${where}.${k}`);
  }
}

function conforms(
  payload: JsonObject,
  s: Schema | undefined,
  where: string,
): void {
  assert.ok(s);
  for (const r of s.required) assert.ok(r in payload, `${where} has "${r}"`);
  for (const [k, v] of Object.entries(payload)) {
    const p: Schema | undefined = s.properties[k];
    assert.ok(p, `${where}: "${k}" is declared`);
    const type: string | undefined = ({
      [SchemaType.STRING]: "string",
      [SchemaType.NUMBER]: "number",
      [SchemaType.BOOLEAN]: "boolean",
    } as Record<number, string>)[p.type];
    assert.equal(typeof v, type, `${where}: "${k}" has its declared type`);
  }
}

async function project(): Promise<
  { dir: string; root: string; outside: string }
> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-exec-test-" }),
  );
  await Deno.mkdir(`${dir}/root/sub`, { recursive: true });
  await Deno.mkdir(`${dir}/outside`);
  await Deno.symlink(`${dir}/outside`, `${dir}/root/escape`);
  return { dir, root: `${dir}/root`, outside: `${dir}/outside` };
}

type Tool = ReturnType<Awaited<ReturnType<PluginHost["launch"]>>["client"]>;

function client(tool: Tool, root: string, sessionId = "01SESSION") {
  const invoke = async (
    toolName: string,
    args: JsonObject,
    options: {
      cwd?: string;
      signal?: AbortSignal;
      onEvent?: (e: ToolEvent) => void;
      sessionId?: string;
    } = {},
  ): Promise<ToolEvent[]> => {
    const out: ToolEvent[] = [];
    streams.push({ tool: toolName, events: out });
    for await (
      const r of (tool as unknown as {
        invoke: (
          req: unknown,
          o?: { signal?: AbortSignal },
        ) => AsyncIterable<{ event?: ToolEvent }>;
      }).invoke({
        call: {
          id: `c${streams.length}`,
          toolName,
          arguments: args,
          callContext: {
            sessionId: options.sessionId ?? sessionId,
            turnId: "01TURN",
            workingDirectory: options.cwd ?? root,
          },
        },
      }, options.signal ? { signal: options.signal } : {})
    ) {
      assert.ok(r.event, "every response carries an event");
      out.push(r.event);
      options.onEvent?.(r.event);
    }
    return out;
  };
  const ok = async (
    toolName: string,
    args: JsonObject,
    options?: Parameters<typeof invoke>[2],
  ): Promise<JsonObject> => {
    const evs = await invoke(toolName, args, options);
    const last = evs.at(-1)?.event;
    assert.equal(
      last?.case,
      "result",
      `${toolName} succeeds: ${
        last?.case === "error" ? last.value.message : last?.case
      }`,
    );
    return last.value.payload ?? {};
  };
  const fails = async (
    toolName: string,
    args: JsonObject,
    category: ToolErrorCategory,
    pattern: RegExp,
    options?: Parameters<typeof invoke>[2],
  ) => {
    const evs = await invoke(toolName, args, options);
    const last = evs.at(-1)?.event;
    assert.equal(last?.case, "error", `${toolName} fails`);
    assert.equal(
      last.value.category,
      category,
      `category ${
        ToolErrorCategory[last.value.category]
      }: ${last.value.message}`,
    );
    assert.match(last.value.message, pattern);
    assert.equal(typeof last.value.retryable, "boolean");
    return { error: last.value, events: evs };
  };
  return { invoke, ok, fails };
}

function chunks(events: ToolEvent[], stream: OutputStream): string {
  return events.flatMap((e) =>
    e.event.case === "outputChunk" && e.event.value.stream === stream
      ? [decoder.decode(e.event.value.data)]
      : []
  ).join("");
}

Deno.test("exec tool provider, through a real plugin subprocess", async (t) => {
  const { dir, root, outside } = await project();
  const bus = new EventBus();
  const exited = bus.subscribe(["plugin.tool.exec.*"]);
  try {
    await using host = new PluginHost({
      env: { PATH, HOME: "/home/should-not-leak", SECRET_TOKEN: "s3cr3t" },
      cwd: dir,
      services: { bus },
    });
    const manifest = await readManifest(
      new URL("./plugin.json", import.meta.url),
    );
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      // In the OS sandbox a command may write only where the plugin is
      // granted to: the root, where the steps' commands write files.
      grant: { run: ["bash"], read: [dir], write: [root] },
    });
    const tool = plugin.client(ToolService);

    const schemaBefore = await tool.getSchema({});
    await t.step(
      "MUST 4: GetSchema is cheap and static (same before and after Configure)",
      async () => {
        assert.deepEqual(await tool.getSchema({}), schemaBefore);
      },
    );

    await t.step(
      "MUST 17: Configure rejects a missing or bad attribute without echoing values",
      async () => {
        const bad = async (config: JsonObject, pattern: RegExp) => {
          await assert.rejects(
            () => tool.configure({ config }),
            (e) =>
              e instanceof GrpcStatusError &&
              e.code === Code.INVALID_ARGUMENT &&
              pattern.test(e.message) && !e.message.includes("s3cr3t-value"),
          );
        };
        await bad({}, /"roots" is required/);
        await bad({ roots: [] }, /non-empty list/);
        await bad({ roots: ["./nope"] }, /does not exist/);
        await bad({ roots: ["."], shell: "zsh" }, /"shell" is not supported/);
        await bad({ roots: ["."], max_timeout_s: 99999 }, /at most 3600/);
        await bad(
          { roots: ["."], env: { "BAD-NAME": "s3cr3t-value" } },
          /invalid variable name "BAD-NAME"/,
        );
        await bad(
          { roots: ["."], max_timeout_s: 10, default_timeout_s: 20 },
          /"default_timeout_s" .* at most 10/,
        );
      },
    );

    await tool.configure({
      config: {
        roots: ["root"],
        env: { FOO: "bar", LANG: "C" },
        default_timeout_s: 20,
        max_timeout_s: 30,
        max_output_bytes: 200,
      },
    });
    const { invoke, ok, fails } = client(tool, root);
    const schema = await tool.getSchema({});
    const byName = (n: string) => schema.tools.find((s) => s.name === n)!;

    await t.step(
      "MUST 3, 7–11: schema, kinds, risks, concurrency, idempotency, describe",
      async () => {
        assert.deepEqual(schema.tools.map((s) => s.name), [
          "bash",
          "bash_output",
          "bash_kill",
        ]);
        const bash = byName("bash");
        assert.equal(bash.kind, ToolKind.RESOURCE);
        assert.equal(bash.risk, RiskClass.HIGH);
        assert.equal(bash.streaming, true);
        assert.equal(bash.idempotent, false);
        assert.equal(bash.concurrency?.safe, false);
        const out = byName("bash_output");
        assert.equal(out.kind, ToolKind.DATA_SOURCE);
        assert.equal(out.risk, RiskClass.READ_ONLY);
        assert.equal(out.concurrency?.safe, true);
        assert.equal(byName("bash_kill").kind, ToolKind.RESOURCE);
        assert.equal(byName("bash_kill").risk, RiskClass.LOW);
        for (const s of schema.tools) {
          assert.ok(s.description.length > 20);
          assert.notEqual(s.kind, ToolKind.UNSPECIFIED);
          assert.notEqual(s.risk, RiskClass.UNSPECIFIED);
          assert.ok(s.concurrency, `${s.name} declares a ConcurrencySpec`);
          walkSchema(s.inputSchema, `${s.name}.input`);
          walkSchema(s.outputSchema, `${s.name}.output`);
        }
        assert.deepEqual(
          schema.configSchema?.attributes.map((a) => a.name),
          [
            "roots",
            "env",
            "default_timeout_s",
            "max_timeout_s",
            "max_output_bytes",
          ],
        );
        const d = await tool.describe({});
        assert.equal(d.producer?.name, "exec");
        assert.equal(d.producer?.category, Category.TOOL);
      },
    );

    await t.step(
      "output streams live, in order, then one exit_status, then the result",
      async () => {
        const gate = `${root}/go`;
        const events = await invoke("bash", {
          command: `echo ready; while [ ! -f go ]; do sleep 0.02; done; ` +
            `for i in 1 2 3; do echo out$i; sleep 0.05; echo err$i >&2; sleep 0.05; done; exit 3`,
        }, {
          onEvent: (e) => {
            // Only a live stream lets the command go on: it waits for this.
            if (
              e.event.case === "outputChunk" &&
              decoder.decode(e.event.value.data).includes("ready")
            ) Deno.writeTextFileSync(gate, "");
          },
        });
        const kinds = events.map((e) => e.event.case);
        const exitAt = kinds.indexOf("exitStatus");
        assert.ok(exitAt > 0, "an exit_status");
        assert.equal(kinds.filter((k) => k === "exitStatus").length, 1);
        assert.deepEqual(kinds.slice(exitAt), ["exitStatus", "result"]);
        assert.ok(kinds.slice(0, exitAt).every((k) => k === "outputChunk"));
        assert.equal(
          chunks(events, OutputStream.STDOUT),
          "ready\nout1\nout2\nout3\n",
        );
        assert.equal(chunks(events, OutputStream.STDERR), "err1\nerr2\nerr3\n");
        // arrival order across the two pipes
        const order = events.flatMap((e) =>
          e.event.case === "outputChunk"
            ? decoder.decode(e.event.value.data).trim().split("\n")
            : []
        );
        assert.deepEqual(order, [
          "ready",
          "out1",
          "err1",
          "out2",
          "err2",
          "out3",
          "err3",
        ]);
        const exit = events[exitAt]!.event;
        assert.equal(exit.case, "exitStatus");
        assert.equal(exit.value.exitCode, 3);
        const last = events.at(-1)!.event;
        assert.equal(last.case, "result");
        const p = last.value.payload!;
        assert.equal(p.status, "exited");
        assert.equal(p.exit_code, 3);
        assert.equal(p.stdout, "ready\nout1\nout2\nout3\n");
        assert.equal(p.stderr, "err1\nerr2\nerr3\n");
        assert.equal(p.truncated, false);
        assert.equal(p.working_directory, root);
        conforms(p, byName("bash").outputSchema, "bash result");
      },
    );

    await t.step("exit codes and signals", async () => {
      assert.equal((await ok("bash", { command: "true" })).exit_code, 0);
      assert.equal((await ok("bash", { command: "false" })).exit_code, 1);
      const killed = await invoke("bash", { command: "kill -9 $$" });
      const exit = killed.find((e) => e.event.case === "exitStatus")!.event;
      assert.equal(exit.case, "exitStatus");
      assert.equal(exit.value.signal, "SIGKILL");
      const p = await ok("bash", { command: "kill -9 $$" });
      assert.equal(p.signal, "SIGKILL");
      assert.equal(p.exit_code, 137);
    });

    await t.step(
      "long output is cut in the middle with a marker; streaming is complete",
      async () => {
        const events = await invoke("bash", {
          command: "for i in $(seq 1 200); do echo line$i; done",
        });
        const streamed = chunks(events, OutputStream.STDOUT);
        assert.equal(streamed.split("\n").length, 201);
        const last = events.at(-1)!.event;
        assert.equal(last.case, "result");
        const p = last.value.payload!;
        assert.equal(p.truncated, true);
        const stdout = p.stdout as string;
        assert.ok(stdout.startsWith("line1\nline2\n"));
        assert.ok(stdout.endsWith("line199\nline200\n"));
        assert.match(stdout, /\[… \d+ bytes truncated …\]/);
        assert.ok(stdout.length < 300);
      },
    );

    await t.step(
      "streaming stops at 4 MiB with a progress event; the result stays bounded",
      async () => {
        const events = await invoke("bash", {
          command: "head -c 6000000 /dev/zero | tr '\\0' a; echo; echo end",
        });
        const streamed = events.reduce(
          (n, e) =>
            n +
            (e.event.case === "outputChunk" ? e.event.value.data.length : 0),
          0,
        );
        assert.ok(
          streamed >= 4 * 1024 * 1024 && streamed < 6_000_000,
          `${streamed}`,
        );
        const notes = events.filter((e) => e.event.case === "progress");
        assert.equal(notes.length, 1);
        assert.match(
          JSON.stringify(notes[0]!.event.value),
          /no longer streamed/,
        );
        const last = events.at(-1)!.event;
        assert.equal(last.case, "result");
        assert.equal(last.value.payload?.truncated, true);
        assert.match(
          last.value.payload?.stdout as string,
          /aaa\n\[… \d+ bytes truncated …\]\n.*a\nend\n$/s,
        );
      },
    );

    await t.step(
      "the working directory is the call's, confined to the roots",
      async () => {
        assert.equal(
          (await ok("bash", { command: "pwd" })).stdout,
          `${root}\n`,
        );
        assert.equal(
          (await ok("bash", { command: "pwd" }, { cwd: `${root}/sub` })).stdout,
          `${root}/sub\n`,
        );
        await fails(
          "bash",
          { command: "touch pwned" },
          ToolErrorCategory.PERMISSION_DENIED,
          /outside the roots/,
          { cwd: outside },
        );
        await fails(
          "bash",
          { command: "touch pwned" },
          ToolErrorCategory.PERMISSION_DENIED,
          /outside the roots/,
          { cwd: `${root}/escape` },
        );
        await fails(
          "bash",
          { command: "ls" },
          ToolErrorCategory.NOT_FOUND,
          /does not exist/,
          { cwd: `${root}/missing` },
        );
        await fails(
          "bash",
          { command: "ls" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /absolute path/,
          { cwd: "" },
        );
        await assert.rejects(Deno.stat(`${outside}/pwned`));
      },
    );

    await t.step(
      "the command gets PATH and the configured env, nothing else",
      async () => {
        const p = await ok("bash", { command: "env" });
        const names = (p.stdout as string).trim().split("\n").map((l) =>
          l.split("=")[0]!
        ).sort();
        // bash itself adds PWD, SHLVL and _
        assert.deepEqual(names, ["FOO", "LANG", "PATH", "PWD", "SHLVL", "_"]);
        assert.match(p.stdout as string, /^FOO=bar$/m);
        assert.ok(!(p.stdout as string).includes(MAGIC_COOKIE_KEY));
        assert.ok(!(p.stdout as string).includes("s3cr3t"));
      },
    );

    await t.step("MUST 1: failures are classified", async () => {
      await fails(
        "bash",
        {},
        ToolErrorCategory.INVALID_ARGUMENTS,
        /command must be/,
      );
      await fails(
        "bash",
        { command: "ls", timeout_s: 31 },
        ToolErrorCategory.INVALID_ARGUMENTS,
        /at most 30/,
      );
      await fails(
        "bash",
        { command: "ls", cwd: "/" },
        ToolErrorCategory.INVALID_ARGUMENTS,
        /Unknown argument "cwd"/,
      );
      await fails(
        "rm",
        {},
        ToolErrorCategory.INVALID_ARGUMENTS,
        /Unknown tool "rm"/,
      );
      await fails(
        "bash_output",
        { background_id: "bg_nope" },
        ToolErrorCategory.NOT_FOUND,
        /No background command/,
      );
    });

    await t.step(
      "a timeout kills the whole process tree and is a TIMEOUT error",
      async () => {
        const began = Date.now();
        const sleep = uniqueSleep();
        const { error, events } = await fails(
          "bash",
          {
            command: `${
              sleep.join(" ")
            } & echo $! > grandchild.pid; echo started; wait`,
            timeout_s: 0.5,
          },
          ToolErrorCategory.TIMEOUT,
          /longer than 0.5 s and was killed with its whole process tree/,
        );
        assert.ok(Date.now() - began < 5000);
        const exit = events.find((e) => e.event.case === "exitStatus")?.event;
        assert.equal(exit?.case, "exitStatus");
        assert.equal(error.details?.stdout, "started\n");
        const pid = Number(await Deno.readTextFile(`${root}/grandchild.pid`));
        assert.ok(pid > 0, "the grandchild sleep was started");
        assert.ok(await allGone(sleep), `the grandchild ${sleep} is gone`);
      },
    );

    await t.step(
      "MUST 16: cancellation kills the tree and never reports success",
      async () => {
        const ac = new AbortController();
        let pid = 0;
        const seen: ToolEvent[] = [];
        const sleep = uniqueSleep();
        await assert.rejects(
          invoke("bash", { command: `${sleep.join(" ")} & echo $!; wait` }, {
            signal: ac.signal,
            onEvent: (e) => {
              seen.push(e);
              if (e.event.case === "outputChunk") {
                pid = Number(decoder.decode(e.event.value.data).trim());
                ac.abort();
              }
            },
          }),
          (e) => e instanceof GrpcStatusError && e.code === Code.CANCELLED,
        );
        assert.ok(pid > 0, "the grandchild sleep was started");
        assert.ok(await allGone(sleep), `the grandchild ${sleep} is gone`);
        assert.ok(!seen.some((e) => e.event.case === "result"));
      },
    );

    await t.step(
      "foreground leftovers (cmd &) are killed once bash exits",
      async () => {
        const sleep = uniqueSleep();
        const p = await ok("bash", { command: `${sleep.join(" ")} & echo $!` });
        assert.ok(Number((p.stdout as string).trim()) > 0, "it was started");
        assert.ok(await allGone(sleep), `the leftover ${sleep} is gone`);
      },
    );

    await t.step(
      "MUST 19: Preview shows the command, its segments and directory, and changes nothing",
      async () => {
        const r = await tool.preview({
          call: {
            id: "p1",
            toolName: "bash",
            arguments: {
              command: "touch made && git status | sudo rm -rf x",
              description: "Touch, look, remove",
            },
            callContext: {
              sessionId: "s",
              turnId: "t",
              workingDirectory: root,
            },
          },
        });
        const json = JSON.stringify(r.preview);
        for (
          const s of [
            `Run in ${root}`,
            "touch made && git status | sudo rm -rf x",
            "touch made",
            "git status",
            "sudo rm -rf x",
            "rm -rf x   (via sudo)",
            "Touch, look, remove",
          ]
        ) assert.ok(json.includes(s), `preview shows ${s}: ${json}`);
        await assert.rejects(Deno.stat(`${root}/made`));
        const bad = await tool.preview({
          call: {
            id: "p2",
            toolName: "bash",
            arguments: { command: "eval $X" },
            callContext: {
              sessionId: "s",
              turnId: "t",
              workingDirectory: root,
            },
          },
        });
        assert.match(JSON.stringify(bad.preview), /cannot be split .* eval/);
        await assert.rejects(
          () =>
            tool.preview({
              call: {
                id: "p3",
                toolName: "bash",
                arguments: { command: "ls" },
                callContext: {
                  sessionId: "s",
                  turnId: "t",
                  workingDirectory: outside,
                },
              },
            }),
          (e) =>
            e instanceof GrpcStatusError && e.code === Code.PERMISSION_DENIED,
        );
      },
    );

    await t.step(
      "background: returns at once, bash_output reads new output, the end is published",
      async () => {
        const began = Date.now();
        const started = await ok("bash", {
          command:
            "echo start; while [ ! -f release ]; do sleep 0.02; done; echo end; echo oops >&2; exit 4",
          run_in_background: true,
        });
        assert.ok(Date.now() - began < 2000);
        assert.equal(started.status, "background");
        const id = started.background_id as string;
        assert.match(id, /^bg_[0-9a-f]{12}$/);
        conforms(started, byName("bash").outputSchema, "background result");
        // wait for the first line
        let first: JsonObject = {};
        for (let i = 0; i < 100 && first.stdout !== "start\n"; i++) {
          first = await ok("bash_output", { background_id: id });
          if (first.stdout === "") await new Promise((r) => setTimeout(r, 20));
        }
        assert.equal(first.status, "running");
        assert.equal(first.stdout, "start\n");
        assert.equal("exit_code" in first, false);
        conforms(first, byName("bash_output").outputSchema, "bash_output");
        // another session cannot see it
        await fails(
          "bash_output",
          { background_id: id },
          ToolErrorCategory.NOT_FOUND,
          /in this session/,
          { sessionId: "01OTHER" },
        );
        await Deno.writeTextFile(`${root}/release`, "");
        const note = await exited.next();
        assert.ok(!note.done);
        assert.equal(note.value.topic, "plugin.tool.exec.background_exited");
        assert.equal(note.value.payloadType, "application/json");
        const payload = JSON.parse(decoder.decode(note.value.payload));
        assert.deepEqual(payload, {
          background_id: id,
          session_id: "01SESSION",
          command: started.background_id ? payload.command : "",
          exit_code: 4,
          signal: null,
          killed: false,
          output_tail: "start\nend\noops\n",
        });
        assert.match(payload.command, /echo start/);
        const last = await ok("bash_output", { background_id: id });
        assert.equal(last.status, "exited");
        assert.equal(last.exit_code, 4);
        assert.equal(last.stdout, "end\n");
        assert.equal(last.stderr, "oops\n");
        assert.equal(
          (await ok("bash_output", { background_id: id })).stdout,
          "",
        );
      },
    );

    await t.step(
      "background: bash_kill kills the whole tree and the end is published",
      async () => {
        const sleep = uniqueSleep();
        const bg = await ok("bash", {
          command: `${sleep.join(" ")} & echo $!; wait`,
          run_in_background: true,
        });
        const id = bg.background_id as string;
        assert.ok(await started(sleep), `${sleep} runs`);
        const killed = await ok("bash_kill", { background_id: id });
        assert.equal(killed.status, "killed");
        assert.equal(killed.signal, "SIGTERM");
        assert.ok(await allGone(sleep), `${sleep} is gone`);
        const note = await exited.next();
        assert.ok(!note.done);
        const payload = JSON.parse(decoder.decode(note.value.payload));
        assert.equal(payload.background_id, id);
        assert.equal(payload.killed, true);
        assert.equal(
          (await ok("bash_kill", { background_id: id })).status,
          "exited",
        );
      },
    );

    await t.step(
      "MUST 2, 5, 12, 13, 14: every stream has one terminal event, exit_status only from bash",
      () => {
        assert.ok(streams.length > 20);
        for (const { tool: name, events } of streams) {
          const kinds = events.map((e) => e.event.case);
          const terminal = kinds.filter((k) => k === "result" || k === "error");
          if (terminal.length === 0) continue; // the cancelled call: cut by the client
          assert.equal(
            terminal.length,
            1,
            `${name}: exactly one terminal event`,
          );
          assert.ok(
            ["result", "error"].includes(kinds.at(-1)!),
            `${name}: terminal last`,
          );
          const exits = kinds.filter((k) => k === "exitStatus").length;
          assert.ok(exits <= 1, `${name}: exit_status at most once`);
          if (name !== "bash") {
            assert.equal(exits, 0, `${name} is not process-backed`);
          }
          for (const e of events) {
            if (e.event.case === "error") {
              assert.notEqual(
                e.event.value.category,
                ToolErrorCategory.PROCESS_CRASHED,
              );
              assert.notEqual(
                e.event.value.category,
                ToolErrorCategory.UNSPECIFIED,
              );
              assert.ok(e.event.value.message.length > 0);
            }
            if (e.event.case === "result" && name === "bash_output") {
              conforms(
                e.event.value.payload!,
                byName("bash_output").outputSchema,
                name,
              );
            }
          }
        }
      },
    );
  } finally {
    exited.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('exec without allow_run = ["bash"] is refused: at launch, and in the plugin as PERMISSION_DENIED', async () => {
  const { dir, root } = await project();
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const manifest = await readManifest(
      new URL("./plugin.json", import.meta.url),
    );
    await assert.rejects(
      () =>
        host.launch({ manifest, entrypoint: ENTRY, grant: { read: [dir] } }),
      (e) =>
        e instanceof PluginStartError &&
        e.code === "plugin_permission_denied" &&
        /run permission "bash" is not granted/.test(e.message),
    );
    // A host that starts it anyway without the run grant (a manifest
    // without it): the plugin refuses the call itself.
    const stripped: PluginManifest = {
      ...manifest,
      capabilities: { ...manifest.capabilities, run: [] },
    };
    const plugin = await host.launch({
      manifest: stripped,
      entrypoint: ENTRY,
      grant: { read: [dir] },
    });
    const tool = plugin.client(ToolService);
    await tool.configure({ config: { roots: [root] } });
    const { fails } = client(tool, root);
    await fails(
      "bash",
      { command: "echo hi" },
      ToolErrorCategory.PERMISSION_DENIED,
      /exec may not run bash: grant it with allow_run = \["bash"\]/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MUST 16: a cancelled bash reports what happened (killed, output so far), never success", async () => {
  const { runForeground } = await import("./main.ts");
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-exec-cancel-" }),
  );
  try {
    const ac = new AbortController();
    const events: ToolEvent[] = [];
    for await (
      const e of runForeground(
        {
          command: "sleep 30 & echo $! > child.pid; echo started; wait",
          timeoutS: 20,
          background: false,
        },
        dir,
        {
          roots: [dir],
          env: { PATH },
          defaultTimeoutS: 20,
          maxTimeoutS: 20,
          maxOutputBytes: 1000,
        },
        ac.signal,
      )
    ) {
      const ev = e.event as ToolEvent;
      events.push(ev);
      if (ev.event.case === "outputChunk") ac.abort();
    }
    const kinds = events.map((e) => e.event.case);
    assert.deepEqual(kinds.slice(-3), ["exitStatus", "progress", "error"]);
    assert.ok(!kinds.includes("result"));
    const progress = events.at(-2)!.event;
    assert.equal(progress.case, "progress");
    assert.match(
      progress.value.message,
      /killed with its whole process tree; it may have changed things/,
    );
    const error = events.at(-1)!.event;
    assert.equal(error.case, "error");
    assert.equal(error.value.category, ToolErrorCategory.CANCELLED);
    assert.equal(
      (error.value.details as JsonObject | undefined)?.stdout,
      "started\n",
    );
    const pid = Number(await Deno.readTextFile(`${dir}/child.pid`));
    assert.ok(await gone(pid), "the grandchild is gone");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("exec kills its running commands when the plugin shuts down", async () => {
  const { dir, root } = await project();
  const sleep = uniqueSleep();
  try {
    {
      await using host = new PluginHost({ env: { PATH }, cwd: dir });
      const manifest = await readManifest(
        new URL("./plugin.json", import.meta.url),
      );
      const plugin = await host.launch({
        manifest,
        entrypoint: ENTRY,
        grant: { run: ["bash"], read: [dir] },
      });
      const tool = plugin.client(ToolService);
      await tool.configure({ config: { roots: [root] } });
      const { ok } = client(tool, root);
      const bg = await ok("bash", {
        command: `${sleep.join(" ")} & wait`,
        run_in_background: true,
      });
      assert.equal(bg.status, "background");
      assert.ok(await started(sleep), `${sleep} runs`);
    } // the host shuts the plugin down here
    assert.ok(await allGone(sleep), `the background ${sleep} is gone`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
