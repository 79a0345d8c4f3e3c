/**
 * The `anthropic` provider's roster (`plugins/anthropic/models.json`)
 * against the vendor SDK as installed (no deprecated or retired id, every
 * id known to the SDK), the roster's own validation, and the pure
 * translation and error-mapping rules that the transport test cannot reach
 * (a model without vision or documents; rare statuses).
 *
 * @module
 */
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { join } from "node:path";
import {
  MessageSchema,
  Role,
} from "../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { StreamCompletionRequestSchema } from "../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { ModelErrorCategory } from "../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import models from "../plugins/anthropic/models.json" with { type: "json" };
import {
  findModel,
  parseRoster,
  RosterError,
  type RosterModel,
} from "../plugins/anthropic/roster.ts";
import { RequestError, toWireRequest } from "../plugins/anthropic/translate.ts";
import {
  classifyVendorError,
  redact,
  retryAfterSeconds,
} from "../plugins/anthropic/errors.ts";
import { REPO } from "./_helpers.ts";

/** The installed SDK package directory, found through `deno info`. */
async function sdkDir(): Promise<string> {
  const denoJson = JSON.parse(await Deno.readTextFile(`${REPO}/deno.json`));
  const spec: string = denoJson.imports["@anthropic-ai/sdk"];
  const version = /@(\d+\.\d+\.\d+[^/]*)$/.exec(spec)?.[1];
  assert.ok(version, `a pinned version in ${spec}`);
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const npmCache: string = JSON.parse(new TextDecoder().decode(info.stdout))
    .npmCache;
  // One directory per registry under the npm cache.
  for await (const registry of Deno.readDir(npmCache)) {
    const dir = join(npmCache, registry.name, "@anthropic-ai", "sdk", version);
    try {
      await Deno.stat(join(dir, "package.json"));
      return dir;
    } catch {
      // not this registry
    }
  }
  throw new Error(
    `@anthropic-ai/sdk ${version} is not in the npm cache ${npmCache}: run deno install`,
  );
}

async function* mjsFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* mjsFiles(p);
    else if (e.name.endsWith(".mjs")) yield p;
  }
}

/** Every key of every `DEPRECATED_MODELS = { ... }` map in the package. */
async function deprecatedModels(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let maps = 0;
  for await (const file of mjsFiles(dir)) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/DEPRECATED_MODELS\s*=\s*\{([^}]*)\}/g)) {
      maps++;
      for (
        const e of m[1]!.matchAll(/['"]([^'"]+)['"]\s*:\s*['"]([^'"]*)['"]/g)
      ) {
        out.set(e[1]!, e[2]!);
      }
    }
  }
  assert.ok(maps > 0, "the SDK has a DEPRECATED_MODELS map");
  return out;
}

Deno.test("the roster holds no model the installed SDK lists as deprecated or retired", async () => {
  const deprecated = await deprecatedModels(await sdkDir());
  assert.ok(deprecated.size > 0, "the map is not empty");
  const roster = parseRoster(models);
  for (const m of roster.models) {
    for (const id of [m.id, ...m.aliases]) {
      assert.ok(
        !deprecated.has(id),
        `${id} is deprecated (end of life ${
          deprecated.get(id)
        }): remove it from models.json`,
      );
    }
  }
});

Deno.test("every roster id is a model id the installed SDK knows", async () => {
  const dts = await Deno.readTextFile(
    join(await sdkDir(), "resources", "messages", "messages.d.mts"),
  );
  const union = /export type Model =([^;]+);/.exec(dts)?.[1];
  assert.ok(union, "the SDK declares its Model union");
  const known = new Set([...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!));
  for (const m of parseRoster(models).models) {
    for (const id of [m.id, ...m.aliases]) {
      assert.ok(known.has(id), `${id} is not a model of the SDK`);
    }
  }
});

Deno.test("models.json problems are refused, naming the field", () => {
  const base = structuredClone(models) as unknown as {
    models: Record<string, unknown>[];
  };
  const bad = (edit: (m: Record<string, unknown>) => void, re: RegExp) => {
    const copy = structuredClone(base);
    edit(copy.models[0]!);
    assert.throws(() => parseRoster(copy), (err: Error) => {
      assert.ok(err instanceof RosterError);
      assert.match(err.message, re);
      return true;
    });
  };
  bad((m) => (m.colour = "red"), /models\[0\]\.colour: unknown field/);
  bad(
    (m) => (m.context_window = -1),
    /models\[0\]\.context_window: must be a positive integer/,
  );
  bad(
    (m) => ((m.thinking as Record<string, unknown>).effort_default = "huge"),
    /models\[0\]\.thinking\.effort_default: "huge" is not one of the effort levels/,
  );
  bad(
    (
      m,
    ) => (m.pricing = [{
      input: 1,
      output: 2,
      cache_write: 1,
      cache_read: 0.1,
      input_tokens_until: 1000,
    }, {
      input: 1,
      output: 2,
      cache_write: 1,
      cache_read: 0.1,
      input_tokens_from: 2000,
    }]),
    /models\[0\]\.pricing: the tiers must cover every input size exactly once/,
  );
  bad(
    (m) => (m.pricing = [{ input: 1, output: 2, cache_read: 0.1 }]),
    /pricing\[0\]\.cache_write: must be a price/,
  );
  bad((m) => (m.id = models.models[1]!.id), /is listed twice/);
  bad(
    (m) => (m.tool_choice = ["auto", "sometimes"]),
    /tool_choice: "sometimes" is not one of/,
  );
});

