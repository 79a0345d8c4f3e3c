import assert from "node:assert/strict";
import { CALL_WINDOW_BYTES, FrameConnection, FrameType } from "./frame.ts";
import { encodeHeader } from "./_frame_io.ts";
import { Code, GrpcStatusError } from "./grpc_status.ts";
import type { ServiceImpl } from "./rpc.ts";
import {
  Health,
  HealthCheckResponse_ServingStatus,
} from "./gen/grpc/health/v1/health_pb.ts";
import { GRPCStdio } from "./gen/plugin/grpc_stdio_pb.ts";
import { GRPCBroker } from "./gen/plugin/grpc_broker_pb.ts";

const SERVING = HealthCheckResponse_ServingStatus.SERVING;

/** A connected pair over a unix socket; `server` is the listening side. */
async function pair(): Promise<
  { client: FrameConnection; server: FrameConnection } & AsyncDisposable
> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const accepted = listener.accept();
  const client = new FrameConnection(
    await Deno.connect({ transport: "unix", path }),
    { dialer: true },
  );
  const server = new FrameConnection(await accepted);
  listener.close();
  return {
    client,
    server,
    async [Symbol.asyncDispose]() {
      client.close();
      server.close();
      await Promise.all([client.closed, server.closed]);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A raw socket to a listening FrameConnection (for malformed frames). */
async function raw(): Promise<
  { conn: Deno.Conn; server: FrameConnection } & AsyncDisposable
> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const accepted = listener.accept();
  const conn = await Deno.connect({ transport: "unix", path });
  const server = new FrameConnection(await accepted);
  listener.close();
  return {
    conn,
    server,
    async [Symbol.asyncDispose]() {
      server.close();
      try {
        conn.close();
      } catch {
        // closed by the test
      }
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function health(impl: Partial<ServiceImpl<typeof Health>>) {
  return {
    check: () => ({ status: SERVING }),
    async *watch() {},
    ...impl,
  } as ServiceImpl<typeof Health>;
}

Deno.test("FrameConnection serves a unary call both ways on one connection, with request headers", async () => {
  await using p = await pair();
  p.server.serve(
    Health,
    health({
      check: (req, ctx) => ({
        status: req.service === "plugin" &&
            ctx.metadata.get("x-k")[0] === "v"
          ? SERVING
          : HealthCheckResponse_ServingStatus.NOT_SERVING,
      }),
    }),
  );
  p.client.serve(Health, health({}));
  const res = await p.client.client(Health).check({ service: "plugin" }, {
    headers: { "x-k": "v" },
  });
  assert.equal(res.status, SERVING);
  // The listening side opens calls toward the dialer on the same socket.
  const back = await p.server.client(Health).check({ service: "" });
  assert.equal(back.status, SERVING);
});

Deno.test("FrameConnection carries a status code, message and details, and UNIMPLEMENTED for an unknown method", async () => {
  await using p = await pair();
  p.server.serve(
    Health,
    health({
      check: () => {
        throw new GrpcStatusError(Code.PERMISSION_DENIED, "no", {
          details: [{
            typeUrl: "type.googleapis.com/x.Y",
            value: new Uint8Array([1, 2]),
          }],
        });
      },
    }),
  );
  const err = await p.client.client(Health).check({}).catch((e) => e);
  assert.ok(err instanceof GrpcStatusError);
  assert.equal(err.code, Code.PERMISSION_DENIED);
  assert.equal(err.message, "no");
  assert.deepEqual(err.details, [{
    typeUrl: "type.googleapis.com/x.Y",
    value: new Uint8Array([1, 2]),
  }]);
  const missing = await p.client.client(GRPCStdio).streamStdio({})[
    Symbol.asyncIterator
  ]().next().catch((e) => e);
  assert.equal(missing.code, Code.UNIMPLEMENTED);
  assert.match(missing.message, /plugin\.GRPCStdio\/StreamStdio/);
  // A plain Error becomes INTERNAL with its message.
  p.client.serve(
    Health,
    health({
      check: () => {
        throw new Error("boom");
      },
    }),
  );
  const internal = await p.server.client(Health).check({}).catch((e) => e);
  assert.equal(internal.code, Code.INTERNAL);
  assert.equal(internal.message, "boom");
});

Deno.test("FrameConnection streams from the server and runs a bidi call", async () => {
  await using p = await pair();
  p.server.serve(GRPCStdio, {
    async *streamStdio() {
      for (let i = 0; i < 100; i++) yield { data: new Uint8Array([i]) };
    },
  });
  p.server.serve(GRPCBroker, {
    async *startStream(reqs) {
      for await (const r of reqs) yield { serviceId: r.serviceId * 2 };
    },
  });
  const got: number[] = [];
  for await (const d of p.client.client(GRPCStdio).streamStdio({})) {
    got.push(d.data[0]!);
  }
  assert.deepEqual(got, [...Array(100).keys()]);
  const bidi = p.client.client(GRPCBroker).startStream();
  bidi.send({ serviceId: 1 });
  bidi.send({ serviceId: 2 });
  bidi.end();
  const out: number[] = [];
  for await (const r of bidi.responses) out.push(r.serviceId);
  assert.deepEqual(out, [2, 4]);
});

Deno.test("FrameConnection cancels: the handler's signal aborts and the caller sees CANCELLED", async () => {
  await using p = await pair();
  const aborted = Promise.withResolvers<void>();
  p.server.serve(
    Health,
    health({
      async *watch(_req, ctx) {
        yield { status: SERVING };
        await new Promise((r) => ctx.signal.addEventListener("abort", r));
        aborted.resolve();
      },
    }),
  );
  const ac = new AbortController();
  const it = p.client.client(Health).watch({}, { signal: ac.signal })[
    Symbol.asyncIterator
  ]();
  assert.equal((await it.next()).value?.status, SERVING);
  const pending = it.next();
  ac.abort();
  const err = await pending.catch((e) => e);
  assert.equal(err.code, Code.CANCELLED);
  await aborted.promise;
  // Leaving a stream early cancels it as well.
  const again = Promise.withResolvers<void>();
  p.server.serve(
    Health,
    health({
      async *watch(_req, ctx) {
        ctx.signal.addEventListener("abort", () => again.resolve());
        while (true) {
          yield { status: SERVING };
          await new Promise((r) => setTimeout(r, 1));
        }
      },
    }),
  );
  for await (const _ of p.client.client(Health).watch({})) break;
  await again.promise;
});

Deno.test("FrameConnection ends a call at its deadline with DEADLINE_EXCEEDED on both sides", async () => {
  await using p = await pair();
  const handlerAborted = Promise.withResolvers<void>();
  p.server.serve(
    Health,
    health({
      check: (_req, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => {
            handlerAborted.resolve();
            reject(new Error("aborted"));
          })
        ),
    }),
  );
  const err = await p.client.client(Health).check({}, { timeoutMs: 50 })
    .catch((e) => e);
  assert.equal(err.code, Code.DEADLINE_EXCEEDED);
  await handlerAborted.promise;
});

Deno.test("FrameConnection flow control: a server stream waits for a reader that does not read, and large messages pass", async () => {
  await using p = await pair();
  const chunk = 64 * 1024;
  let produced = 0;
  const consumed = Promise.withResolvers<void>();
  p.server.serve(GRPCStdio, {
    async *streamStdio() {
      for (let i = 0; i < 200; i++) {
        produced++;
        yield { data: new Uint8Array(chunk) };
      }
    },
  });
  p.server.serve(
    Health,
    health({ check: () => ({ status: SERVING }) }),
  );
  const it = p.client.client(GRPCStdio).streamStdio({})[Symbol.asyncIterator]();
  await it.next();
  // Let the producer run as far as the window allows.
  for (let i = 0; i < 50; i++) await p.client.client(Health).check({});
  const window = CALL_WINDOW_BYTES / chunk;
  assert.ok(
    produced <= window + 3,
    `produced ${produced} messages before the reader read, window ${window}`,
  );
  let n = 1;
  while (!(await it.next()).done) n++;
  assert.equal(n, 200);
  assert.equal(produced, 200);
  consumed.resolve();
  // One message larger than the window goes alone.
  p.server.serve(GRPCStdio, {
    async *streamStdio() {
      yield { data: new Uint8Array(3 * CALL_WINDOW_BYTES).fill(7) };
      yield { data: new Uint8Array(3 * CALL_WINDOW_BYTES).fill(8) };
    },
  });
  const sizes: number[] = [];
  for await (const d of p.client.client(GRPCStdio).streamStdio({})) {
    sizes.push(d.data.length, d.data[d.data.length - 1]!);
  }
  assert.deepEqual(sizes, [3 * CALL_WINDOW_BYTES, 7, 3 * CALL_WINDOW_BYTES, 8]);
});

Deno.test("FrameConnection fails calls in flight with UNAVAILABLE when the connection closes", async () => {
  await using p = await pair();
  p.server.serve(
    Health,
    health({
      check: () => new Promise(() => {}),
    }),
  );
  const call = p.client.client(Health).check({}).catch((e) => e);
  await new Promise((r) => setTimeout(r, 10));
  p.server.close();
  const err = await call;
  assert.equal(err.code, Code.UNAVAILABLE);
  assert.equal(await p.client.closed, undefined);
  const after = await p.client.client(Health).check({}).catch((e) => e);
  assert.equal(after.code, Code.UNAVAILABLE);
});

Deno.test("FrameConnection closes on a malformed frame with an error naming the rule", async (t) => {
  const cases: [string, () => Uint8Array[], RegExp][] = [
    [
      "unknown type",
      () => [encodeHeader(1, 9 as FrameType, 0)],
      /unknown frame type 9 on call 1/,
    ],
    ["call id 0", () => [encodeHeader(0, FrameType.HEADERS, 0)], /call id 0/],
    [
      "HEADERS not JSON",
      () => [encodeHeader(1, FrameType.HEADERS, 3), new Uint8Array([1, 2, 3])],
      /HEADERS of call 1 are not JSON/,
    ],
    [
      "HEADERS without a path",
      () => {
        const b = new TextEncoder().encode("{}");
        return [encodeHeader(1, FrameType.HEADERS, b.length), b];
      },
      /must be \{"path": string/,
    ],
    [
      "a frame on a call never opened",
      () => [encodeHeader(5, FrameType.MESSAGE, 0)],
      /call 5, never opened/,
    ],
    [
      "a call id of the wrong side",
      () => [encodeHeader(2, FrameType.HEADERS, 0)],
      /HEADERS for call 2/,
    ],
    [
      "a length above the limit",
      () => [encodeHeader(1, FrameType.MESSAGE, 0xffffffff)],
      /above the limit/,
    ],
    [
      "HEADERS above the limit of a control frame",
      () => [encodeHeader(1, FrameType.HEADERS, 64 * 1024 + 1)],
      /above the limit of 65536 for frames without a message/,
    ],
    [
      "a WINDOW of the wrong size",
      () => {
        const b = new TextEncoder().encode(
          JSON.stringify({ path: "/grpc.health.v1.Health/Watch" }),
        );
        return [
          encodeHeader(1, FrameType.HEADERS, b.length),
          b,
          encodeHeader(1, FrameType.WINDOW, 2),
          new Uint8Array(2),
        ];
      },
      /WINDOW frame of 2 bytes on call 1, expected 4/,
    ],
    [
      "messages beyond the window",
      () => {
        const b = new TextEncoder().encode(
          JSON.stringify({ path: "/plugin.GRPCBroker/StartStream" }),
        );
        const big = new Uint8Array(CALL_WINDOW_BYTES);
        return [
          encodeHeader(1, FrameType.HEADERS, b.length),
          b,
          encodeHeader(1, FrameType.MESSAGE, big.length),
          big,
          encodeHeader(1, FrameType.MESSAGE, 1),
          new Uint8Array(1),
        ];
      },
      /beyond its flow-control window/,
    ],
    [
      "the connection ending inside a frame",
      () => [encodeHeader(1, FrameType.MESSAGE, 10).subarray(0, 5)],
      /ended inside a frame/,
    ],
  ];
  for (const [name, frames, expected] of cases) {
    await t.step(name, async () => {
      await using r = await raw();
      r.server.serve(
        Health,
        health({
          async *watch() {
            await new Promise(() => {});
            yield { status: SERVING };
          },
        }),
      );
      r.server.serve(GRPCBroker, {
        async *startStream(reqs) {
          // never reads: messages stay outstanding
          await new Promise(() => {});
          yield* reqs as AsyncIterable<never>;
        },
      });
      for (const f of frames()) {
        let w = 0;
        while (w < f.length) w += await r.conn.write(f.subarray(w));
      }
      if (name === "the connection ending inside a frame") r.conn.close();
      const err = await r.server.closed;
      assert.ok(err instanceof Error, "expected an error");
      assert.match(err.message, /^Cannot read frame: /);
      assert.match(err.message, expected);
    });
  }
});

Deno.test("FrameConnection sends the ASCII values of a grpc-js Metadata as request headers", async () => {
  await using p = await pair();
  p.server.serve(
    Health,
    health({
      check: (_req, ctx) => ({
        status: ctx.metadata.get("ph-session-id")[0] === "s1" &&
            ctx.metadata.get("x-h")[0] === "h"
          ? SERVING
          : HealthCheckResponse_ServingStatus.NOT_SERVING,
      }),
    }),
  );
  const md = {
    get: () => [],
    getMap: () => ({ "ph-session-id": "s1", "bin-bin": new Uint8Array([1]) }),
  };
  const res = await p.client.client(Health).check({}, {
    metadata: md,
    headers: { "x-h": "h" },
  });
  assert.equal(res.status, SERVING);
});
