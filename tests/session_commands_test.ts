/**
 * builtin/commands' session commands (`/model`, `/plan`, `/compact`,
 * `/clear`, `/sessions`, `/resume`, `/verify`) end to end: the real
 * commands plugin answers with a kernel action, the kernel carries it out
 * for the invoking session (kernel/frontend/kernel_actions.ts), through
 * the same hub operation the CLI and `InvokeSlashCommand` use, with the
 * real scripted models and the real compactor.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { openKernel } from "../kernel/kernel.ts";
import type { CommandOutcome, Kernel, KernelSession } from "../kernel/api.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { PATH } from "./_helpers.ts";

interface Fixture extends AsyncDisposable {
  kernel: Kernel;
}

async function fixture(): Promise<Fixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-commands-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  main      = { source = "builtin/scripted", version = "~> 0.1" }
  alt       = { source = "builtin/scripted", version = "~> 0.1" }
  cheap     = { source = "builtin/scripted", version = "~> 0.1" }
  compactor = { source = "builtin/compactor", version = "~> 0.1" }
  cmds      = { source = "builtin/commands", version = "~> 0.1" }
}

provider "main" {
  script     = "./main.json"
  allow_read = ["."]
}

provider "alt" {
  script     = "./alt.json"
  allow_read = ["."]
}

provider "cheap" {
  script     = "./cheap.json"
  allow_read = ["."]
}

provider "cmds" {
  allow_write = ["."]
}

provider "compactor" {
  summary_profile   = "summarizer"
  keep_recent_turns = 2
}

policy "commands_ok" {
  match  = { provider = "cmds" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "main"
      id       = "scripted"
    }
    fallback {
      provider = "alt"
      id       = "alt"
    }
  }
  tools          = []
  slash_commands = ["cmds.*"]
}

agent_profile "summarizer" {
  model {
    primary {
      provider = "cheap"
      id       = "scripted"
    }
  }
  tools = []
}
`,
  );
  await Deno.writeTextFile(
    `${dir}/main.json`,
    JSON.stringify({
      turns: Array.from({ length: 20 }, (_, i) => ({ text: `Answer ${i}.` })),
    }),
  );
  await Deno.writeTextFile(
    `${dir}/alt.json`,
    JSON.stringify({
      model: { id: "alt" },
      turns: Array.from({ length: 20 }, () => ({ text: "From alt." })),
    }),
  );
  await Deno.writeTextFile(
    `${dir}/cheap.json`,
    JSON.stringify({ turns: [{ text: "Questions were answered." }] }),
  );
  const kernel = await openKernel(dir, {
    builtins: BUILTINS,
    env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
    sessionsDir: `${root}/sessions`,
  });
  return {
    kernel,
    [Symbol.asyncDispose]: async () => {
      try {
        await kernel.close();
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  };
}

async function ok(
  session: KernelSession,
  command: string,
): Promise<JsonObject> {
  const [name, ...rest] = command.split(" ");
  const r: CommandOutcome = await session.command(name!, rest.join(" "));
  assert.ok(r.ok, `/${command}: ${!r.ok && r.error}`);
  return r.result;
}

async function fails(session: KernelSession, command: string): Promise<string> {
  const [name, ...rest] = command.split(" ");
  const r = await session.command(name!, rest.join(" "));
  assert.ok(!r.ok, `/${command} succeeded: ${JSON.stringify(r)}`);
  return r.error;
}

Deno.test("builtin/commands' session commands act through kernel actions on the invoking session (one kernel shared by the steps)", async (t) => {
  await using f = await fixture();
  await t.step(
    "builtin/commands /model, /plan, /compact and /verify act on the invoking session through kernel actions: a candidate switch reaches the next model call, plan mode toggles, the real compactor compacts, the hash chain verifies",
    async () => {
      await using session = await f.kernel.session();
      const shown = await ok(session, "model");
      assert.deepEqual(shown.candidates, ["main/scripted", "alt/alt"]);
      assert.match(
        String(shown.text),
        /^Model: main\/scripted \(fallbacks: alt\/alt\)/,
      );
      assert.match(
        await fails(session, "model nope"),
        /"nope" is not a model candidate of profile "default": its candidates are main\/scripted, alt\/alt/,
      );
      for (let i = 0; i < 4; i++) {
        const r = await session.send(`Question ${i}?`).result;
        assert.equal(r.finalText, `Answer ${i}.`);
      }
      const compacted = await ok(session, "compact");
      assert.equal(compacted.compacted, true, String(compacted.text));
      assert.match(
        String(compacted.text),
        /^Compacted by compactor: \d+ → \d+ tokens/,
      );
      assert.ok(
        (compacted.tokens_after as number) <
          (compacted.tokens_before as number),
      );
      const switched = await ok(session, "model alt");
      assert.deepEqual(switched.candidates, ["alt/alt", "main/scripted"]);
      const viaAlt = await session.send("Which model?").result;
      assert.equal(viaAlt.finalText, "From alt.", JSON.stringify(viaAlt));
      assert.equal(session.planMode, false);
      assert.equal((await ok(session, "plan")).plan_mode, true);
      assert.equal(session.planMode, true);
      assert.equal((await ok(session, "plan off")).plan_mode, false);
      assert.equal(session.planMode, false);
      assert.match(await fails(session, "plan maybe"), /on, off or nothing/);
      const verified = await ok(session, "verify");
      assert.equal(verified.ok, true);
      assert.equal(verified.session_id, session.sessionId);
      assert.ok((verified.events as number) > 10);
      assert.match(
        String(verified.text),
        /: ok, \d+ events chain to [0-9a-f]{64} \(keyed/,
      );
    },
  );
  await t.step(
    "builtin/commands /clear starts a new session of the same profile and closes the old one; /sessions lists both; /resume ID goes back to the old one; an unknown ID is named",
    async () => {
      await using session = await f.kernel.session();
      await session.send("Question?").result;
      const first = session.sessionId;
      const cleared = await ok(session, "clear");
      assert.equal(cleared.previous_session_id, first);
      assert.notEqual(cleared.session_id, first);
      assert.equal(session.sessionId, cleared.session_id, "the handle moved");
      assert.equal(session.profile, "default");
      assert.equal(
        (await session.send("Again?").result).finalText,
        "Answer 0.",
      );
      const listed = await ok(session, "sessions");
      const rows = listed.sessions as JsonObject[];
      // (The first step's session is listed too, below these two.)
      assert.deepEqual(rows.slice(0, 2).map((s) => [s.session_id, s.status]), [
        [session.sessionId, "running"],
        [first, "completed"],
      ]);
      assert.match(String(listed.text), /\(this session\)/);
      const resumed = await ok(session, `resume ${first}`);
      assert.equal(resumed.session_id, first);
      assert.match(String(resumed.text), /^Resumed session .* 1 turn\)/);
      assert.equal(session.sessionId, first);
      assert.equal((await ok(session, "verify")).session_id, first);
      assert.match(
        await fails(session, "resume 01J0000000000000000000000Z"),
        /No session "01J0000000000000000000000Z"/,
      );
      assert.match(
        await fails(session, `resume ${first}`),
        /Already in session/,
      );
      const { sessions } = await f.kernel.sessions.list();
      const second = sessions.find((s) => s.sessionId === cleared.session_id);
      assert.equal(
        second?.status,
        2, /* COMPLETED: closed when /resume left it */
      );
    },
  );
});