Deno.test("an alias resolves to its model", () => {
  const roster = parseRoster(models);
  assert.equal(
    findModel(roster, "claude-haiku-4-5-20251001")?.id,
    "claude-haiku-4-5",
  );
  assert.equal(findModel(roster, "claude-nonexistent"), undefined);
});

Deno.test("MUST 10, 11: images and documents are refused cleanly for a model without vision or documents", () => {
  const roster = parseRoster(models);
  const blind: RosterModel = {
    ...findModel(roster, "claude-sonnet-5-5")!,
    vision: false,
    documents: false,
  };
  const req = (block: Parameters<typeof create<typeof MessageSchema>>[1]) =>
    create(StreamCompletionRequestSchema, {
      modelId: blind.id,
      messages: [create(MessageSchema, block)],
    });
  assert.throws(
    () =>
      toWireRequest(
        req({
          role: Role.USER,
          content: [{
            block: {
              case: "image",
              value: { data: new Uint8Array([1]), mediaType: "image/png" },
            },
          }],
        }),
        blind,
        { defaultMaxTokens: 1000 },
      ),
    (err: Error) =>
      err instanceof RequestError &&
      /messages\[0\]\.content\[0\]: is an image, and model "claude-sonnet-5-5" does not accept images/
        .test(err.message),
  );
  assert.throws(
    () =>
      toWireRequest(
        req({
          role: Role.USER,
          content: [{
            block: {
              case: "document",
              value: {
                data: new Uint8Array([1]),
                mediaType: "application/pdf",
              },
            },
          }],
        }),
        blind,
        { defaultMaxTokens: 1000 },
      ),
    (err: Error) =>
      err instanceof RequestError &&
      /does not accept documents/.test(err.message),
  );
  // Text still works, and max_tokens is capped at the model's output limit.
  const body = toWireRequest(
    req({
      role: Role.USER,
      content: [{ block: { case: "text", value: { text: "hi" } } }],
    }),
    blind,
    { defaultMaxTokens: 10_000_000 },
  );
  assert.equal(body.max_tokens, blind.maxOutputTokens);
});

Deno.test("rare vendor statuses map to the taxonomy; retry-after takes seconds or a date", () => {
  const key = "sk-ant-api03-SECRET-abcdefgh";
  const cases: [number, string, ModelErrorCategory, boolean][] = [
    [402, "billing_error", ModelErrorCategory.AUTH_ERROR, false],
    [404, "not_found_error", ModelErrorCategory.INVALID_REQUEST, false],
    [
      413,
      "request_too_large",
      ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
      false,
    ],
    [503, "", ModelErrorCategory.OVERLOADED, true],
    [504, "timeout_error", ModelErrorCategory.UNKNOWN, true],
    [502, "", ModelErrorCategory.UNKNOWN, true],
    [418, "", ModelErrorCategory.UNKNOWN, false],
  ];
  for (const [status, type, category, retryable] of cases) {
    const e = classifyVendorError({
      status,
      body: type
        ? { type: "error", error: { type, message: `m ${key}` } }
        : "<html>gateway</html>",
      headers: new Headers({ "retry-after": "3" }),
      apiKey: key,
    });
    assert.equal(e.category, category, String(status));
    assert.equal(e.retryable, retryable, String(status));
    assert.equal(
      e.retryAfter !== undefined,
      retryable,
      `${status}: retry_after only when retryable`,
    );
    assert.ok(
      !`${e.message} ${e.rawDetail}`.includes(key),
      `${status}: no key`,
    );
  }
  assert.equal(retryAfterSeconds("12"), 12);
  assert.equal(
    retryAfterSeconds(
      "Wed, 21 Oct 2026 07:28:10 GMT",
      Date.parse("Wed, 21 Oct 2026 07:28:00 GMT"),
    ),
    10,
  );
  assert.equal(retryAfterSeconds("soon"), undefined);
  assert.equal(
    redact("a KEY12345678 b KEY12345678", "KEY12345678"),
    "a [REDACTED] b [REDACTED]",
  );
});
