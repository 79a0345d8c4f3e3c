/**
 * Benchmark (not a timed test): a stored session of 2,000 events replayed
 * in the web UI, in headless Chromium. It writes the session into a fresh
 * sessions directory (1,000 messages of the scripted model, 500 tool calls
 * and 500 tool results of the filesystem tool), opens the quickstart-like
 * project with the web UI, and times, per run, from `page.goto` of the
 * session page to the transcript painted with all 2,000 events (the
 * pass mark of issue 15 is 1 s), next to an empty `deno run` measured in
 * the same run.
 *
 *     ./denow run -A tests/webui_bench.ts [--runs N] [--json]
 *
 * @module
 */
/// <reference lib="dom" />
import { parseArgs } from "node:util";
import { create, toBinary } from "@bufbuild/protobuf";
import puppeteer from "puppeteer-core";
import { openKernel } from "../kernel/kernel.ts";
import { stateLocationsOf } from "../kernel/open_sessions.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  MessageEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { Role } from "../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { SessionStatus } from "../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { PATH } from "./_helpers.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string" }, json: { type: "boolean" } },
});
const RUNS = Number(values.runs ?? 5);
const EVENTS = 2000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function emptyDenoRun(): Promise<number> {
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    const t = performance.now();
    await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", file],
      stdout: "null",
      stderr: "null",
    }).output();
    return performance.now() - t;
  } finally {
    await Deno.remove(file);
  }
}

const root = await Deno.realPath(
  await Deno.makeTempDir({ prefix: "ph-agent-webui-bench-" }),
);
try {
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
}
provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}
provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}
settings {
  log_level = "warn"
  telemetry = false
}
agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = ["fs.*"]
}
`,
  );
  await Deno.writeTextFile(
    `${dir}/script.json`,
    JSON.stringify({ turns: [{ text: "ok" }] }),
  );
  const env = { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` };
  const sessionsDir = `${root}/sessions`;

  // The stored session, written with the kernel's own key.
  const store = new SqliteSessionStore(stateLocationsOf(env, sessionsDir));
  const log = await store.create({ profile: "default" });
  const model = { category: "model", name: "scripted", version: "0.1.0" };
  const tool = { category: "tool", name: "fs", version: "0.1.0" };
  const pending = [];
  for (let i = 0; i < EVENTS / 4; i++) {
    const text = `Step ${i}: reading file ${i} to see what it holds.`;
    pending.push(
      log.emit({
        kind: EventKind.MESSAGE,
        producer: model as never,
        schemaVersion: "1",
        payload: toBinary(
          MessageEventSchema,
          create(MessageEventSchema, {
            message: {
              role: i % 2 ? Role.ASSISTANT : Role.USER,
              content: [{ block: { case: "text", value: { text } } }],
            },
          }),
        ),
      }),
      log.emit({
        kind: EventKind.MESSAGE,
        producer: model as never,
        schemaVersion: "1",
        payload: toBinary(
          MessageEventSchema,
          create(MessageEventSchema, {
            message: {
              role: Role.ASSISTANT,
              content: [{ block: { case: "text", value: { text } } }],
            },
          }),
        ),
      }),
      log.emit({
        kind: EventKind.TOOL_CALL,
        producer: tool as never,
        schemaVersion: "1",
        payload: toBinary(
          ToolCallEventSchema,
          create(ToolCallEventSchema, {
            call: {
              id: `call_${i}`,
              toolName: "read_file",
              arguments: { path: `file_${i}.txt` },
            },
          }),
        ),
      }),
      log.emit({
        kind: EventKind.TOOL_RESULT,
        producer: tool as never,
        schemaVersion: "1",
        payload: toBinary(
          ToolResultEventSchema,
          create(ToolResultEventSchema, {
            toolCallId: `call_${i}`,
            outcome: {
              case: "result",
              value: { payload: { content: `line ${i}\n`.repeat(5) } },
            },
          }),
        ),
      }),
    );
  }
  await Promise.all(pending);
  await log.setStatus(SessionStatus.COMPLETED);
  const sessionId = log.sessionId;
  await log.close();
  await store.close();

  await using kernel = await openKernel(dir, {
    builtins: BUILTINS,
    env,
    sessionsDir,
  });
  const web = await kernel.startFrontend("web");
  const url = web.notice!.match(/http:\/\/\S+/)![0];
  const base = new URL(url).origin;
  const browser = await puppeteer.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox"],
    pipe: true,
    headless: true,
    env: { ...Deno.env.toObject(), XDG_CONFIG_HOME: `${root}/xdg` },
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    const wall: number[] = [];
    const inPage: number[] = [];
    const empty: number[] = [];
    // One warm-up run, then the measured ones.
    for (let i = 0; i <= RUNS; i++) {
      const t = performance.now();
      await page.goto(`${base}/s/${sessionId}`);
      await page.waitForFunction(
        (n: number) =>
          document.body.dataset.replayed === "true" &&
          document.querySelectorAll("#transcript > li").length === n,
        { timeout: 60_000 },
        EVENTS,
      );
      const ms = performance.now() - t;
      const pageMs = await page.evaluate(() =>
        (globalThis as unknown as { __replayMs: number }).__replayMs
      );
      if (i > 0) {
        wall.push(ms);
        inPage.push(pageMs);
        empty.push(await emptyDenoRun());
      }
    }
    const result = {
      events: EVENTS,
      runs: RUNS,
      replay_ms_median: Math.round(median(wall)),
      replay_ms_max: Math.round(Math.max(...wall)),
      in_page_ms_median: Math.round(median(inPage)),
      empty_deno_run_ms_median: Math.round(median(empty)),
      ratio_to_empty_deno_run: Number(
        (median(wall) / median(empty)).toFixed(1),
      ),
    };
    if (values.json) console.log(JSON.stringify(result));
    else {
      console.log(
        `web UI replay of ${EVENTS} events (page load to painted): median ${result.replay_ms_median} ms, max ${result.replay_ms_max} ms over ${RUNS} runs (in-page fetch+paint median ${result.in_page_ms_median} ms); empty deno run ${result.empty_deno_run_ms_median} ms; ratio ${result.ratio_to_empty_deno_run}x`,
      );
    }
  } finally {
    await browser.close();
    await web.stop();
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
