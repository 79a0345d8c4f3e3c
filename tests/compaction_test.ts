/**
 * Compaction end to end (issue 17 part 1): `openKernel` on a project whose
 * main model has a small window, with `builtin/compactor` summarizing older
 * history through a `summarizer` profile on a second scripted model (the
 * scripted model picks its turn by the number of assistant messages, so
 * the summarizer needs a script of its own). The scripted model refuses a
 * request over its window with `context_length_exceeded`, as a vendor does.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { PATH } from "./_helpers.ts";

const ANSWER =
  "Noted: the answer to that question is recorded here in a few plain words.";

interface Fixture extends AsyncDisposable {
  kernel: Awaited<ReturnType<typeof openKernel>>;
}

async function fixture(
  options: {
    compactor: boolean;
    window?: number;
    summary?: Record<string, unknown>;
  },
): Promise<Fixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-compact-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  const hcl = `required_providers {
  main  = { source = "builtin/scripted", version = "~> 0.1" }
  cheap = { source = "builtin/scripted", version = "~> 0.1" }
${
    options.compactor
      ? `  compactor = { source = "builtin/compactor", version = "~> 0.1" }`
      : ""
  }
}

provider "main" {
  script     = "./main.json"
  allow_read = ["."]
}

provider "cheap" {
  script     = "./cheap.json"
  allow_read = ["."]
}
${
    options.compactor
      ? `provider "compactor" {
  summary_profile   = "summarizer"
  keep_recent_turns = 2
}`
      : ""
  }

agent_profile "default" {
  model {
    primary {
      provider = "main"
      id       = "scripted"
    }
  }
  tools = []
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
`;
  await Deno.writeTextFile(`${dir}/agent.hcl`, hcl);
  await Deno.writeTextFile(
    `${dir}/main.json`,
    JSON.stringify({
      model: {
        context_window: options.window ?? 1500,
        max_output_tokens: 100,
      },
      turns: Array.from({ length: 60 }, (_, i) => ({
        text: i === 0
          ? `${ANSWER} <cp:compact type="decision">use sqlite</cp:compact>`
          : `Answer ${i}. ${ANSWER}`,
      })),
    }),
  );
  await Deno.writeTextFile(
    `${dir}/cheap.json`,
    JSON.stringify({
      turns: [
        options.summary ?? {
          text: "The user asked numbered questions; each was answered.",
        },
      ],
    }),
  );
  const kernel = await openKernel(dir, {
    builtins: BUILTINS,
    env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
    sessionsDir: `${root}/sessions`,
  });
  return {
    kernel,
    [Symbol.asyncDispose]: async () => {
      await kernel.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("a session of 200 turns on a small window fails with context_length_exceeded without a compactor", async () => {
  await using f = await fixture({ compactor: false });
  await using session = await f.kernel.session();
  let failure: string | undefined;
  for (let i = 0; i < 200 && !failure; i++) {
    const r = await session.send(`Question ${i}: what is recorded?`).result;
    if (r.outcome !== "done") failure = r.error?.code ?? r.outcome;
  }
  assert.equal(failure, "context_length_exceeded");
});

Deno.test("builtin/compactor: a session of 200 turns on a small window completes with compactions", async () => {
  await using f = await fixture({ compactor: true });
  const events: SessionEvent[] = [];
  await using session = await f.kernel.session({
    onEvent: (e) => events.push(e),
  });
  for (let i = 0; i < 200; i++) {
    const r = await session.send(`Question ${i}: what is recorded?`).result;
    assert.equal(r.outcome, "done", `turn ${i}: ${JSON.stringify(r.error)}`);
  }
  const compactions = events.filter((e) => e.type === "compaction");
  assert.ok(compactions.length >= 5, `${compactions.length} compactions`);
  for (const c of compactions) {
    assert.ok(c.tokensAfter < c.tokensBefore, JSON.stringify(c));
    assert.equal(c.exact, true, "the scripted model counts exactly");
  }
  // The model was told: context-usage on band crossings, compaction-start
  // and compaction with the counts.
  const channels = events.flatMap((e) =>
    e.type === "control" ? [e.channel] : []
  );
  assert.ok(channels.includes("context-usage"));
  assert.ok(channels.includes("compaction-start"));
  const report = events.find((e) =>
    e.type === "control" && e.channel === "compaction"
  );
  assert.ok(report && report.type === "control");
  assert.match(report.rendered, /tokens-before="\d+" tokens-after="\d+"/);
  const usage = events.find((e) => e.type === "context_usage");
  assert.ok(usage && usage.type === "context_usage" && usage.exact);
  await session.close();
});

Deno.test("compactNow() forces a pass whose rewrite survives a resume", async () => {
  await using f = await fixture({
    compactor: true,
    window: 100_000,
    // The summarizer reads the older turns, <cp:compact> blocks included.
    summary: {
      expect: ["Question 0", '<cp:compact type="decision">use sqlite'],
      text: "The user asked numbered questions; each was answered.",
    },
  });
  const events: SessionEvent[] = [];
  const session = await f.kernel.session({ onEvent: (e) => events.push(e) });
  for (let i = 0; i < 4; i++) {
    await session.send(`Question ${i}: what is recorded?`).result;
  }
  const out = await session.compactNow();
  assert.equal(out.compacted, true, out.reason);
  assert.ok(out.tokensAfter < out.tokensBefore);
  const id = session.sessionId;
  await session.close();
  // The resumed session continues from the compacted history: its next
  // request holds only the two kept turns' answers, so the scripted model
  // plays turn 2 (it would play turn 4 on the whole history).
  await using resumed = await f.kernel.session({ resumeId: id });
  const r = await resumed.send("Question 4: what is recorded?").result;
  assert.equal(r.outcome, "done");
  assert.match(r.finalText ?? "", /^Answer 2\./);
  await resumed.close();
  const usage = events.filter((e) => e.type === "compaction");
  assert.equal(usage.length, 1);
});

Deno.test("compactNow() that fails leaves the history unchanged", async () => {
  await using f = await fixture({
    compactor: true,
    window: 100_000,
    summary: { error: { category: "invalid_request", message: "no" } },
  });
  await using session = await f.kernel.session();
  for (let i = 0; i < 4; i++) {
    await session.send(`Question ${i}: what is recorded?`).result;
  }
  const out = await session.compactNow();
  assert.equal(out.compacted, false);
  assert.match(out.reason ?? "", /compactor/);
  assert.equal(out.tokensAfter, out.tokensBefore);
  // The history is whole: the scripted model plays turn 4.
  const r = await session.send("Question 4: what is recorded?").result;
  assert.equal(r.outcome, "done");
  assert.match(r.finalText ?? "", /^Answer 4\./);
  await session.close();
});
