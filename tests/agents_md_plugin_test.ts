/**
 * The `agents-md` context provider through a real plugin subprocess and
 * the kernel callback service (CountTokens): the §6.3 MUST list as far as
 * a provider answers for it, each step named after its item.
 */
import assert from "node:assert/strict";
import { create, equals } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  createCallbackService,
  type Plugin,
  PluginHost,
} from "../kernel/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type ContextSection,
  ContextSectionSchema,
  Stability,
} from "../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ContextService } from "../proto/gen/pluggableharness/context/v1/service_pb.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/agents-md/main.ts`;
const TARGET = { id: "scripted", contextWindow: 200_000n };

/** The kernel's CountTokens here: 10 per word, unlike any local heuristic. */
function kernelCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length * 10;
}

const words = (n: number, w = "word") =>
  Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");

interface Fixture extends AsyncDisposable {
  repo: string;
  counted: { n: number; fail: boolean };
  launch(config?: Record<string, unknown>, cwd?: string): Promise<Plugin>;
}

async function fixture(): Promise<Fixture> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agents-md-test-" }),
  );
  const repo = `${base}/repo`;
  await Deno.mkdir(`${repo}/.git`, { recursive: true });
  await Deno.mkdir(`${repo}/pkg/sub`, { recursive: true });
  await Deno.writeTextFile(`${repo}/AGENTS.md`, "Root rules: be kind.\n");
  await Deno.symlink(`${repo}/AGENTS.md`, `${repo}/CLAUDE.md`);
  await Deno.writeTextFile(`${repo}/pkg/AGENTS.md`, "Package rules.\n");
  await Deno.writeTextFile(
    `${repo}/pkg/sub/CLAUDE.md`,
    "Sub rules for Claude.\n",
  );
  await Deno.writeTextFile(
    `${repo}/pkg/sub/GEMINI.md`,
    "Sub rules for Gemini.\n",
  );
  const counted = { n: 0, fail: false };
  const hosts: PluginHost[] = [];
  const manifest = await readManifest(`${REPO}/plugins/agents-md/plugin.json`);
  return {
    repo,
    counted,
    launch: async (config = {}, cwd = repo) => {
      const host = new PluginHost({
        env: { PATH },
        cwd,
        callbackImpl: (identity) =>
          createCallbackService({
            identity,
            extend: {
              countTokens: (req) => {
                counted.n++;
                if (counted.fail) {
                  throw new GrpcStatusError(
                    Code.INTERNAL,
                    "tokenizer exploded",
                  );
                }
                const text = req.content.map((b) =>
                  b.block.case === "text" ? b.block.value.text : ""
                ).join("");
                return { count: BigInt(kernelCount(text)), exact: true };
              },
            },
          }),
      });
      hosts.push(host);
      const p = await host.launch({
        manifest,
        entrypoint: ENTRY,
        grant: { read: ["."] },
      });
      await p.client(ContextService).configure({ config: config as never });
      return p;
    },
    async [Symbol.asyncDispose]() {
      for (const h of hosts) await h.close();
      await Deno.remove(base, { recursive: true });
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

const prior = [
  create(ContextSectionSchema, {
    provider: "kernel",
    label: "system",
    content: [{ block: { case: "text", value: { text: "You are helpful." } } }],
    tokens: 4n,
    stability: Stability.STATIC,
  }),
];

function textOf(s: ContextSection): string {
  return s.content.map((b) => b.block.case === "text" ? b.block.value.text : "")
    .join("");
}

Deno.test("agents-md: the §6.3 MUST list, through a real plugin subprocess", async (t) => {
  await using f = await fixture();
  const p = await f.launch();
  const ctx = p.client(ContextService);
  const contribute = (
    tokenBudget: bigint,
    workingDirectory = `${f.repo}/pkg/sub`,
    metadata?: grpc.Metadata,
  ) =>
    ctx.contribute({
      sessionId: "01J00000000000000000000SES",
      turnId: "01J00000000000000000000TRN",
      tokenBudget,
      modelTarget: TARGET,
      workingDirectory,
      priorSections: prior,
      historyTokens: 100n,
      assembledTokensLastTurn: 0n,
    }, metadata ? { metadata } : {});

  await t.step(
    "MUST 3, 6, 7: capabilities declare a default budget and STATIC stability; Describe",
    async () => {
      const caps = (await ctx.getCapabilities({})).capabilities!;
      assert.equal(caps.defaultTokenBudget, 8000n);
      assert.equal(caps.stability, Stability.STATIC);
      assert.equal(caps.compactor, false);
      assert.deepEqual(
        caps.configSchema?.attributes.map((a) => a.name),
        ["file_names", "root", "token_budget"],
      );
      const d = (await ctx.describe({})).producer!;
      assert.deepEqual(
        [d.name, d.category, d.source, d.protocolVersion],
        ["agents-md", Category.CONTEXT, "builtin:agents-md", 1],
      );
    },
  );

  await t.step(
    "MUST 9 and 14: one labelled section per file, root to working directory, after the whole prior chain",
    async () => {
      const out = await contribute(8000n);
      assert.ok(
        equals(ContextSectionSchema, out.sections[0]!, prior[0]!),
        "prior section unchanged",
      );
      assert.deepEqual(out.sections.map((s) => s.label), [
        "system",
        "AGENTS.md", // CLAUDE.md links to it: one section
        "pkg/AGENTS.md",
        "pkg/sub/CLAUDE.md",
        "pkg/sub/GEMINI.md",
      ]);
      assert.equal(textOf(out.sections[3]!), "Sub rules for Claude.\n");
      for (const s of out.sections.slice(1)) {
        assert.equal(s.stability, Stability.STATIC);
        assert.equal(s.truncated, false);
      }
    },
  );

  await t.step(
    "MUST 10: its own sections carry its provider name (the kernel's, when sent); prior ones are untouched",
    async () => {
      const md = new grpc.Metadata();
      md.set("ph-provider", "docs");
      const named = await contribute(8000n, `${f.repo}/pkg/sub`, md);
      assert.equal(named.sections[0]!.provider, "kernel");
      assert.deepEqual(
        [...new Set(named.sections.slice(1).map((s) => s.provider))],
        ["docs"],
      );
      const unnamed = await contribute(8000n);
      assert.deepEqual(
        [...new Set(unnamed.sections.slice(1).map((s) => s.provider))],
        ["agents-md"],
      );
    },
  );

  await t.step(
    "MUST 13: section tokens come from the kernel's CountTokens",
    async () => {
      const before = f.counted.n;
      await Deno.writeTextFile(
        `${f.repo}/pkg/AGENTS.md`,
        "Package rules, edited.\n",
      );
      const out = await contribute(8000n);
      for (const s of out.sections.slice(1)) {
        assert.equal(s.tokens, BigInt(kernelCount(textOf(s))), s.label);
      }
      assert.ok(f.counted.n > before, "the kernel was asked");
    },
  );

  await t.step("MUST 5: sections hold text blocks only", async () => {
    const out = await contribute(8000n);
    for (const s of out.sections) {
      assert.ok(
        s.content.length > 0 && s.content.every((b) => b.block.case === "text"),
      );
    }
  });

  await t.step(
    "MUST 8: over budget, the farthest files are dropped first",
    async () => {
      // Own files: 40 + 30 + 40 + 40 tokens (10 per word).
      const all = await contribute(8000n);
      const own = all.sections.slice(1).map((s) => Number(s.tokens));
      const budget = own.slice(1).reduce((a, b) => a + b, 0); // all but the root file
      const out = await contribute(BigInt(budget));
      assert.deepEqual(out.sections.slice(1).map((s) => s.label), [
        "pkg/AGENTS.md",
        "pkg/sub/CLAUDE.md",
        "pkg/sub/GEMINI.md",
      ]);
      const tight = await contribute(BigInt(own.at(-1)!));
      assert.deepEqual(tight.sections.slice(1).map((s) => s.label), [
        "pkg/sub/GEMINI.md",
      ]);
    },
  );

  await t.step(
    "MUST 8: the nearest file alone over budget is cut, with a marker",
    async () => {
      await Deno.writeTextFile(
        `${f.repo}/pkg/sub/GEMINI.md`,
        Array.from({ length: 40 }, (_, i) => words(10, `l${i}w`)).join("\n") +
          "\n",
      );
      const out = await contribute(1000n); // the file is 4000 tokens
      const own = out.sections.slice(1);
      assert.equal(own.length, 1);
      const s = own[0]!;
      assert.equal(s.label, "pkg/sub/GEMINI.md");
      assert.equal(s.truncated, true);
      assert.ok(
        Number(s.tokens) <= 1000 && Number(s.tokens) > 500,
        String(s.tokens),
      );
      assert.equal(s.tokens, BigInt(kernelCount(textOf(s))));
      assert.match(
        textOf(s),
        /\n\n\[agents-md: pkg\/sub\/GEMINI\.md truncated to fit the token budget; showing the first \d+ of \d+ characters\]$/,
      );
      assert.match(textOf(s), /^l0w0 /, "the start is kept");
    },
  );

  await t.step(
    "MUST 1 and 2: a budget that holds nothing is budget_exceeded (FAILED_PRECONDITION)",
    async () => {
      await assert.rejects(
        contribute(5n),
        status(
          Code.FAILED_PRECONDITION,
          /^budget_exceeded: a token budget of 5 cannot hold any of 4 instruction files/,
        ),
      );
    },
  );

  await t.step(
    "MUST 1 and 2: malformed requests are invalid_request (INVALID_ARGUMENT)",
    async () => {
      await assert.rejects(
        ctx.contribute({ tokenBudget: 10n, workingDirectory: f.repo }),
        status(
          Code.INVALID_ARGUMENT,
          /^invalid_request: model_target is required$/,
        ),
      );
      await assert.rejects(
        ctx.contribute({
          tokenBudget: 10n,
          modelTarget: TARGET,
          workingDirectory: "relative/dir",
        }),
        status(
          Code.INVALID_ARGUMENT,
          /working_directory "relative\/dir" is not an absolute path/,
        ),
      );
    },
  );

  await t.step(
    "MUST 1 and 2: a failing CountTokens is source_unavailable (UNAVAILABLE)",
    async () => {
      await Deno.writeTextFile(
        `${f.repo}/pkg/AGENTS.md`,
        "Changed again, so not cached.\n",
      );
      f.counted.fail = true;
      try {
        await assert.rejects(
          contribute(8000n),
          status(
            Code.UNAVAILABLE,
            /^source_unavailable: the kernel's CountTokens failed: .*tokenizer exploded/,
          ),
        );
      } finally {
        f.counted.fail = false;
      }
    },
  );

  await t.step(
    "a working directory higher up gets a shorter chain",
    async () => {
      const out = await contribute(8000n, f.repo + "/pkg");
      assert.deepEqual(out.sections.slice(1).map((s) => s.label), [
        "AGENTS.md",
        "pkg/AGENTS.md",
      ]);
    },
  );
});

Deno.test("agents-md: MUST 15 — Configure fails when a declared source path resolves to nothing", async () => {
  await using f = await fixture();
  const p = await f.launch();
  const ctx = p.client(ContextService);
  await assert.rejects(
    ctx.configure({ config: { root: "no-such-dir" } }),
    status(
      Code.INVALID_ARGUMENT,
      /^invalid_request: config attribute "root" = "no-such-dir" resolves to ".*\/repo\/no-such-dir", which does not exist$/,
    ),
  );
  await assert.rejects(
    ctx.configure({ config: { root: "AGENTS.md" } }),
    status(Code.INVALID_ARGUMENT, /which is not a directory/),
  );
  await assert.rejects(
    ctx.configure({ config: { file_names: ["docs/AGENTS.md"] } }),
    status(
      Code.INVALID_ARGUMENT,
      /"file_names" must be a non-empty list of plain file names/,
    ),
  );
  await assert.rejects(
    ctx.configure({ config: { files: ["x"] } }),
    status(Code.INVALID_ARGUMENT, /config attribute "files" is not supported/),
  );
});

Deno.test("agents-md: Configure accepts the kernel's decoded block (every attribute, zero values for unset ones)", async () => {
  await using f = await fixture();
  const p = await f.launch({
    file_names: ["AGENTS.md", "CLAUDE.md", "GEMINI.md"],
    root: "",
    token_budget: 8000,
  });
  const out = await p.client(ContextService).contribute({
    tokenBudget: 8000n,
    modelTarget: TARGET,
    workingDirectory: f.repo,
  });
  assert.deepEqual(out.sections.map((s) => s.label), ["AGENTS.md"]);
  const caps = (await p.client(ContextService).getCapabilities({}))
    .capabilities!;
  const budget = caps.configSchema?.attributes.find((a) =>
    a.name === "token_budget"
  );
  assert.equal(
    budget?.defaultJson,
    "8000",
    "the cap defaults to the declared budget",
  );
});

Deno.test("agents-md: a configured root and file list; no repository means the working directory alone", async () => {
  await using f = await fixture();
  const p = await f.launch({
    root: "pkg",
    file_names: ["GEMINI.md", "AGENTS.md"],
  });
  const out = await p.client(ContextService).contribute({
    tokenBudget: 8000n,
    modelTarget: TARGET,
    workingDirectory: `${f.repo}/pkg/sub`,
  });
  assert.deepEqual(out.sections.map((s) => s.label), [
    "AGENTS.md",
    "sub/GEMINI.md",
  ]);

  await Deno.remove(`${f.repo}/.git`, { recursive: true });
  const q = await f.launch();
  const alone = await q.client(ContextService).contribute({
    tokenBudget: 8000n,
    modelTarget: TARGET,
    workingDirectory: `${f.repo}/pkg/sub`,
  });
  assert.deepEqual(alone.sections.map((s) => s.label), [
    "CLAUDE.md",
    "GEMINI.md",
  ]);
});
