/**
 * The `memory` provider through a real plugin subprocess and the kernel
 * callback service: the §6.4 MUST list as far as a provider answers for it
 * (each step is named after its item), the SQLite file under scoped
 * permissions, the `remember`/`forget`/`search` tools, and the observed
 * hooks.
 */
import assert from "node:assert/strict";
import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  createCallbackService,
  EventBus,
  type Plugin,
  PluginHost,
  SessionRegistry,
  SqliteSessionStore,
} from "../kernel/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import {
  Category,
  HookPoint,
} from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { MemoryMutationEventSchema } from "../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { HookSubscriberService } from "../proto/gen/pluggableharness/hook/v1/service_pb.ts";
import { HookMode } from "../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { MemoryService } from "../proto/gen/pluggableharness/memory/v1/service_pb.ts";
import {
  MemoryScope,
  MemoryType,
  RecordStatus,
} from "../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import { SessionStatus } from "../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/memory/main.ts`;
const TURN = "01J00000000000000000000TRN";
const TARGET = { id: "scripted", contextWindow: 200_000n };

/** The kernel's CountTokens in these tests: 10 per word, so that a local heuristic would show. */
function kernelCount(texts: string[]): number {
  return texts.join(" ").split(/\s+/).filter(Boolean).length * 10;
}

const text = (t: string) => ({
  block: { case: "text" as const, value: { text: t } },
});

/** What a provider block grants the memory plugin (its whole envelope, and the project). */
const GRANT = {
  read: [".", "$XDG_DATA_HOME/agent"],
  write: [".", "$XDG_DATA_HOME/agent"],
  env: ["HOME", "XDG_DATA_HOME"],
};

interface Fixture extends AsyncDisposable {
  dir: string;
  host: PluginHost;
  sessions: SessionRegistry;
  store: SqliteSessionStore;
  countCalls: { n: number };
  launch(config?: JsonObject): Promise<Plugin>;
  newSession(): Promise<string>;
}

async function fixture(): Promise<Fixture> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-memory-test-" }),
  );
  await Deno.mkdir(`${dir}/project`);
  const bus = new EventBus();
  const store = new SqliteSessionStore({ dir: `${dir}/sessions`, bus });
  const sessions = new SessionRegistry();
  const countCalls = { n: 0 };
  const host = new PluginHost({
    env: { PATH, HOME: dir, XDG_DATA_HOME: `${dir}/data` },
    cwd: `${dir}/project`,
    callbackImpl: (identity, spec) =>
      createCallbackService({
        identity,
        ...(spec.config ? { config: spec.config } : {}),
        services: { sessions, bus },
        extend: {
          countTokens: (req) => {
            countCalls.n++;
            const texts = req.content.map((b) =>
              b.block.case === "text" ? b.block.value.text : ""
            );
            return { count: BigInt(kernelCount(texts)), exact: true };
          },
        },
      }),
  });
  const manifest = await readManifest(`${REPO}/plugins/memory/plugin.json`);
  const cleanup: (() => void)[] = [];
  const logs: { close(): Promise<void> }[] = [];
  return {
    dir,
    host,
    sessions,
    store,
    countCalls,
    launch: async (config = {}) => {
      const p = await host.launch({
        manifest,
        entrypoint: ENTRY,
        grant: GRANT,
      });
      await p.client(MemoryService).configure({ config });
      return p;
    },
    newSession: async () => {
      const log = await store.create({ profile: "default" });
      logs.push(log);
      cleanup.push(sessions.register({
        log,
        remainingDepth: 1,
        remainingCostBudgetUsd: 1,
      }));
      return log.sessionId;
    },
    async [Symbol.asyncDispose]() {
      for (const c of cleanup) c();
      await host.close();
      for (const l of logs) await l.close();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function status(code: number, pattern: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof GrpcStatusError, String(e));
    assert.equal(grpc.status[e.code], grpc.status[code], e.message);
    assert.match(e.message, pattern);
    return true;
  };
}

function provenanceMetadata(
  sessionId: string,
  turnId: string,
  by: string,
): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set("ph-session-id", sessionId);
  md.set("ph-turn-id", turnId);
  md.set("ph-recorded-by", by);
  return md;
}

async function tool(
  p: Plugin,
  toolName: string,
  args: JsonObject,
  sessionId = "",
): Promise<
  { ok: JsonObject } | {
    error: { category: number; message: string; retryable: boolean };
  }
> {
  let out:
    | { ok: JsonObject }
    | { error: { category: number; message: string; retryable: boolean } }
    | undefined;
  let terminals = 0;
  for await (
    const r of p.client(ToolService).invoke({
      call: {
        id: "call_1",
        toolName,
        arguments: args,
        callContext: { sessionId, turnId: TURN, workingDirectory: "/" },
      },
    })
  ) {
    const e = r.event?.event;
    if (e?.case === "result") {
      terminals++;
      out = { ok: e.value.payload ?? {} };
    } else if (e?.case === "error") {
      terminals++;
      out = { error: e.value };
    }
  }
  assert.equal(terminals, 1, "exactly one terminal event");
  return out!;
}

function ok(r: Awaited<ReturnType<typeof tool>>): JsonObject {
  assert.ok("ok" in r, "error" in r ? r.error.message : "");
  return r.ok;
}

Deno.test("memory provider: the §6.4 MUST list, through a real plugin subprocess", async (t) => {
  await using f = await fixture();
  const p = await f.launch({ path: "data/memory.sqlite" });
  const mem = p.client(MemoryService);

  await t.step(
    "MUST 1: implements every core RPC; capabilities declare types, scopes, hooks",
    async () => {
      const caps = (await mem.getCapabilities({})).capabilities!;
      assert.equal(caps.defaultTokenBudget, 2000n);
      assert.deepEqual(caps.supportedTypes, [1, 2, 3, 4]);
      assert.deepEqual(caps.supportedScopes, [1, 2, 3]);
      assert.equal(caps.ratificationSupported, false);
      assert.deepEqual(caps.supportedHookPoints, [
        HookPoint.POST_MODEL_RESPONSE,
        HookPoint.SESSION_END,
      ]);
      assert.deepEqual(
        caps.configSchema?.attributes.map((a) => a.name),
        [
          "path",
          "review_writes",
          "session_summaries",
          "max_records",
          "token_budget",
        ],
      );
      const d = await mem.describe({});
      assert.equal(d.producer?.name, "memory");
      assert.equal(d.producer?.category, Category.MEMORY);
      assert.equal(d.producer?.protocolVersion, 1);
      // The file lives where path says, relative to the kernel's directory.
      assert.ok(
        (await Deno.stat(`${f.dir}/project/data/memory.sqlite`)).isFile,
      );
    },
  );

  let prefId = "";
  await t.step(
    "MUST 15: tokens come from the kernel's CountTokens",
    async () => {
      const before = f.countCalls.n;
      const r = await mem.record({
        type: MemoryType.USER,
        scope: MemoryScope.GLOBAL,
        title: "Prefers tabs",
        content: [text("The user indents with tabs, never spaces.")],
      });
      prefId = r.result!.id;
      assert.equal(r.result?.status, RecordStatus.CANONICAL);
      assert.equal(f.countCalls.n, before + 1);
      const got = (await mem.getRecord({ id: prefId })).record!;
      assert.equal(
        got.tokens,
        BigInt(kernelCount(["The user indents with tabs, never spaces."])),
      );
    },
  );

  await t.step(
    "MUST 10: slugs are human-meaningful and made unique with -2, -3",
    async () => {
      assert.equal(prefId, "prefers-tabs");
      const again = async () =>
        (await mem.record({
          type: MemoryType.USER,
          scope: MemoryScope.GLOBAL,
          title: "Prefers tabs!",
          content: [text("Another note.")],
        })).result!.id;
      assert.equal(await again(), "prefers-tabs-2");
      assert.equal(await again(), "prefers-tabs-3");
      const suggested = await mem.record({
        type: MemoryType.REFERENCE,
        scope: MemoryScope.PROJECT,
        id: "Bug Tracker",
        title: "Where bugs are filed",
        content: [text("Bugs go to the tracker.")],
      });
      assert.equal(suggested.result?.id, "bug-tracker");
      await mem.deleteRecord({ id: "prefers-tabs-2" });
      await mem.deleteRecord({ id: "prefers-tabs-3" });
    },
  );

  await t.step(
    "MUST 11: [[name]] links are parsed; dangling links are accepted",
    async () => {
      const r = await mem.record({
        type: MemoryType.PROJECT,
        scope: MemoryScope.PROJECT,
        title: "Release steps",
        content: [
          text(
            "See [[bug-tracker]] and [[no-such-page]], then [[bug-tracker]] again.",
          ),
        ],
      });
      const got = (await mem.getRecord({ id: r.result!.id })).record!;
      assert.deepEqual(got.links, ["bug-tracker", "no-such-page"]);
    },
  );

  await t.step(
    "MUST 4: provenance is kernel-populated and immutable",
    async () => {
      const session = "01JSESSION0000000000000000";
      const r = await mem.record({
        type: MemoryType.FEEDBACK,
        scope: MemoryScope.PROJECT,
        title: "Run the linter",
        content: [text("Run deno lint before reporting.")],
      }, { metadata: provenanceMetadata(session, TURN, "kernel:hook") });
      const id = r.result!.id;
      const before = (await mem.getRecord({ id })).record!;
      assert.deepEqual(
        { ...before.provenance, $typeName: undefined },
        {
          $typeName: undefined,
          sourceSessionId: session,
          sourceTurnId: TURN,
          recordedBy: "kernel:hook",
        },
      );
      await new Promise((r) => setTimeout(r, 5));
      await mem.updateRecord({
        id,
        title: "Run the linter and fmt",
        content: [text("Run deno lint and deno fmt before reporting.")],
      }, {
        metadata: provenanceMetadata(
          "01JOTHER00000000000000000X",
          TURN,
          "someone-else",
        ),
      });
      const after = (await mem.getRecord({ id })).record!;
      assert.deepEqual(after.provenance, before.provenance);
      assert.deepEqual(after.createdAt, before.createdAt);
      assert.equal(after.title, "Run the linter and fmt");
      assert.ok(
        after.updatedAt!.nanos !== before.updatedAt!.nanos ||
          after.updatedAt!.seconds !== before.updatedAt!.seconds,
      );
      assert.equal(
        after.tokens,
        BigInt(kernelCount(["Run deno lint and deno fmt before reporting."])),
      );
    },
  );

  await t.step(
    "MUST 7: the fixed type and scope taxonomies; UNSPECIFIED is refused",
    async () => {
      await assert.rejects(
        mem.record({
          type: MemoryType.UNSPECIFIED,
          scope: MemoryScope.PROJECT,
          title: "x",
          content: [text("y")],
        }),
        status(
          Code.INVALID_ARGUMENT,
          /^invalid_type: type UNSPECIFIED is not one of USER, FEEDBACK, PROJECT, REFERENCE/,
        ),
      );
      await assert.rejects(
        mem.record({
          type: MemoryType.USER,
          scope: 9 as MemoryScope,
          title: "x",
          content: [text("y")],
        }),
        status(
          Code.INVALID_ARGUMENT,
          /^invalid_scope: scope 9 is not one of SESSION, PROJECT, GLOBAL/,
        ),
      );
      // Type and scope are immutable: UpdateRecord has no field for them, and
      // remember refuses to change them.
      const r = await tool(p, "remember", {
        title: "Prefers tabs",
        content: "The user indents with tabs.",
        type: "feedback",
        scope: "global",
        update_id: prefId,
      });
      assert.ok("error" in r);
      assert.equal(r.error.category, ToolErrorCategory.INVALID_ARGUMENTS);
      assert.match(
        r.error.message,
        /record "prefers-tabs" is user\/global; type and scope never change/,
      );
    },
  );

  await t.step(
    "MUST 3: Get, Update and Delete fail not_found for unknown ids",
    async () => {
      const nf = status(
        Code.NOT_FOUND,
        /^not_found: There is no memory record "ghost"$/,
      );
      await assert.rejects(mem.getRecord({ id: "ghost" }), nf);
      await assert.rejects(mem.updateRecord({ id: "ghost", title: "t" }), nf);
      await assert.rejects(mem.deleteRecord({ id: "ghost" }), nf);
    },
  );

  await t.step(
    "MUST 5 and 16: Recall scores in [0,1], self-truncates to token_budget",
    async () => {
      const all = (await mem.recall({
        sessionId: "s",
        turnId: TURN,
        tokenBudget: 100_000n,
        modelTarget: TARGET,
      })).records;
      assert.ok(all.length >= 4);
      for (const r of all) {
        assert.ok(
          r.relevanceScore !== undefined && r.relevanceScore >= 0 &&
            r.relevanceScore <= 1,
        );
      }
      const scores = all.map((r) => r.relevanceScore!);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a), "best first");
      // Never persisted: GetRecord and ListRecords carry none.
      assert.equal(
        (await mem.getRecord({ id: all[0]!.id })).record?.relevanceScore,
        undefined,
      );
      assert.ok(
        (await mem.listRecords({})).records.every((r) =>
          r.relevanceScore === undefined
        ),
      );
      // A budget that holds only some records.
      const budget = all[0]!.tokens + 1n;
      const cut = (await mem.recall({
        sessionId: "s",
        turnId: TURN,
        tokenBudget: budget,
        modelTarget: TARGET,
      })).records;
      assert.ok(cut.length >= 1 && cut.length < all.length);
      assert.ok(cut.reduce((n, r) => n + r.tokens, 0n) <= budget);
      // Nothing fits: budget_exceeded.
      await assert.rejects(
        mem.recall({
          sessionId: "s",
          turnId: TURN,
          tokenBudget: 1n,
          modelTarget: TARGET,
        }),
        status(
          Code.RESOURCE_EXHAUSTED,
          /^budget_exceeded: Recall: \d+ records match, but the smallest needs \d+ tokens and the budget is 1$/,
        ),
      );
      // model_target is required.
      await assert.rejects(
        mem.recall({ sessionId: "s", turnId: TURN, tokenBudget: 100n }),
        status(Code.INVALID_ARGUMENT, /model_target is required/),
      );
    },
  );

  await t.step("Recall ranks by relevance to the files touched", async () => {
    await mem.record({
      type: MemoryType.PROJECT,
      scope: MemoryScope.PROJECT,
      title: "Plugin host quirks",
      content: [text("The plugin host kills the process group on close.")],
    });
    const r = await mem.recall({
      sessionId: "s",
      turnId: TURN,
      tokenBudget: 100_000n,
      modelTarget: TARGET,
      filesTouched: ["kernel/plugin_host.ts"],
    });
    assert.equal(r.records[0]?.id, "plugin-host-quirks");
    const filtered = await mem.recall({
      sessionId: "s",
      turnId: TURN,
      tokenBudget: 100_000n,
      modelTarget: TARGET,
      typeFilter: [MemoryType.REFERENCE],
    });
    assert.deepEqual(filtered.records.map((x) => x.id), ["bug-tracker"]);
  });

  await t.step("MUST 6: turn_id must be a ULID", async () => {
    await assert.rejects(
      mem.recall({
        sessionId: "s",
        turnId: "turn-1",
        tokenBudget: 100n,
        modelTarget: TARGET,
      }),
      status(Code.INVALID_ARGUMENT, /turn_id "turn-1" is not a ULID/),
    );
  });

  await t.step(
    "session-scoped records are recalled only in their session",
    async () => {
      await mem.record({
        type: MemoryType.PROJECT,
        scope: MemoryScope.SESSION,
        title: "Scratch note",
        content: [text("Only for this session.")],
      }, {
        metadata: provenanceMetadata(
          "01JSESSIONA000000000000000",
          TURN,
          "kernel",
        ),
      });
      const ids = async (sessionId: string) =>
        (await mem.recall({
          sessionId,
          turnId: TURN,
          tokenBudget: 100_000n,
          modelTarget: TARGET,
        })).records.map((r) => r.id);
      assert.ok(
        (await ids("01JSESSIONA000000000000000")).includes("scratch-note"),
      );
      assert.ok(
        !(await ids("01JSESSIONB000000000000000")).includes("scratch-note"),
      );
    },
  );

  await t.step(
    "MUST 13: without ratification nothing is PENDING; Approve/Reject are ratification_unsupported",
    async () => {
      const list = await mem.listRecords({
        statusFilter: RecordStatus.PENDING,
      });
      assert.deepEqual(list.records, []);
      await assert.rejects(
        mem.approveRecord({ id: prefId }),
        status(Code.FAILED_PRECONDITION, /^ratification_unsupported: /),
      );
      await assert.rejects(
        mem.rejectRecord({ id: prefId }),
        status(Code.FAILED_PRECONDITION, /^ratification_unsupported: /),
      );
    },
  );

  await t.step(
    "MUST 14: failures are classified (content and paging errors)",
    async () => {
      await assert.rejects(
        mem.record({
          type: MemoryType.USER,
          scope: MemoryScope.GLOBAL,
          title: "x",
          content: [],
        }),
        status(
          Code.INVALID_ARGUMENT,
          /content must hold at least one non-empty text block/,
        ),
      );
      await assert.rejects(
        mem.record({
          type: MemoryType.USER,
          scope: MemoryScope.GLOBAL,
          title: "x",
          content: [{
            block: { case: "toolUse", value: { id: "u", name: "n" } },
          }],
        }),
        status(
          Code.INVALID_ARGUMENT,
          /content\[0\] is a toolUse block; memory content is text only/,
        ),
      );
      await assert.rejects(
        mem.listRecords({ pageToken: "zz" }),
        status(
          Code.INVALID_ARGUMENT,
          /page_token "zz" is not one this provider issued/,
        ),
      );
    },
  );

  await t.step("ListRecords pages through the records", async () => {
    const all = (await mem.listRecords({})).records.map((r) => r.id);
    const seen: string[] = [];
    let token = "";
    do {
      const page = await mem.listRecords({ pageSize: 2, pageToken: token });
      assert.ok(page.records.length <= 2);
      seen.push(...page.records.map((r) => r.id));
      token = page.nextPageToken;
    } while (token);
    assert.deepEqual(seen, all);
  });
});

Deno.test("memory provider: Configure accepts the kernel's decoded block (every attribute, defaults filled)", async () => {
  await using f = await fixture();
  const p = await f.launch({
    path: ".agent/memory.sqlite",
    review_writes: false,
    session_summaries: false,
    max_records: 20,
    token_budget: 2000,
  });
  const caps = (await p.client(MemoryService).getCapabilities({}))
    .capabilities!;
  assert.deepEqual(
    caps.configSchema?.attributes.map((a) => [a.name, a.defaultJson]),
    [
      ["path", '"$XDG_DATA_HOME/agent/memory.sqlite"'],
      ["review_writes", "false"],
      ["session_summaries", "false"],
      ["max_records", "20"],
      ["token_budget", "2000"],
    ],
  );
  await assert.rejects(
    p.client(MemoryService).configure({ config: { token_budget: 0 } }),
    status(
      Code.INVALID_ARGUMENT,
      /"token_budget" must be a positive integer, not 0/,
    ),
  );
});

Deno.test("memory provider: MUST 2 and 9 with review_writes — pending is listed, never recalled unless asked, and approvable", async () => {
  await using f = await fixture();
  const p = await f.launch({ review_writes: true });
  const mem = p.client(MemoryService);
  assert.equal(
    (await mem.getCapabilities({})).capabilities?.ratificationSupported,
    true,
  );
  const r = await mem.record({
    type: MemoryType.USER,
    scope: MemoryScope.GLOBAL,
    title: "Likes short answers",
    content: [text("Keep answers short.")],
  });
  assert.equal(r.result?.status, RecordStatus.PENDING);
  // MUST 2: ListRecords shows pending records without any gate.
  const pending = await mem.listRecords({ statusFilter: RecordStatus.PENDING });
  assert.deepEqual(pending.records.map((x) => x.id), ["likes-short-answers"]);
  assert.equal((await mem.listRecords({})).records.length, 1);
  // MUST 9: not in ordinary recall; only with include_pending.
  const recall = (includePending: boolean) =>
    mem.recall({
      sessionId: "s",
      turnId: TURN,
      tokenBudget: 1000n,
      modelTarget: TARGET,
      includePending,
    });
  assert.deepEqual((await recall(false)).records, []);
  assert.deepEqual((await recall(true)).records.map((x) => x.id), [
    "likes-short-answers",
  ]);
  // Approve makes it canonical; Reject deletes a pending one.
  const approved = await mem.approveRecord({ id: "likes-short-answers" });
  assert.equal(approved.result?.status, RecordStatus.CANONICAL);
  assert.deepEqual((await recall(false)).records.map((x) => x.id), [
    "likes-short-answers",
  ]);
  await assert.rejects(
    mem.approveRecord({ id: "likes-short-answers" }),
    status(Code.INVALID_ARGUMENT, /already canonical/),
  );
  await mem.record({
    type: MemoryType.USER,
    scope: MemoryScope.GLOBAL,
    title: "Wrong",
    content: [text("x")],
  });
  assert.equal((await mem.rejectRecord({ id: "wrong" })).result?.deleted, true);
  await assert.rejects(
    mem.getRecord({ id: "wrong" }),
    status(Code.NOT_FOUND, /not_found/),
  );
});

Deno.test("memory provider: Configure fails source_unavailable for a file outside the grant; records survive a restart", async () => {
  await using f = await fixture();
  const manifest = await readManifest(`${REPO}/plugins/memory/plugin.json`);
  const p = await f.host.launch({
    manifest,
    entrypoint: ENTRY,
    grant: GRANT,
  });
  await assert.rejects(
    p.client(MemoryService).configure({
      config: { path: `${f.dir}/elsewhere/m.sqlite` },
    }),
    status(
      Code.UNAVAILABLE,
      /^source_unavailable: Cannot open the memory database ".*elsewhere\/m\.sqlite": .*allow_read and allow_write/,
    ),
  );
  await assert.rejects(
    p.client(MemoryService).configure({ config: { pathh: "x" } }),
    status(Code.INVALID_ARGUMENT, /config attribute "pathh" is not supported/),
  );
  await assert.rejects(
    p.client(MemoryService).recall({
      sessionId: "s",
      turnId: TURN,
      tokenBudget: 1n,
      modelTarget: TARGET,
    }),
    status(Code.UNAVAILABLE, /not configured/),
  );
  await p.close();

  const a = await f.launch();
  await a.client(MemoryService).record({
    type: MemoryType.PROJECT,
    scope: MemoryScope.PROJECT,
    title: "Survives",
    content: [text("Still here after a restart.")],
  });
  await a.close();
  const b = await f.launch();
  assert.equal(
    (await b.client(MemoryService).getRecord({ id: "survives" })).record?.title,
    "Survives",
  );
  assert.ok(
    (await Deno.stat(`${f.dir}/data/agent/memory.sqlite`)).isFile,
    "the default path",
  );
});

Deno.test("memory tools: remember (MUST 12 near-match), search and forget, recorded in the session", async () => {
  await using f = await fixture();
  const p = await f.launch();
  const session = await f.newSession();
  const release = f.sessions.grant(p.identity, session);
  try {
    const schema = await p.client(ToolService).getSchema({});
    assert.deepEqual(schema.supportedHookPoints, [
      HookPoint.POST_MODEL_RESPONSE,
      HookPoint.SESSION_END,
    ]);
    assert.deepEqual(
      schema.tools.map((
        t,
      ) => [
        t.name,
        ToolKind[t.kind],
        RiskClass[t.risk],
        t.concurrency?.safe,
        t.idempotent,
      ]),
      [
        ["remember", "RESOURCE", "LOW", false, false],
        ["forget", "RESOURCE", "MODERATE", true, false],
        ["search", "DATA_SOURCE", "READ_ONLY", true, true],
      ],
    );
    const manifest = await readManifest(`${REPO}/plugins/memory/plugin.json`);
    assert.deepEqual(
      manifest.tools?.map((t) => [t.name, t.kind, t.risk]),
      schema.tools.map((t) => [
        t.name,
        ToolKind[t.kind].toLowerCase(),
        RiskClass[t.risk].toLowerCase(),
      ]),
      "the manifest's tools match GetSchema",
    );
    const created = ok(
      await tool(p, "remember", {
        title: "Deploys happen on Fridays",
        content: "The team deploys every Friday afternoon.",
        type: "project",
      }, session),
    );
    assert.equal(created.status, "created");
    assert.equal(created.id, "deploys-happen-on-fridays");
    assert.equal(created.record_status, "canonical");
    assert.equal(created.scope, "project");

    // A near duplicate is not saved; the model is asked to decide.
    const dup = ok(
      await tool(p, "remember", {
        title: "Deploys happen on Friday",
        content: "Deploys are on Fridays.",
        type: "project",
      }, session),
    );
    assert.equal(dup.status, "near_duplicate");
    assert.match(
      String(dup.message),
      /Not saved: a similar memory exists \(deploys-happen-on-fridays\).*update_id.*force true/,
    );
    assert.deepEqual((dup.candidates as JsonObject[]).map((c) => c.id), [
      "deploys-happen-on-fridays",
    ]);
    assert.ok(Number((dup.candidates as JsonObject[])[0]!.similarity) >= 0.75);
    const mem = p.client(MemoryService);
    assert.equal(
      (await mem.listRecords({})).records.length,
      1,
      "nothing saved",
    );

    // update_id replaces it; force creates a separate one.
    const updated = ok(
      await tool(p, "remember", {
        title: "Deploys happen on Thursdays",
        content: "Since March the team deploys on Thursdays.",
        type: "project",
        update_id: "deploys-happen-on-fridays",
      }, session),
    );
    assert.equal(updated.status, "updated");
    const forced = ok(
      await tool(p, "remember", {
        title: "Deploys happen on Thursdays",
        content: "Hotfixes deploy any day.",
        type: "project",
        force: true,
      }, session),
    );
    assert.equal(forced.id, "deploys-happen-on-thursdays");
    // Provenance of the tool path: the call's session and turn.
    const rec = (await mem.getRecord({ id: "deploys-happen-on-thursdays" }))
      .record!;
    assert.equal(rec.provenance?.sourceSessionId, session);
    assert.equal(rec.provenance?.sourceTurnId, TURN);
    assert.equal(rec.provenance?.recordedBy, "tool:remember");

    const found = ok(
      await tool(p, "search", { query: "hotfixes deploys" }, session),
    );
    assert.equal(found.count, 2);
    assert.equal(
      (found.results as JsonObject[])[0]!.id,
      "deploys-happen-on-thursdays",
    );
    const none = ok(await tool(p, "search", { query: "kubernetes" }, session));
    assert.equal(none.count, 0);

    const gone = ok(
      await tool(p, "forget", { id: "deploys-happen-on-thursdays" }, session),
    );
    assert.deepEqual(gone, {
      id: "deploys-happen-on-thursdays",
      title: "Deploys happen on Thursdays",
      scope: "project",
      deleted: true,
    });
    const again = await tool(
      p,
      "forget",
      { id: "deploys-happen-on-thursdays" },
      session,
    );
    assert.ok("error" in again);
    assert.equal(again.error.category, ToolErrorCategory.NOT_FOUND);

    const bad = await tool(p, "remember", {
      title: "x",
      content: "y",
      type: "secret",
    }, session);
    assert.ok("error" in bad);
    assert.equal(bad.error.category, ToolErrorCategory.INVALID_ARGUMENTS);
    assert.match(
      bad.error.message,
      /"type" must be one of user, feedback, project, reference, not "secret"/,
    );

    // Each mutation is one event on the calling session.
    const log = await f.store.open(session);
    try {
      const kinds = [];
      const events = [];
      for await (const e of log.readEvents()) {
        events.push(e);
        assert.equal(e.producer.category, "memory");
        kinds.push(e.kind);
        if (e.kind === EventKind.MEMORY_WRITE) {
          const m = fromBinary(MemoryMutationEventSchema, e.payload);
          assert.equal(m.attributes.type, "project");
        }
      }
      const first = events[0]!;
      const drawn = await p.client(MemoryService).render({
        payload: first.payload,
        schemaVersion: first.schemaVersion,
      });
      const root = drawn.tree?.root?.node;
      assert.equal(root?.case, "group");
      assert.deepEqual(
        root.value.children.map((c) =>
          c.node.case === "text" ? c.node.value.content : ""
        ),
        [
          'Memory "deploys-happen-on-fridays" (project/project): Deploys happen on Fridays',
          "The team deploys every Friday afternoon.",
        ],
      );
      assert.deepEqual(kinds, [
        EventKind.MEMORY_WRITE,
        EventKind.MEMORY_UPDATE,
        EventKind.MEMORY_WRITE,
        EventKind.MEMORY_DELETE,
      ]);
    } finally {
      await log.close();
    }

    // Preview never writes.
    const preview = await p.client(ToolService).preview({
      call: {
        id: "pv",
        toolName: "forget",
        arguments: { id: "deploys-happen-on-fridays" },
      },
    });
    const g = preview.preview?.root?.node;
    assert.equal(g?.case, "group");
    assert.match(
      g.value.children[0]!.node.case === "text"
        ? g.value.children[0]!.node.value.content
        : "",
      /^Forget memory "deploys-happen-on-fridays" \(project\/project\): Deploys happen on Thursdays$/,
    );
    assert.ok(
      (await mem.getRecord({ id: "deploys-happen-on-fridays" })).record,
    );
  } finally {
    release();
  }
});

Deno.test("memory hooks: post-model-response feeds recall; session-end records a summary only when configured", async () => {
  await using f = await fixture();
  const p = await f.launch({ session_summaries: true });
  const hooks = p.client(HookSubscriberService);
  const mem = p.client(MemoryService);
  const session = "01JHOOKSESSION000000000000";
  const md = new grpc.Metadata();
  md.set("ph-session-id", session);
  await mem.record({
    type: MemoryType.PROJECT,
    scope: MemoryScope.PROJECT,
    title: "Database migrations",
    content: [text("Migrations live in db/migrate.")],
  });
  await mem.record({
    type: MemoryType.PROJECT,
    scope: MemoryScope.PROJECT,
    title: "Frontend colours",
    content: [text("The palette is in theme.css.")],
  });

  const ack = await hooks.dispatchHook({
    mode: HookMode.OBSERVE,
    payload: {
      payload: {
        case: "postModelResponse",
        value: {
          message: {
            role: 2,
            content: [text("I will write a migration for the database.")],
          },
        },
      },
    },
  }, { metadata: md });
  assert.equal(ack.outcome.case, "observe");
  const r = await mem.recall({
    sessionId: session,
    turnId: TURN,
    tokenBudget: 10_000n,
    modelTarget: TARGET,
  });
  assert.equal(
    r.records[0]?.id,
    "database-migrations",
    "the response's words rank recall",
  );

  await assert.rejects(
    hooks.dispatchHook({
      mode: HookMode.TRANSFORM,
      payload: {
        payload: {
          case: "sessionEnd",
          value: { sessionId: session, status: SessionStatus.COMPLETED },
        },
      },
    }),
    status(Code.FAILED_PRECONDITION, /observe mode only/),
  );
  await hooks.dispatchHook({
    mode: HookMode.OBSERVE,
    payload: {
      payload: {
        case: "sessionEnd",
        value: { sessionId: session, status: SessionStatus.COMPLETED },
      },
    },
  });
  const summary =
    (await mem.getRecord({ id: `session-${session.toLowerCase()}` })).record!;
  assert.equal(summary.title, `Outcome of session ${session}`);
  assert.equal(summary.type, MemoryType.PROJECT);
  assert.equal(summary.provenance?.recordedBy, "hook:session-end");
  assert.equal(summary.provenance?.sourceSessionId, session);

  // Without session_summaries (the default), session-end writes nothing.
  const q = await f.launch({ path: "other.sqlite" });
  await q.client(HookSubscriberService).dispatchHook({
    mode: HookMode.OBSERVE,
    payload: {
      payload: {
        case: "postModelResponse",
        value: { message: { role: 2, content: [text("Done.")] } },
      },
    },
  }, { metadata: md });
  await q.client(HookSubscriberService).dispatchHook({
    mode: HookMode.OBSERVE,
    payload: {
      payload: {
        case: "sessionEnd",
        value: { sessionId: session, status: SessionStatus.COMPLETED },
      },
    },
  });
  assert.deepEqual((await q.client(MemoryService).listRecords({})).records, []);
});
