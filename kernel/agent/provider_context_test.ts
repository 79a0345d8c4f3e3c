import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type ContextSection,
  ContextSectionSchema,
  type Message,
  MessageSchema,
  Role,
  Stability,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { ContextRequest } from "../../proto/gen/pluggableharness/context/v1/rpc_request_pb.ts";
import {
  ContextContributionSchema,
} from "../../proto/gen/pluggableharness/context/v1/rpc_response_pb.ts";
import type { RecallRequest } from "../../proto/gen/pluggableharness/memory/v1/rpc_request_pb.ts";
import {
  MemoryRecordSchema,
  MemoryType,
} from "../../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import { textBlock } from "./_proto.ts";
import type { ContextAssemblyInput } from "./context_assembly.ts";
import {
  type ChainReport,
  type ContextProviderEndpoint,
  type MemoryProviderEndpoint,
  providerContextAssembler,
  scopeViolation,
} from "./provider_context.ts";

function section(
  provider: string,
  label: string,
  tokens: number,
  text = label,
): ContextSection {
  return create(ContextSectionSchema, {
    provider,
    label,
    content: [textBlock(text)],
    tokens: BigInt(tokens),
    stability: Stability.STATIC,
  });
}

function contextProvider(
  name: string,
  contribute: (
    req: ContextRequest,
  ) => MessageInitShape<typeof ContextContributionSchema>,
  extra: Partial<ContextProviderEndpoint> = {},
): ContextProviderEndpoint & { requests: ContextRequest[] } {
  const requests: ContextRequest[] = [];
  return {
    category: "context",
    name,
    defaultTokenBudget: 1000,
    compactor: false,
    stability: Stability.STATIC,
    requests,
    contribute(req) {
      requests.push(req);
      return Promise.resolve(
        create(ContextContributionSchema, contribute(req)),
      );
    },
    ...extra,
  };
}

const user: Message = create(MessageSchema, {
  role: Role.USER,
  content: [textBlock("hello there")],
});

function input(over: Partial<ContextAssemblyInput> = {}): ContextAssemblyInput {
  return {
    history: [user],
    budgetTokens: 10_000,
    model: { provider: "m", id: "model-1", contextWindow: 20_000 },
    sections: [section("kernel", "system", 5)],
    sessionId: "S1",
    turnId: "T1",
    workingDirectory: "/repo",
    signal: new AbortController().signal,
    ...over,
  };
}

Deno.test("context chain: providers run in order and each sees the chain so far", async () => {
  const a = contextProvider("a", (r) => ({
    sections: [...r.priorSections, section("a", "AGENTS.md", 10)],
  }));
  const b = contextProvider("b", (r) => ({
    sections: [...r.priorSections, section("b", "git", 7)],
  }));
  const out = await providerContextAssembler({ providers: [a, b] }).assemble(
    input(),
  );
  assert.deepEqual(out.sections.map((s) => s.label), [
    "system",
    "AGENTS.md",
    "git",
  ]);
  assert.deepEqual(a.requests[0]!.priorSections.map((s) => s.label), [
    "system",
  ]);
  assert.deepEqual(b.requests[0]!.priorSections.map((s) => s.label), [
    "system",
    "AGENTS.md",
  ]);
  const req = a.requests[0]!;
  assert.equal(req.sessionId, "S1");
  assert.equal(req.turnId, "T1");
  assert.equal(req.workingDirectory, "/repo");
  assert.equal(req.modelTarget?.id, "model-1");
  assert.equal(req.modelTarget?.contextWindow, 20_000n);
  assert.equal(req.modelTarget?.effectiveCeiling, 10_000n);
  assert.equal(req.tokenBudget, 1000n);
});

Deno.test("MUST 4: history_tokens and assembled_tokens_last_turn are filled on every firing", async () => {
  const a = contextProvider("a", (r) => ({
    sections: [...r.priorSections, section("a", "x", 10)],
  }));
  const assembler = providerContextAssembler({ providers: [a] });
  await assembler.assemble(input());
  await assembler.assemble(input({ turnId: "T2" }));
  const [first, second] = a.requests;
  assert.ok(first!.historyTokens > 0n);
  assert.equal(first!.assembledTokensLastTurn, 0n);
  assert.equal(
    second!.assembledTokensLastTurn,
    first!.historyTokens + 5n + 10n,
  );
});

Deno.test("MUST 11: only compactors receive the conversation history", async () => {
  const plain = contextProvider("plain", (r) => ({
    sections: [...r.priorSections],
  }));
  const compactor = contextProvider("c", (r) => ({
    sections: [...r.priorSections],
  }), { compactor: true });
  await providerContextAssembler({ providers: [plain, compactor] }).assemble(
    input(),
  );
  assert.equal(plain.requests[0]!.conversationHistory.length, 0);
  assert.equal(compactor.requests[0]!.conversationHistory.length, 1);
});

Deno.test("MUST 12: a compactor's rewritten_history replaces the request's messages", async () => {
  const summary = create(MessageSchema, {
    role: Role.USER,
    content: [textBlock("summary of earlier turns")],
  });
  const c = contextProvider("c", (r) => ({
    sections: r.priorSections.filter((s) => s.label !== "old"),
    rewrittenHistory: [summary],
  }), { compactor: true });
  const out = await providerContextAssembler({ providers: [c] }).assemble(
    input({
      sections: [section("kernel", "system", 5), section("x", "old", 50)],
    }),
  );
  assert.deepEqual(out.messages, [summary]);
  assert.deepEqual(out.sections.map((s) => s.label), ["system"]);
});

