import assert from "node:assert/strict";
import {
  formatHandshakeLine,
  HandshakeError,
  negotiateAppVersion,
  parseHandshakeLine,
} from "./handshake.ts";

Deno.test("parseHandshakeLine() accepts go-plugin's unix and tcp lines", () => {
  assert.deepEqual(parseHandshakeLine("1|1|unix|/tmp/plugin314|grpc|\n"), {
    coreVersion: 1,
    appVersion: 1,
    network: "unix",
    address: "/tmp/plugin314",
    protocol: "grpc",
  });
  assert.equal(
    parseHandshakeLine("1|1|tcp|127.0.0.1:10000|grpc").address,
    "127.0.0.1:10000",
  );
});

Deno.test("parseHandshakeLine() refuses each malformed field with its own code", async (t) => {
  const cases: [string, string, HandshakeError["code"], RegExp][] = [
    [
      "garbage",
      "hello world",
      "handshake_unrecognized",
      /unrecognized handshake line "hello world"/,
    ],
    [
      "too few fields",
      "1|1|unix",
      "handshake_unrecognized",
      /expected "CORE\|APP/,
    ],
    [
      "core version 2",
      "2|1|unix|/tmp/p|grpc|",
      "handshake_core_version",
      /core protocol version "2": expected 1/,
    ],
    [
      "non-numeric core",
      "x|1|unix|/tmp/p|grpc|",
      "handshake_core_version",
      /"x"/,
    ],
    [
      "app version 7",
      "1|7|unix|/tmp/p|grpc|",
      "handshake_app_version",
      /"7": this kernel speaks 1/,
    ],
    [
      "network udp",
      "1|1|udp|/tmp/p|grpc|",
      "handshake_network",
      /network "udp"/,
    ],
    [
      "empty address",
      "1|1|unix||grpc|",
      "handshake_network",
      /empty plugin address/,
    ],
    [
      "non-loopback tcp",
      "1|1|tcp|10.0.0.1:80|grpc|",
      "handshake_network",
      /non-loopback/,
    ],
    [
      "netrpc (no protocol field)",
      "1|1|unix|/tmp/p",
      "handshake_protocol",
      /"netrpc"/,
    ],
    ["netrpc", "1|1|unix|/tmp/p|netrpc|", "handshake_protocol", /only "grpc"/],
    [
      "TLS cert",
      `1|1|unix|/tmp/p|grpc|${"A".repeat(80)}`,
      "handshake_tls",
      /TLS certificate/,
    ],
  ];
  for (const [name, line, code, message] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => parseHandshakeLine(line),
        (err: unknown) =>
          err instanceof HandshakeError && err.code === code &&
          message.test(err.message),
      );
    });
  }
});

Deno.test("parseHandshakeLine() ignores a short sixth field as go-plugin does", () => {
  assert.equal(
    parseHandshakeLine("1|1|unix|/tmp/p|grpc|short").address,
    "/tmp/p",
  );
});

Deno.test("formatHandshakeLine() prints six fields with an empty certificate", () => {
  assert.equal(
    formatHandshakeLine({ appVersion: 1, network: "unix", address: "/tmp/x" }),
    "1|1|unix|/tmp/x|grpc|",
  );
});

Deno.test("negotiateAppVersion() picks the highest common version, else the lowest own", () => {
  assert.equal(negotiateAppVersion("1", [1]), 1);
  assert.equal(negotiateAppVersion("1,2,3", [1, 2]), 2);
  assert.equal(negotiateAppVersion(" 2 , x, 1", [1, 2]), 2);
  assert.equal(negotiateAppVersion("5", [1, 2]), 1);
  assert.equal(negotiateAppVersion(undefined, [2, 3]), 2);
});

Deno.test("parseHandshakeLine() accepts frame as the fifth field only when offered, and only on a unix socket", () => {
  const line = "1|1|unix|/tmp/p|frame|";
  assert.equal(
    parseHandshakeLine(line, [1], ["grpc", "frame"]).protocol,
    "frame",
  );
  assert.equal(
    parseHandshakeLine("1|1|unix|/tmp/p|grpc|", [1], ["grpc", "frame"])
      .protocol,
    "grpc",
  );
  assert.throws(
    () => parseHandshakeLine(line),
    (err: unknown) =>
      err instanceof HandshakeError && err.code === "handshake_protocol" &&
      /unsupported plugin protocol "frame": only "grpc"/.test(err.message),
  );
  assert.throws(
    () =>
      parseHandshakeLine("1|1|tcp|127.0.0.1:1|frame|", [1], ["grpc", "frame"]),
    (err: unknown) =>
      err instanceof HandshakeError && err.code === "handshake_protocol" &&
      /needs a unix socket/.test(err.message),
  );
});

Deno.test("formatHandshakeLine() names the protocol a plugin chose", () => {
  assert.equal(
    formatHandshakeLine({
      appVersion: 1,
      network: "unix",
      address: "/tmp/x",
      protocol: "frame",
    }),
    "1|1|unix|/tmp/x|frame|",
  );
});
