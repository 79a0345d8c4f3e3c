/**
 * Waking sessions through real `agent` processes (issue 16): `agent
 * trigger` from another process reaches the process that holds a session
 * (its control endpoint under .agent/run/), resumes a stored one when no
 * process holds it (two racing triggers never both drive it), `agent run
 * --keep-alive` keeps a headless session open for its background command's
 * exit, `agent trigger --due` fires the control_plane timers of a stored
 * session, an interactive session's timer wakes it, and nothing wakes a
 * session whose bounds are spent; a running wake turn stops on
 * `KernelSession.interrupt()` and on the line UI's Ctrl-C, the session
 * staying open. Scripted model; every wait is on a condition, bounded by
 * the test's guard.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  agent,
  jsonLines,
  makeProject,
  type Project,
  REPO,
} from "./_agent_project.ts";
import { DENO_ENV } from "./_helpers.ts";
import { join } from "node:path";
import { tryClaimSession } from "../kernel/control/session_claim.ts";
import {
  deliverToLiveSession,
  RUN_DIR,
} from "../kernel/control/control_endpoint.ts";
import { openKernel } from "../kernel/kernel.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { type AgentIo, run } from "../main.ts";

/** A spawned `agent` process with its output collected as it comes. */
class AgentProcess implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  out = "";
  err = "";
  readonly #done: Promise<Deno.CommandStatus>;
  readonly #waiters = new Set<() => void>();
  #stdin: WritableStreamDefaultWriter<Uint8Array> | undefined;

  constructor(p: Project, args: string[], stdin = false) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${REPO}/main.ts`, ...args],
      cwd: p.dir,
      env: { ...p.env, ...DENO_ENV },
      clearEnv: true,
      stdin: stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin) this.#stdin = this.child.stdin.getWriter();
    const pump = async (
      s: ReadableStream<Uint8Array<ArrayBuffer>>,
      to: "out" | "err",
    ) => {
      for await (const t of s.pipeThrough(new TextDecoderStream())) {
        this[to] += t;
        for (const w of this.#waiters) w();
      }
    };
    const pumps = Promise.all([
      pump(this.child.stdout, "out"),
      pump(this.child.stderr, "err"),
    ]);
    this.#done = pumps.then(() => this.child.status);
  }

  /** Resolves once the output matches (rejects when the process ends first). */
  async waitFor(re: RegExp): Promise<void> {
    while (!re.test(this.out + this.err)) {
      const ended = await Promise.race([
        new Promise<false>((r) => {
          const w = () => {
            this.#waiters.delete(w);
            r(false);
          };
          this.#waiters.add(w);
        }),
        this.#done.then(() => true),
      ]);
      if (ended && !re.test(this.out + this.err)) {
        throw new Error(
          `the process ended before ${re}:\n${this.out}\n${this.err}`,
        );
      }
    }
  }

  async write(line: string): Promise<void> {
    await this.#stdin!.write(new TextEncoder().encode(line));
  }

  async end(): Promise<number> {
    await this.#stdin?.close().catch(() => {});
    this.#stdin = undefined;
    return (await this.#done).code;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.#stdin?.close().catch(() => {});
    await this.#done.catch(() => {});
  }
}

/** Runs `agent ARGS` as its own process to its end. */
async function spawnAgent(p: Project, args: string[]) {
  await using a = new AgentProcess(p, args);
  const code = await a.end();
  return { code, out: a.out, err: a.err };
}

/** The assistant texts of a stored session, in order. */
async function assistantTexts(p: Project, id: string): Promise<string[]> {
  const r = await agent(p, ["sessions", "replay", id, "--json"]);
  assert.equal(r.code, 0, r.err);
  return jsonLines(r.out)
    .filter((e) => e.type === "message" && e.role === "assistant")
    .map((e) => String(e.text));
}

/** Whether the project has `.agent/` (the run directory's parent). */
async function hasAgentDir(p: Project): Promise<boolean> {
  try {
    await Deno.stat(`${p.dir}/.agent`);
    return true;
  } catch {
    return false;
  }
}

/** Fails a test that hangs, with what its processes printed. */
function guard(ms: number): { signal: AbortSignal; [Symbol.dispose](): void } {
  const ac = new AbortController();
  const id = setTimeout(() => ac.abort(), ms);
  return { signal: ac.signal, [Symbol.dispose]: () => clearTimeout(id) };
}

Deno.test("external-trigger: agent trigger from another process wakes the idle interactive session that holds it", async () => {
  using g = guard(120_000);
  await using p = await makeProject({
    turns: [
      { expect: "hello", text: "Hi." },
      {
        expect: '<cp:external-trigger name="ci" target="',
        text: "Woken by CI.",
      },
    ],
  });
  await using live = new AgentProcess(p, ["--no-tui"], true);
  g.signal.addEventListener("abort", () => live.child.kill("SIGKILL"));
  await live.write("hello\n");
  await live.waitFor(/Hi\./);
  const id = /session ([0-9A-Z]{26})/.exec(live.err)![1]!;
  const r = await spawnAgent(p, [
    "trigger",
    id,
    "The nightly build failed",
    "--name",
    "ci",
    "--json",
  ]);
  assert.equal(r.code, 0, r.err);
  const [delivered] = jsonLines(r.out);
  assert.deepEqual(delivered, {
    type: "trigger_delivered",
    sessionId: id,
    pid: live.child.pid,
    outcome: "queued",
  });
  // The wake turn runs in the interactive process.
  await live.waitFor(/Woken by CI\./);
  assert.match(live.err, /cp:external-trigger name=ci .*\(woke the session\)/);
  // The wake turn's text is on screen before the turn ends, and `/exit`
  // ends the session at once, cancelling a wake turn still running: wait
  // until the turn is stored (another process may read the log).
  while ((await assistantTexts(p, id)).length < 2) {
    if (g.signal.aborted) throw new Error("the wake turn was never stored");
    await new Promise((r) => setTimeout(r, 50));
  }
  await live.write("/exit\n");
  assert.equal(await live.end(), 0, live.err);
  // One session log, both turns, written by one process; no socket, no
  // claim, not even .agent/ left behind.
  assert.deepEqual(await assistantTexts(p, id), ["Hi.", "Woken by CI."]);
  assert.equal(await hasAgentDir(p), false);
});

Deno.test("external-trigger: two racing agent trigger processes never both drive one stored session", async () => {
  using g = guard(180_000);
  await using p = await makeProject({
    turns: [
      { expect: "hello", text: "Hi." },
      { expect: "<cp:external-trigger", text: "First trigger handled." },
      { expect: "<cp:external-trigger", text: "Second trigger handled." },
    ],
  });
  const first = await agent(p, ["run", "hello", "--json"]);
  assert.equal(first.code, 0, first.err);
  const id = jsonLines(first.out)[0]!.sessionId as string;
  await using a = new AgentProcess(p, ["trigger", id, "alpha", "--json"]);
  await using b = new AgentProcess(p, ["trigger", id, "beta", "--json"]);
  g.signal.addEventListener("abort", () => {
    a.child.kill("SIGKILL");
    b.child.kill("SIGKILL");
  });
  const [ca, cb] = await Promise.all([a.end(), b.end()]);
  assert.equal(ca, 0, a.err);
  assert.equal(cb, 0, b.err);
  // Each model turn was played once: had both driven the session, both
  // would have played turn 1 and nobody turn 2.
  assert.deepEqual(await assistantTexts(p, id), [
    "Hi.",
    "First trigger handled.",
    "Second trigger handled.",
  ]);
  const replay = jsonLines(
    (await agent(p, ["sessions", "replay", id, "--json"])).out,
  );
  const bodies = replay.filter((e) =>
    e.type === "control" && e.channel === "external-trigger"
  ).map((e) => e.body).sort();
  assert.deepEqual(bodies, ["alpha", "beta"]);
  const verify = await agent(p, ["sessions", "verify", id]);
  assert.equal(verify.code, 0, verify.err + verify.out);
  assert.equal(await hasAgentDir(p), false);
});

Deno.test("shell-exit: agent run --keep-alive holds the headless session until its background command's exit wakes it; a trigger from another process reaches it meanwhile", async () => {
  using g = guard(180_000);
  await using p = await makeProject({
    turns: [
      {
        expect: "build it",
        tool_calls: [{
          id: "b1",
          name: "bash",
          arguments: {
            command:
              "while [ ! -f release ]; do sleep 0.05; done; printf 'FAIL: 2 tests\\n'; exit 3",
            run_in_background: true,
          },
        }],
      },
      { text: "Started the build." },
      {
        expect: '<cp:external-trigger name="ci"',
        text: "Still waiting for the build.",
      },
      {
        expect: '<cp:shell-exit exec-id="bg_',
        text: "The build failed with exit code 3.",
      },
    ],
    extraRequired: 'sh = { source = "builtin/exec", version = "~> 0.1" }',
    extraProviders:
      'provider "sh" {\n  roots      = ["."]\n  allow_run  = ["bash"]\n  allow_read = ["."]\n}\n',
    policies:
      'policy "sh_ok" {\n  match  = { provider = "sh" }\n  action = "allow"\n}\n',
    tools: ["sh.*"],
  });
  await using run = new AgentProcess(p, [
    "run",
    "build it",
    "--keep-alive",
    "--json",
  ]);
  g.signal.addEventListener("abort", () => run.child.kill("SIGKILL"));
  await run.waitFor(/"text":"Started the build\."/);
  const id = jsonLines(run.out)[0]!.sessionId as string;
  const t = await spawnAgent(p, ["trigger", id, "status?", "--name", "ci"]);
  assert.equal(t.code, 0, t.err);
  assert.match(t.out, /Delivered to session .*, which process \d+ holds/);
  await run.waitFor(/"text":"Still waiting for the build\."/);
  await Deno.writeTextFile(`${p.dir}/release`, "");
  assert.equal(await run.end(), 0, run.err);
  const events = jsonLines(run.out);
  const exit = events.find((e) =>
    e.type === "control" && e.channel === "shell-exit"
  );
  assert.equal(exit?.wake, true);
  const attrs = exit?.attributes as Record<string, string> | undefined;
  assert.equal(attrs?.["exit-code"], "3");
  assert.equal(events.at(-1)?.type, "session_ended");
  assert.equal(
    events.at(-1)?.finalText,
    "The build failed with exit code 3.",
  );
});

Deno.test("event-trigger: agent trigger --due fires a stored session's due control_plane timer once", async () => {
  using _g = guard(120_000);
  await using p = await makeProject({
    turns: [
      { expect: "hello", text: "Hi." },
      {
        expect: '<cp:event-trigger source="timer:nightly">',
        text: "Checked the nightly build.",
      },
    ],
    profile: `control_plane {
    timer "nightly" {
      every_s = 3600
      text    = "check the nightly build"
    }
  }`,
  });
  const first = await agent(p, ["run", "hello", "--json"]);
  assert.equal(first.code, 0, first.err);
  const id = jsonLines(first.out)[0]!.sessionId as string;
  // Not due yet: nothing runs, and no plugin is launched — not even the
  // model provider, whose script is broken meanwhile (Configure fails).
  const script = await Deno.readTextFile(`${p.dir}/script.json`);
  await Deno.writeTextFile(`${p.dir}/script.json`, "not a script");
  const early = await agent(p, ["trigger", "--due", id, "--json"]);
  assert.equal(early.code, 0, early.err);
  assert.equal(jsonLines(early.out)[0]!.status, "not_due");
  const unknown = "01JZZZZZZZZZZZZZZZZZZZZZZZ";
  const missing = await agent(p, ["trigger", "--due", unknown, id, "--json"]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.err, new RegExp(unknown));
  assert.doesNotMatch(missing.err, /script/);
  assert.equal(jsonLines(missing.out)[0]!.status, "not_due");
  await Deno.writeTextFile(`${p.dir}/script.json`, script);
  // An hour and a bit later (as cron would run it).
  const later = new Date(Date.now() + 3_700_000).toISOString();
  const due = await spawnAgent(p, [
    "trigger",
    "--due",
    id,
    "--now",
    later,
    "--json",
  ]);
  assert.equal(due.code, 0, due.err);
  const out = jsonLines(due.out);
  assert.equal(out[0]!.status, "due");
  const fired = out.find((e) =>
    e.type === "control" && e.channel === "event-trigger"
  );
  assert.deepEqual(fired?.attributes, { source: "timer:nightly" });
  assert.equal(fired?.wake, true);
  assert.equal(out.at(-1)?.finalText, "Checked the nightly build.");
  // It just fired: not due again for another hour.
  const again = await agent(p, ["trigger", "--due", id, "--json"]);
  assert.equal(again.code, 0, again.err);
  assert.equal(jsonLines(again.out)[0]!.status, "not_due");
});

Deno.test("event-trigger: a control_plane timer wakes the idle interactive session", async () => {
  using g = guard(120_000);
  // Every tick a turn: a slow machine may tick more than once before /exit.
  const tick = {
    expect: '<cp:event-trigger source="timer:tick">',
    text: "Tick handled.",
  };
  await using p = await makeProject({
    turns: Array.from({ length: 20 }, () => tick),
    profile: `control_plane {
    timer "tick" {
      every_s = 1
      text    = "look at the queue"
    }
  }`,
  });
  await using live = new AgentProcess(p, ["--no-tui"], true);
  g.signal.addEventListener("abort", () => live.child.kill("SIGKILL"));
  await live.waitFor(/Tick handled\./);
  assert.match(
    live.err,
    /cp:event-trigger source=timer:tick .*\(woke the session\)/,
  );
  await live.write("/exit\n");
  assert.equal(await live.end(), 0, live.err);
});

Deno.test("wake_refused: neither agent trigger nor a due timer wakes a stored session whose bounds are spent (exit 5)", async () => {
  using _g = guard(120_000);
  await using p = await makeProject({
    // One turn only: a model call for a wake turn would fail the script.
    turns: [{ expect: "hello", text: "Hi." }],
    profile: `max_turns = 1
  control_plane {
    timer "nightly" {
      every_s = 3600
      text    = "check the nightly build"
    }
  }`,
  });
  const first = await agent(p, ["run", "hello", "--json"]);
  assert.equal(first.code, 0, first.err);
  const id = jsonLines(first.out)[0]!.sessionId as string;
  const t = await spawnAgent(p, ["trigger", id, "wake up", "--json"]);
  assert.equal(t.code, 5, t.err + t.out);
  const warning = jsonLines(t.out).find((e) => e.code === "wake_refused");
  assert.match(String(warning?.message), /max_turns bound is exhausted/);
  const later = new Date(Date.now() + 3_700_000).toISOString();
  const due = await agent(p, [
    "trigger",
    "--due",
    id,
    "--now",
    later,
    "--json",
  ]);
  assert.equal(due.code, 5, due.err + due.out);
  assert.deepEqual(await assistantTexts(p, id), ["Hi."]);
});

Deno.test("agent --resume and agent run --resume refuse a session another process has claimed (a trigger driving it), naming that process", async () => {
  using _g = guard(120_000);
  await using p = await makeProject({ turns: [{ text: "never asked" }] });
  const id = "01JCLAIMEDBYANOTHERPROCESS";
  const c = await tryClaimSession(join(p.dir, ".agent", "run"), id);
  assert.ok(c.claimed);
  try {
    for (
      const [args, stdin] of [
        [["run", "--resume", id, "go on"], undefined],
        [["--resume", id], "/exit\n"],
      ] as const
    ) {
      const r = await agent(p, [...args], stdin);
      assert.notEqual(r.code, 0, args.join(" "));
      assert.match(
        r.err,
        new RegExp(
          `Session ${id} is being driven by process ${Deno.pid} \\(a trigger resumed it\\)`,
        ),
      );
    }
  } finally {
    await c.claim.release();
  }
  assert.equal(await hasAgentDir(p), false);
});

/** Resolves with the promise, or rejects when the guard fires first. */
function within<T>(p: Promise<T>, signal: AbortSignal, what: string) {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new Error(`never: ${what}`));
      signal.addEventListener(
        "abort",
        () => reject(new Error(`never: ${what}`)),
        { once: true },
      );
    }),
  ]);
}

/** A wake turn that streams its first word, then holds for a minute. */
const SLOW_WAKE = {
  expect: '<cp:external-trigger name="ci" target="',
  text: "one two",
  delay_ms: 60_000,
};

Deno.test("KernelSession.interrupt() stops a running wake turn: the session stays open and the next prompt runs; with nothing running it returns false", async () => {
  using g = guard(120_000);
  await using p = await makeProject({
    turns: [
      { expect: "hello", text: "Hi." },
      SLOW_WAKE,
      { expect: "again", text: "Still here." },
    ],
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: p.env,
    controlEndpoint: true,
  });
  const woke = Promise.withResolvers<void>();
  const session = await kernel.session({
    onEvent: (e) => {
      if (e.type === "text_delta" && e.text.startsWith("one")) woke.resolve();
    },
  });
  assert.equal(session.interrupt(), false, "nothing runs before a prompt");
  assert.equal((await session.send("hello").result).outcome, "done");
  assert.equal(session.interrupt(), false, "nothing runs between prompts");
  const delivered = await deliverToLiveSession(join(p.dir, RUN_DIR), {
    session: session.sessionId,
    text: "The nightly build failed",
    name: "ci",
  });
  assert.equal(delivered?.outcome, "queued");
  await within(woke.promise, g.signal, "the wake turn streamed");
  assert.equal(session.interrupt(), true, "a wake turn was running");
  await within(session.idle(), g.signal, "the wake turn ended");
  assert.equal(session.ended, false, "the session stays open");
  assert.equal(session.interrupt(), false);
  const next = await session.send("again").result;
  assert.equal(next.outcome, "done");
  assert.equal(next.finalText, "Still here.");
  const outcome = await session.close();
  assert.equal(outcome.status, "completed");
  // The wake turn's answer is stored as far as it had streamed.
  const texts = await assistantTexts(p, outcome.sessionId);
  assert.equal(texts.length, 3, JSON.stringify(texts));
  assert.deepEqual([texts[0], texts[2]], ["Hi.", "Still here."]);
  assert.match(texts[1]!, /^one\s*$/);
});

Deno.test("agent (interactive): Ctrl-C stops a running wake turn, not the session; with nothing running it only hints at /exit", async () => {
  using g = guard(120_000);
  await using p = await makeProject({
    turns: [
      { expect: "hello", text: "Hi." },
      SLOW_WAKE,
      { expect: "again", text: "Still here." },
    ],
  });
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const write = (t: string) => writer.write(new TextEncoder().encode(t));
  let interrupt: ((signal?: "SIGINT" | "SIGTERM") => void) | undefined;
  let out = "";
  let err = "";
  // Both streams in the order they were written.
  let all = "";
  let changed = Promise.withResolvers<void>();
  const seen = (t: string) => {
    all += t;
    changed.resolve();
    changed = Promise.withResolvers<void>();
  };
  const io: AgentIo = {
    stdout: (t) => {
      out += t;
      seen(t);
    },
    stderr: (t) => {
      err += t;
      seen(t);
    },
    isTerminal: false,
    env: p.env,
    cwd: p.dir,
    stdin: input.readable,
    stdinIsTerminal: true,
    onInterrupt: (h) => {
      interrupt = h;
      return () => {};
    },
  };
  const running = run([], io);
  /** Waits until the output from `from` on matches. */
  const waitFor = async (re: RegExp, from = 0) => {
    while (!re.test(all.slice(from))) {
      await within(changed.promise, g.signal, `${re}:\n${all}`);
    }
  };
  // The help is written just before Ctrl-C is listened for.
  await waitFor(/Interactive session\./);
  interrupt!();
  await waitFor(/\n\(\/exit ends the session\)\n/);
  await write("hello\n");
  // The prompt's turn has ended once the next prompt is written.
  let mark = all.length;
  await waitFor(/Hi\.\n[^]*> /, mark);
  const id = /session ([0-9A-Z]{26})/.exec(err)![1]!;
  const delivered = await deliverToLiveSession(join(p.dir, RUN_DIR), {
    session: id,
    text: "The nightly build failed",
    name: "ci",
  });
  assert.equal(delivered?.outcome, "queued");
  mark = all.length;
  await waitFor(/one/, mark);
  interrupt!();
  await waitFor(/\n(interrupted|\(\/exit ends the session\))\n/, mark);
  assert.match(all.slice(mark), /\ninterrupted\n/, "a wake turn was running");
  await write("again\n/exit\n");
  const code = await within(running, g.signal, "the session ended");
  assert.equal(code, 0, all);
  assert.equal(all.match(/\/exit ends the session/g)?.length, 1, all);
  assert.equal(all.match(/interrupted/g)?.length, 1, all);
  assert.doesNotMatch(out, /two/);
  // The session went on: the next prompt got an answer.
  assert.match(out, /\n> again\nStill here\.\n$/);
  assert.match(err, /completed · \$[\d.]+ · session /);
});
