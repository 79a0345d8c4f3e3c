/**
 * The go-plugin compatible handshake shared by the kernel and the plugin SDK:
 * constants compiled into both sides, the environment contract and the one
 * announce line a plugin prints on stdout.
 *
 * @example Parse a handshake line
 * ```ts
 * import { parseHandshakeLine } from "@ph/agent/proto";
 * import assert from "node:assert/strict";
 *
 * const hs = parseHandshakeLine("1|1|unix|/tmp/plugin42|grpc|", [1]);
 * assert.equal(hs.network, "unix");
 * assert.equal(hs.address, "/tmp/plugin42");
 * ```
 *
 * @module
 */

/** go-plugin's core protocol version; any other value is refused. */
export const CORE_PROTOCOL_VERSION = 1;
/** Our application protocol version (bumped only with a v2 proto package). */
export const APP_PROTOCOL_VERSION = 1;
/** The magic cookie variable every plugin checks before doing anything. */
export const MAGIC_COOKIE_KEY = "PLUGGABLEHARNESS_AGENT_PLUGIN";
/** The magic cookie value. A UX guard, not a secret. */
export const MAGIC_COOKIE_VALUE =
  "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake";
/** The fixed broker ID on which the kernel offers `KernelCallbackService`. */
export const CALLBACK_BROKER_ID = 1;
/**
 * A health service name our SDK reports as SERVING (any other server
 * reports it unknown): the plugin asks for the callback channel itself, by
 * sending a knock for broker ID 1 on the broker stream, so the kernel
 * opens the channel (and starts its callback gateway) only then. A plugin
 * that does not report it gets the channel announced as soon as it is
 * healthy, as go-plugin peers expect.
 */
export const CALLBACK_ON_DEMAND_SERVICE = "pluggableharness.callback.on-demand";
/**
 * The variable holding the kernel's log floor for plugin `Log` entries
 * (`trace`, `debug`, `info`, `warn`, `error`, `fatal`, or `off` when the
 * kernel keeps no plugin log): the SDK drops an entry below it instead of
 * sending it, since the kernel would drop it.
 */
export const LOG_LEVEL_ENV = "PLUGGABLEHARNESS_LOG_LEVEL";
/**
 * The socket file name a plugin uses inside a private
 * `PLUGIN_UNIX_SOCKET_DIR` (a fixed name lets the kernel grant exactly that
 * socket to a Deno plugin).
 */
export const PLUGIN_SOCKET_NAME = "plugin.sock";
/** The gRPC health service name go-plugin reports as SERVING. */
export const HEALTH_SERVICE_NAME = "plugin";

/**
 * Variables the go-plugin contract puts into a plugin's environment. The
 * kernel sets them; the SDK reads them. A plugin never gets any other
 * variable of the kernel's environment unless its grant names it.
 */
export const HANDSHAKE_ENV = {
  protocolVersions: "PLUGIN_PROTOCOL_VERSIONS",
  minPort: "PLUGIN_MIN_PORT",
  maxPort: "PLUGIN_MAX_PORT",
  unixSocketDir: "PLUGIN_UNIX_SOCKET_DIR",
  unixSocketGroup: "PLUGIN_UNIX_SOCKET_GROUP",
  clientCert: "PLUGIN_CLIENT_CERT",
  multiplexGrpc: "PLUGIN_MULTIPLEX_GRPC",
} as const;

/**
 * The transports besides gRPC that the host offers its plugin
 * (comma-separated; today only `frame`, the framed protocol of
 * `proto/frame.ts`, on unix sockets). A plugin that knows one answers with
 * its name as the handshake line's protocol field; every other plugin
 * ignores the variable and answers `grpc`.
 */
export const TRANSPORTS_ENV = "PLUGGABLEHARNESS_TRANSPORTS";

/** The protocols a handshake line may name. */
export type HandshakeProtocol = "grpc" | "frame";

/** A parsed handshake line. */
export interface Handshake {
  /** Core protocol version (always 1). */
  coreVersion: number;
  /** The negotiated application protocol version. */
  appVersion: number;
  /** `unix` or `tcp`. */
  network: "unix" | "tcp";
  /** Socket path, or `127.0.0.1:PORT`. */
  address: string;
  /**
   * `grpc`, or `frame` when the host offered it and the network is
   * `unix`; netrpc is refused.
   */
  protocol: HandshakeProtocol;
  /** Base64 DER server certificate, when the plugin enabled TLS. */
  serverCert?: string;
}

/** Why a handshake line was refused: a stable code plus a message. */
export class HandshakeError extends Error {
  /** A stable machine-readable reason. */
  readonly code:
    | "handshake_unrecognized"
    | "handshake_core_version"
    | "handshake_app_version"
    | "handshake_network"
    | "handshake_protocol"
    | "handshake_tls";
  /**
   * @param code The stable reason code.
   * @param message What was expected and what arrived.
   */
  constructor(code: HandshakeError["code"], message: string) {
    super(message);
    this.name = "HandshakeError";
    this.code = code;
  }
}

