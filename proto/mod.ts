/**
 * Wire contracts (`@ph/agent/proto`): the gRPC adapter between generated
 * protobuf-es services and `@grpc/grpc-js`, and the go-plugin compatible
 * handshake. The generated messages of each package are under
 * `@ph/agent/proto/<area>`, e.g. `@ph/agent/proto/tool` for
 * `pluggableharness.tool.v1`.
 *
 * @example
 * ```ts
 * import { formatHandshakeLine, parseHandshakeLine } from "@ph/agent/proto";
 * import assert from "node:assert/strict";
 *
 * const line = formatHandshakeLine({ appVersion: 1, network: "unix", address: "/tmp/p" });
 * assert.equal(line, "1|1|unix|/tmp/p|grpc|");
 * assert.equal(parseHandshakeLine(line).address, "/tmp/p");
 * ```
 *
 * @module
 */
export {
  addService,
  type BidiCall,
  type CallOptions,
  CHANNEL_OPTIONS,
  type ClientMethodFor,
  Code,
  createClient,
  dial,
  GRPC_JS_ENV,
  GrpcStatusError,
  type HandlerContext,
  type HandlerFor,
  type Init,
  methodPath,
  type ServiceClient,
  type ServiceImpl,
  toMessage,
  toStatusObject,
} from "./grpc_adapter.ts";
export {
  APP_PROTOCOL_VERSION,
  CALLBACK_BROKER_ID,
  CORE_PROTOCOL_VERSION,
  formatHandshakeLine,
  type Handshake,
  HANDSHAKE_ENV,
  HandshakeError,
  HEALTH_SERVICE_NAME,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  negotiateAppVersion,
  parseHandshakeLine,
  PLUGIN_SOCKET_NAME,
} from "./handshake.ts";
