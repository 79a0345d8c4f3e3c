/**
 * The Render pipeline against a real plugin's `Render` (the probe fixture
 * over its gRPC connection): exact producer version, deadline, visible
 * fallbacks, the missing-producers preflight, recorded action nodes.
 */
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { PluginHost, SqliteSessionStore } from "../kernel/mod.ts";
import { openSessions } from "../mod.ts";
import {
  rendererOf,
  RenderPipeline,
  type ReplayItem,
  replayRendered,
} from "../kernel/frontend/render.ts";
import type { RenderedAction } from "../kernel/frontend/hub.ts";
import { producerKey } from "../kernel/state/_session_log.ts";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { ToolResultEventSchema } from "../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { launchProbe, PATH } from "./_helpers.ts";

Deno.test("replay renders each event through the exact producer build, reports missing producers first, and falls back visibly on a missing build, failure, empty tree or deadline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-render-" });
  const store = new SqliteSessionStore({ dir });
  const host = new PluginHost({ env: { PATH } });
  try {
    const probe = await launchProbe(host);
    const v = probe.identity.version;
    const log = await store.create({ profile: "default" });
    const probeBuild = { category: "tool", name: "probe", version: v } as const;
    const oldBuild = { ...probeBuild, version: "0.0.0-old" };
    const enc = (s: string) => new TextEncoder().encode(s);
    const decodable = toBinary(
      ToolResultEventSchema,
      create(ToolResultEventSchema, {}),
    );
    for (
      const [producer, payload] of [
        [probeBuild, enc("hello")],
        [oldBuild, decodable],
        [probeBuild, enc("fail")],
        [probeBuild, enc("empty")],
        [probeBuild, enc("slow")],
      ] as const
    ) {
      await log.emit({
        kind: EventKind.TOOL_RESULT,
        producer,
        schemaVersion: "1",
        payload,
      });
    }
    const render = rendererOf(probe)!;
    const recorded: [string, ReadonlyMap<string, RenderedAction>][] = [];
    const pipeline = new RenderPipeline({
      renderer: (p) =>
        producerKey(p) === producerKey(probeBuild) ? render : undefined,
      // Long enough that a loaded machine answers "fail" in time (one run in
      // three missed 300 ms with the suite running); "slow" never answers.
      timeoutMs: 2000,
      onActions: (sessionId, actions) => recorded.push([sessionId, actions]),
    });
    const items: ReplayItem[] = [];
    for await (const item of replayRendered(log, pipeline, [probeBuild])) {
      items.push(item);
    }
    await log.close();

    const [first, ...events] = items;
    assert.deepEqual(first, {
      type: "missing_producers",
      missing: [{ ...oldBuild, firstSeenSequence: 2 }],
    });
    const rendered = events.map((e) =>
      e.type === "event" ? { seq: e.event.sequence, fallback: e.fallback } : {}
    );
    assert.deepEqual(rendered, [
      { seq: 1, fallback: undefined },
      {
        seq: 2,
        fallback: "producer tool/probe@0.0.0-old is not running in this kernel",
      },
      { seq: 3, fallback: "its Render failed: cannot render this" },
      { seq: 4, fallback: "its Render answered an empty tree" },
      { seq: 5, fallback: "its Render gave no tree within 2000 ms" },
    ]);
    const tree = (events[0] as Extract<ReplayItem, { type: "event" }>).tree;
    const group = tree.root!.node;
    assert.equal(group.case, "group");
    const firstChild = group.case === "group"
      ? group.value.children[0]!.node
      : undefined;
    assert.equal(
      firstChild?.case === "text" ? firstChild.value.content : "",
      `hello (v${v}, schema 1)`,
    );
    // The fallback is visible: a warning line, then the decoded payload.
    const fallback = (events[1] as Extract<ReplayItem, { type: "event" }>)
      .tree.root!.node;
    assert.equal(fallback.case, "group");
    if (fallback.case === "group") {
      const [line, body] = fallback.value.children;
      assert.match(
        line!.node.case === "text" ? line!.node.value.content : "",
        /^Rendered by the kernel \(producer tool\/probe@0\.0\.0-old is not running in this kernel\): tool_result from tool\/probe@0\.0\.0-old$/,
      );
      assert.equal(body!.node.case, "codeBlock");
    }
    assert.deepEqual(recorded, [[
      log.sessionId,
      new Map([["retry", {
        toolName: "run",
        provider: "probe",
        args: { again: true },
      }]]),
    ]]);
  } finally {
    await host.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openSessions().render() replays with no plugin running: every producer is reported missing and every event is rendered by the kernel, visibly", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-render-" });
  const env = { HOME: dir, XDG_STATE_HOME: `${dir}/state` };
  try {
    const sessionsDir = `${dir}/state/agent/sessions`;
    let sessionId: string;
    {
      await using sessions = openSessions({ env, sessionsDir });
      await sessions.list(); // creates the store
    }
    const store = new SqliteSessionStore({
      dir: sessionsDir,
      keyPath: `${dir}/state/agent/installation.key`,
    });
    try {
      const log = await store.create({ profile: "default" });
      sessionId = log.sessionId;
      await log.emit({
        kind: EventKind.TOOL_RESULT,
        producer: { category: "tool", name: "fs", version: "1.2.3" },
        schemaVersion: "1",
        payload: toBinary(
          ToolResultEventSchema,
          create(ToolResultEventSchema, {}),
        ),
      });
      await log.close();
    } finally {
      await store.close();
    }
    await using sessions = openSessions({ env, sessionsDir });
    const items = [];
    for await (const item of sessions.render(sessionId)) items.push(item);
    assert.deepEqual(items[0], {
      type: "missing_producers",
      missing: [{ category: "tool", name: "fs", version: "1.2.3" }],
    });
    const ev = items[1]!;
    assert.equal(ev.type, "event");
    if (ev.type === "event") {
      assert.equal(ev.kind, "tool_result");
      assert.equal(
        ev.fallback,
        "producer tool/fs@1.2.3 is not running in this kernel",
      );
      assert.match(JSON.stringify(ev.tree), /Rendered by the kernel/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