Deno.test("MUST 10: a non-compactor touching another provider's section is discarded and the prior chain restored", async () => {
  const reports: ChainReport[] = [];
  const rogue = contextProvider("rogue", (r) => ({
    sections: [
      section("kernel", "system", 5, "rewritten!"),
      ...r.priorSections.slice(1),
      section("rogue", "mine", 3),
    ],
  }));
  const out = await providerContextAssembler({
    providers: [rogue],
    onReport: (_s, _t, r) => reports.push(...r),
  }).assemble(input());
  assert.deepEqual(out.sections.map((s) => s.label), ["system"]);
  assert.equal(reports[0]!.outcome, "scope_violation");
  assert.match(reports[0]!.message!, /changed section "system"/);
});

Deno.test("MUST 14: a delta instead of the whole chain is a scope violation", () => {
  const prior = [section("kernel", "system", 5)];
  assert.match(
    scopeViolation("a", prior, [section("a", "mine", 1)])!,
    /never a delta|changed section/,
  );
  assert.match(
    scopeViolation("a", prior, [...prior, section("b", "theirs", 1)])!,
    /under provider "b"/,
  );
  assert.equal(
    scopeViolation("a", prior, [...prior, section("a", "mine", 1)]),
    undefined,
  );
});

Deno.test("MUST 5 and 9: non-text blocks or a missing label discard the response", async () => {
  const reports: ChainReport[] = [];
  const bad = contextProvider("bad", (r) => ({
    sections: [...r.priorSections, section("bad", "", 2)],
  }));
  const out = await providerContextAssembler({
    providers: [bad],
    onReport: (_s, _t, r) => reports.push(...r),
  }).assemble(input());
  assert.equal(out.sections.length, 1);
  assert.equal(reports[0]!.outcome, "invalid_content");
});

Deno.test("a section over the provider's budget is dropped and the turn goes on", async () => {
  const reports: ChainReport[] = [];
  const big = contextProvider("big", (r) => ({
    sections: [
      ...r.priorSections,
      section("big", "fits", 40),
      section("big", "too-big", 80),
    ],
  }), { tokenBudget: 100 });
  const out = await providerContextAssembler({
    providers: [big],
    onReport: (_s, _t, r) => reports.push(...r),
  }).assemble(input());
  assert.deepEqual(out.sections.map((s) => s.label), ["system", "fits"]);
  assert.equal(big.requests[0]!.tokenBudget, 100n);
  assert.deepEqual(reports[0]!.dropped, ["too-big"]);
});

Deno.test("an allocation never exceeds what is left of the ceiling", async () => {
  const a = contextProvider("a", (r) => ({
    sections: [...r.priorSections, section("a", "x", 10)],
  }), { tokenBudget: 100_000 });
  await providerContextAssembler({ providers: [a] }).assemble(
    input({ budgetTokens: 500 }),
  );
  const history = Number(a.requests[0]!.historyTokens);
  assert.equal(Number(a.requests[0]!.tokenBudget), 500 - 5 - history);
});

Deno.test("a failing provider's contribution is dropped and later providers still run", async () => {
  const failing: ContextProviderEndpoint = {
    ...contextProvider("down", () => ({})),
    contribute: () => Promise.reject(new Error("source unavailable")),
  };
  const after = contextProvider("after", (r) => ({
    sections: [...r.priorSections, section("after", "y", 1)],
  }));
  const reports: ChainReport[] = [];
  const out = await providerContextAssembler({
    providers: [failing, after],
    onReport: (_s, _t, r) => reports.push(...r),
  }).assemble(input());
  assert.deepEqual(out.sections.map((s) => s.label), ["system", "y"]);
  assert.equal(reports[0]!.outcome, "failed");
  assert.match(reports[0]!.message!, /source unavailable/);
});

Deno.test("memory MUST 8: recalled records become DYNAMIC sections sharing the budget pool", async () => {
  const requests: RecallRequest[] = [];
  const memory: MemoryProviderEndpoint = {
    category: "memory",
    name: "mem",
    defaultTokenBudget: 50,
    recall(req) {
      requests.push(req);
      return Promise.resolve([
        create(MemoryRecordSchema, {
          id: "prefers-tabs",
          type: MemoryType.USER,
          title: "Prefers tabs",
          content: [textBlock("The user prefers tabs.")],
          tokens: 6n,
        }),
        create(MemoryRecordSchema, {
          id: "huge",
          type: MemoryType.PROJECT,
          content: [textBlock("x")],
          tokens: 500n,
        }),
      ]);
    },
  };
  const out = await providerContextAssembler({ providers: [memory] })
    .assemble(input());
  assert.deepEqual(out.sections.map((s) => s.label), [
    "system",
    "memory:user:prefers-tabs",
  ]);
  assert.equal(out.sections[1]!.stability, Stability.DYNAMIC);
  assert.equal(out.sections[1]!.provider, "mem");
  assert.equal(requests[0]!.tokenBudget, 50n);
  assert.equal(requests[0]!.modelTarget?.id, "model-1");
  assert.equal(requests[0]!.includePending, false);
});