function quote(s: string, max = 120): string {
  const t = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(t);
}

/**
 * Parses a go-plugin handshake line strictly, the way a go-plugin host does:
 * `CORE|APP|NETWORK|ADDR|grpc[|CERT]` (or `frame` in the fifth field, when
 * `protocols` allows it, on a unix socket).
 *
 * @param line The first stdout line of the plugin (newline optional).
 * @param appVersions Application protocol versions this host accepts.
 * @param protocols The protocols this host offered.
 * @returns The parsed handshake.
 * @throws {HandshakeError} If any field is missing or not acceptable.
 */
export function parseHandshakeLine(
  line: string,
  appVersions: readonly number[] = [APP_PROTOCOL_VERSION],
  protocols: readonly HandshakeProtocol[] = ["grpc"],
): Handshake {
  const parts = line.trim().split("|");
  if (parts.length < 4) {
    throw new HandshakeError(
      "handshake_unrecognized",
      `unrecognized handshake line ${
        quote(line.trim())
      }: expected "CORE|APP|NETWORK|ADDR|grpc" (is this a plugin, and does it print nothing else first?)`,
    );
  }
  const [core, app, network, address, protocol, cert] = parts as [
    string,
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  if (!/^\d+$/.test(core) || Number(core) !== CORE_PROTOCOL_VERSION) {
    throw new HandshakeError(
      "handshake_core_version",
      `unsupported core protocol version ${
        quote(core)
      }: expected ${CORE_PROTOCOL_VERSION}`,
    );
  }
  if (!/^\d+$/.test(app) || !appVersions.includes(Number(app))) {
    throw new HandshakeError(
      "handshake_app_version",
      `incompatible plugin protocol version ${quote(app)}: this kernel speaks ${
        appVersions.join(", ")
      }`,
    );
  }
  if (network !== "unix" && network !== "tcp") {
    throw new HandshakeError(
      "handshake_network",
      `unsupported network ${quote(network)}: expected "unix" or "tcp"`,
    );
  }
  if (address.length === 0) {
    throw new HandshakeError(
      "handshake_network",
      "empty plugin address in the handshake line",
    );
  }
  if (
    network === "tcp" &&
    !/^(127\.\d+\.\d+\.\d+|\[::1\]|localhost):\d+$/.test(address)
  ) {
    throw new HandshakeError(
      "handshake_network",
      `refusing non-loopback plugin address ${quote(address)}`,
    );
  }
  const proto = protocol === undefined || protocol === "" ? "netrpc" : protocol;
  if (!(protocols as readonly string[]).includes(proto)) {
    throw new HandshakeError(
      "handshake_protocol",
      `unsupported plugin protocol ${quote(proto)}: only ${
        protocols.map((p) => `"${p}"`).join(" or ")
      } is allowed`,
    );
  }
  if (proto === "frame" && network !== "unix") {
    throw new HandshakeError(
      "handshake_protocol",
      `the "frame" protocol needs a unix socket, not ${quote(network)}`,
    );
  }
  // go-plugin treats field 6 as a certificate only when it is longer than 50.
  if (cert !== undefined && cert.length > 50) {
    throw new HandshakeError(
      "handshake_tls",
      "the plugin announced a TLS certificate, but this kernel does not request TLS",
    );
  }
  return {
    coreVersion: CORE_PROTOCOL_VERSION,
    appVersion: Number(app),
    network,
    address,
    protocol: proto as HandshakeProtocol,
  };
}

/**
 * Formats the line a plugin prints: always six fields, the sixth empty when
 * there is no TLS certificate, exactly as a Go go-plugin server does.
 *
 * @param hs The values to announce.
 * @returns The line without its trailing newline.
 */
export function formatHandshakeLine(
  hs:
    & Pick<Handshake, "appVersion" | "network" | "address">
    & Partial<Pick<Handshake, "protocol">>,
): string {
  return `${CORE_PROTOCOL_VERSION}|${hs.appVersion}|${hs.network}|${hs.address}|${
    hs.protocol ?? "grpc"
  }|`;
}

/**
 * Picks the application protocol version a plugin serves, following
 * go-plugin: the highest version both sides know; with no overlap or no host
 * list, the lowest version the plugin has (the host then refuses it).
 *
 * @param hostList The raw `PLUGIN_PROTOCOL_VERSIONS` value, if any.
 * @param pluginVersions The versions the plugin can serve.
 * @returns The version to announce.
 */
export function negotiateAppVersion(
  hostList: string | undefined,
  pluginVersions: readonly number[] = [APP_PROTOCOL_VERSION],
): number {
  const host = (hostList ?? "").split(",").map((s) => s.trim()).filter((s) =>
    /^\d+$/.test(s)
  ).map(Number);
  const mine = [...pluginVersions].sort((a, b) => b - a);
  for (const v of mine) if (host.includes(v)) return v;
  return mine[mine.length - 1]!;
}
