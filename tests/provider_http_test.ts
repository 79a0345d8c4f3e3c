/**
 * The direct HTTP requests of the anthropic and openai plugins
 * (`plugins/anthropic/client.ts`, `plugins/openai/http.ts`), in process,
 * against a local server: the answers the provider tests' fakes never
 * give (a body that is not JSON, a server that never answers) are
 * classified, not thrown as something else.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  ConnectionError as AnthropicConnectionError,
  HttpStatusError as AnthropicStatusError,
  parseSettings,
  postJson,
} from "../plugins/anthropic/client.ts";
import { classifyError } from "../plugins/anthropic/errors.ts";
import {
  ConnectionError,
  HttpStatusError,
  request,
} from "../plugins/openai/http.ts";
import { failureOf } from "../plugins/openai/provider.ts";
import { ModelErrorCategory } from "../proto/gen/pluggableharness/model/v1/errors_pb.ts";

const KEY = "sk-ant-api03-HTTPTEST-0011223344556677";

/** Serves `handler` on 127.0.0.1 (port 0) while `fn` runs. */
async function withServer(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      signal: ac.signal,
      onListen: () => {},
    },
    handler,
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("anthropic postJson() sends the key, the version and the JSON body, and returns a 2xx response", async () => {
  let seen: { headers: Headers; body: unknown } | undefined;
  await withServer(async (req) => {
    seen = { headers: req.headers, body: await req.json() };
    return Response.json({ input_tokens: 7 });
  }, async (url) => {
    const s = parseSettings({ api_key: KEY, base_url: url });
    const res = await postJson(
      s,
      "/v1/messages/count_tokens",
      { model: "m" },
      new AbortController().signal,
    );
    assert.deepEqual(await res.json(), { input_tokens: 7 });
  });
  assert.equal(seen?.headers.get("authorization"), `Bearer ${KEY}`);
  assert.match(
    seen?.headers.get("anthropic-version") ?? "",
    /^\d{4}-\d{2}-\d{2}$/,
  );
  assert.equal(seen?.headers.get("content-type"), "application/json");
  assert.deepEqual(seen?.body, { model: "m" });
});

Deno.test("anthropic: a status answer whose body is not JSON is classified with the body's text", async () => {
  await withServer(
    () => new Response(`bad gateway (key ${KEY})`, { status: 502 }),
    async (url) => {
      const s = parseSettings({ api_key: KEY, base_url: url });
      const err = await postJson(
        s,
        "/v1/messages",
        {},
        new AbortController().signal,
      ).catch((e) => e);
      assert.ok(err instanceof AnthropicStatusError);
      assert.equal(err.status, 502);
      const e = classifyError(err, KEY, url);
      assert.equal(e.category, ModelErrorCategory.UNKNOWN);
      assert.equal(e.retryable, true);
      assert.match(e.message ?? "", /HTTP 502 \(api_error\): bad gateway/);
      assert.ok(!(e.message ?? "").includes(KEY), "the key is scrubbed");
      assert.ok(!(e.rawDetail ?? "").includes(KEY), "the key is scrubbed");
    },
  );
});

Deno.test("anthropic: a server that sends no headers within timeout_ms is a retryable network failure", async () => {
  const never = Promise.withResolvers<Response>();
  await withServer(() => never.promise, async (url) => {
    const s = parseSettings({ api_key: KEY, base_url: url, timeout_ms: 50 });
    const err = await postJson(
      s,
      "/v1/messages",
      {},
      new AbortController().signal,
    ).catch((e) => e);
    never.resolve(new Response("late"));
    assert.ok(err instanceof AnthropicConnectionError);
    const e = classifyError(err, KEY, url);
    assert.equal(e.retryable, true);
    assert.match(
      e.message ?? "",
      /cannot reach Anthropic at http:\/\/127\.0\.0\.1:\d+ \(network\): Request timed out/,
    );
  });
});

Deno.test("openai request(): an error object, a body that is not JSON and an empty body give the SDK's messages", async () => {
  const replies = [
    () =>
      Response.json({
        error: {
          message: "too long",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      }, { status: 400, headers: { "x-request-id": "req_1" } }),
    () => new Response("upstream <html>", { status: 502 }),
    () => new Response(null, { status: 503, headers: { "retry-after": "3" } }),
  ];
  let i = 0;
  await withServer(() => replies[i++]!(), async (url) => {
    const target = { baseUrl: `${url}/v1`, apiKey: "sk-test-0123456789" };
    const fail = (path: string) =>
      request(target, "POST", path, {}, new AbortController().signal)
        .catch((e) => e);
    const a = await fail("/chat/completions");
    assert.ok(a instanceof HttpStatusError);
    assert.equal(a.message, "400 too long");
    assert.equal(a.error?.code, "context_length_exceeded");
    const fa = failureOf(a, []);
    assert.equal(fa.category, ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED);
    assert.equal(fa.message, "too long");
    assert.equal(
      fa.rawDetail,
      "http 400 context_length_exceeded invalid_request_error",
    );

    const b = await fail("/chat/completions");
    assert.ok(b instanceof HttpStatusError);
    assert.equal(b.message, "502 upstream <html>");
    assert.equal(failureOf(b, []).category, ModelErrorCategory.OVERLOADED);

    const c = await fail("/responses");
    assert.ok(c instanceof HttpStatusError);
    assert.equal(c.message, "503 status code (no body)");
    const fc = failureOf(c, []);
    assert.equal(fc.category, ModelErrorCategory.OVERLOADED);
    assert.equal(fc.retryable, true);
    assert.equal(Number(fc.retryAfter?.seconds), 3);
  });
});

Deno.test("openai request(): no Authorization header without a key; organization and project when set", async () => {
  const seen: Headers[] = [];
  await withServer((req) => {
    seen.push(req.headers);
    return Response.json({ data: [] });
  }, async (url) => {
    const signal = new AbortController().signal;
    await request({ baseUrl: url }, "GET", "/models", undefined, signal);
    await request(
      { baseUrl: url, apiKey: "k-1234", organization: "org-1", project: "p-1" },
      "GET",
      "/models",
      undefined,
      signal,
    );
  });
  assert.equal(seen[0]!.get("authorization"), null);
  assert.equal(seen[0]!.get("content-type"), null, "a GET has no body");
  assert.equal(seen[1]!.get("authorization"), "Bearer k-1234");
  assert.equal(seen[1]!.get("openai-organization"), "org-1");
  assert.equal(seen[1]!.get("openai-project"), "p-1");
});

Deno.test("openai request(): a refused connection is a network failure (OVERLOADED, retryable)", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const err = await request(
    { baseUrl: `http://127.0.0.1:${port}` },
    "GET",
    "/models",
    undefined,
    new AbortController().signal,
  ).catch((e) => e);
  assert.ok(err instanceof ConnectionError);
  assert.equal(err.message, "Connection error.");
  const f = failureOf(err, []);
  assert.equal(f.category, ModelErrorCategory.OVERLOADED);
  assert.equal(f.retryable, true);
  assert.match(f.rawDetail ?? "", /^network/);
});
