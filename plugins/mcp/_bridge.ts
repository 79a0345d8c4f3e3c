/**
 * The MCP bridge: one connection to one MCP server (a stdio process or a
 * streamable-HTTP endpoint), its tools as `ToolSchema`s, and calls
 * forwarded as `tools/call` with their results mapped to payloads.
 *
 * Lifecycle. {@linkcode McpBridge.start} connects and lists the tools
 * (Configure calls it, so GetSchema only reads the cached list). A
 * `notifications/tools/list_changed` from the server re-lists them. A call
 * that finds the connection gone (the server exited, or was stopped after
 * hanging) first reconnects once — a stdio server is restarted — and
 * fails with a clear error if that fails; no call ever waits longer than
 * its timeout. A call whose server stops answering times out (TIMEOUT);
 * the bridge then pings the server and, if the ping goes unanswered too,
 * stops it so that the next call starts a fresh one.
 *
 * @module
 */
import type {
  JsonObject,
  JsonValue,
  MessageInitShape,
} from "@bufbuild/protobuf";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  ToolKind,
  type ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  classify,
  decodeArguments,
  type EncodedPaths,
  exposedName,
  type SubsetSchema,
  translateInputSchema,
} from "./_schema.ts";
import { ProcessTransport, type StdioServerSpec } from "./_stdio.ts";
import { sandboxHint } from "./_sandbox_hint.ts";

/** A tool schema as a message init shape. */
export type ToolSchemaInit = MessageInitShape<typeof ToolSchemaSchema>;

/** How the bridge reaches its server. */
export type ServerSpec =
  | { kind: "stdio"; stdio: StdioServerSpec }
  | { kind: "http"; url: URL; headers: Record<string, string> };

/** The bridge's settings (the decoded provider block). */
export interface BridgeOptions {
  /** The server. */
  server: ServerSpec;
  /** Put before every exposed tool name. */
  prefix: string;
  /** MCP tool names to expose; undefined exposes all. */
  allow?: string[];
  /** Believe the servers' annotations (see `classify`). */
  trustAnnotations: boolean;
  /** Deadline of connecting (initialize and the first tools/list). */
  connectTimeoutMs: number;
  /** Deadline of one call. */
  callTimeoutMs: number;
  /** Most characters of text (and base64 data) in one result. */
  maxResultChars: number;
  /** The bridge's own version, sent as clientInfo. */
  version: string;
  /** Where warnings go. */
  warn?: (message: string, fields?: Record<string, unknown>) => void;
}

/** How a bridge call failed; mapped one-to-one to a `ToolErrorCategory`. */
export type FailureKind =
  | "invalid_arguments"
  | "not_found"
  | "permission_denied"
  | "execution_failed"
  | "timeout"
  | "cancelled";

/** A classified failure of a call or of connecting. */
export class BridgeFailure extends Error {
  /** Its category. */
  readonly kind: FailureKind;
  /** Whether trying again may succeed. */
  readonly retryable: boolean;
  /** Structured details. */
  readonly details: JsonObject;
  /**
   * Creates the failure.
   *
   * @param kind Its category.
   * @param message A sentence naming what failed.
   * @param options Retryability and details.
   */
  constructor(
    kind: FailureKind,
    message: string,
    options: { retryable?: boolean; details?: JsonObject } = {},
  ) {
    super(message);
    this.name = "BridgeFailure";
    this.kind = kind;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

/** One exposed tool. */
export interface ExposedTool {
  /** The name the model sees. */
  name: string;
  /** The server's name for it. */
  mcpName: string;
  /** Its schema. */
  schema: ToolSchemaInit;
  /** Arguments to JSON-decode before forwarding. */
  encoded?: EncodedPaths;
}

interface Connection {
  client: Client;
  transport: Transport;
  alive: boolean;
}

const PING_TIMEOUT_MS = 2_000;

function str(description: string): SubsetSchema {
  return { type: SchemaType.STRING, description };
}

/** The output schema every bridged tool declares. */
export const OUTPUT_SCHEMA: SubsetSchema = {
  type: SchemaType.OBJECT,
  properties: {
    text: str("The result's text blocks, joined by blank lines."),
    content: {
      type: SchemaType.ARRAY,
      description: "The result's content blocks, in order.",
      items: {
        type: SchemaType.OBJECT,
        properties: {
          type: {
            type: SchemaType.STRING,
            description: "The block's type.",
            enumValues: ["text", "image", "audio", "resource", "resource_link"],
          },
          text: str("Text (text blocks, text resources)."),
          mime_type: str("The media type of binary or resource content."),
          data: str("Base64 data (images, audio, blob resources)."),
          uri: str("The resource's URI."),
          name: str("The linked resource's name."),
          description: str("The linked resource's description."),
          omitted: {
            type: SchemaType.BOOLEAN,
            description: "True when data or text was left out or cut for size.",
          },
        },
        required: ["type"],
      },
    },
    structured_content: {
      type: SchemaType.OBJECT,
      description:
        "The server's structured result, when it sent one (any keys).",
      properties: {},
      required: [],
    },
    truncated: {
      type: SchemaType.BOOLEAN,
      description: "Whether text or data was cut to the size limit.",
    },
  },
  required: ["text", "content", "truncated"],
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Maps a `tools/call` result's content to a payload, within a character
 * budget shared by text and base64 data.
 *
 * @param result The result.
 * @param maxChars The budget.
 * @returns The payload.
 */
export function mapResult(
  result: CallToolResult,
  maxChars: number,
): JsonObject {
  let budget = maxChars;
  let truncated = false;
  const texts: string[] = [];
  const take = (text: string): { text: string; cut: boolean } => {
    if (text.length <= budget) {
      budget -= text.length;
      return { text, cut: false };
    }
    const kept = text.slice(0, Math.max(0, budget));
    budget = 0;
    truncated = true;
    return {
      text:
        `${kept}\n[mcp: cut at ${kept.length} of ${text.length} characters]`,
      cut: true,
    };
  };
  const data = (b64: string): { data: string; omitted?: boolean } => {
    if (b64.length <= budget) {
      budget -= b64.length;
      return { data: b64 };
    }
    truncated = true;
    return { data: "", omitted: true };
  };
  const content: JsonObject[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text": {
        const t = take(block.text);
        texts.push(t.text);
        content.push({
          type: "text",
          text: t.text,
          ...(t.cut ? { omitted: true } : {}),
        });
        break;
      }
      case "image":
      case "audio":
        content.push({
          type: block.type,
          mime_type: block.mimeType,
          ...data(block.data),
        });
        break;
      case "resource": {
        const r = block.resource as Record<string, unknown>;
        const out: JsonObject = { type: "resource", uri: String(r.uri ?? "") };
        if (typeof r.mimeType === "string") out.mime_type = r.mimeType;
        if (typeof r.text === "string") {
          const t = take(r.text);
          out.text = t.text;
          if (t.cut) out.omitted = true;
        } else if (typeof r.blob === "string") {
          Object.assign(out, data(r.blob));
        }
        content.push(out);
        break;
      }
      case "resource_link": {
        const out: JsonObject = {
          type: "resource_link",
          uri: block.uri,
          name: block.name,
        };
        if (block.description) out.description = block.description;
        if (block.mimeType) out.mime_type = block.mimeType;
        content.push(out);
        break;
      }
      default: {
        const t = take(JSON.stringify(block));
        content.push({ type: "text", text: t.text, omitted: true });
      }
    }
  }
  const payload: JsonObject = {
    text: texts.join("\n\n"),
    content,
    truncated,
  };
  if (isObject(result.structuredContent)) {
    payload.structured_content = result.structuredContent as JsonObject;
  }
  return payload;
}

/** The JSON-RPC error code of an `McpError`, if `err` is one. */
function mcpCode(err: unknown): number | undefined {
  return err instanceof McpError
    ? (err as unknown as { code: number }).code
    : undefined;
}

function isDenied(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    if (
      e instanceof Deno.errors.NotCapable ||
      e instanceof Deno.errors.PermissionDenied
    ) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return /Requires (net|run) access/.test(String(err));
}

/** The bridge. */
export class McpBridge {
  readonly #options: BridgeOptions;
  #conn?: Connection;
  #connecting?: Promise<Connection>;
  #tools = new Map<string, ExposedTool>();
  #serverName = "";
  #closed = false;
  #restarts = 0;
  /** Called after the tool list changed (list_changed or a restart). */
  onToolsChanged?: (tools: readonly ExposedTool[]) => void;

  /**
   * Creates a bridge; nothing connects before {@linkcode start}.
   *
   * @param options The settings.
   */
  constructor(options: BridgeOptions) {
    this.#options = options;
  }

  /** The exposed tools, as last listed. */
  get tools(): readonly ExposedTool[] {
    return [...this.#tools.values()];
  }

  /** How many times the connection was re-established after being lost. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The server's process id (stdio), while connected. */
  get pid(): number | undefined {
    const t = this.#conn?.transport;
    return t instanceof ProcessTransport ? t.pid : undefined;
  }

  /** Where the server is, for messages. */
  get where(): string {
    const s = this.#options.server;
    return s.kind === "stdio"
      ? `the MCP server "${[s.stdio.command, ...s.stdio.args].join(" ")}"`
      : `the MCP server at ${s.url.href}`;
  }

  /**
   * Connects and lists the tools; checks the allow-list against them.
   *
   * @throws {BridgeFailure} If the server cannot be reached or started,
   * or names in the allow-list are not among its tools.
   */
  async start(): Promise<void> {
    await this.#live();
    const allow = this.#options.allow;
    if (allow) {
      const offered = new Set([...this.#tools.values()].map((t) => t.mcpName));
      const missing = allow.filter((n) => !offered.has(n));
      if (missing.length > 0) {
        throw new BridgeFailure(
          "invalid_arguments",
          `"tools" names ${
            missing.map((n) => JSON.stringify(n)).join(", ")
          }, which ${this.where} does not offer (it offers ${
            [...this.#allListed].join(", ") || "no tools"
          })`,
        );
      }
    }
  }

  #allListed = new Set<string>();

  /** Closes the connection (and stops a stdio server). */
  async close(): Promise<void> {
    this.#closed = true;
    const conn = this.#conn ?? await this.#connecting?.catch(() => undefined);
    this.#conn = undefined;
    if (conn) await this.#drop(conn);
  }

  async #drop(conn: Connection): Promise<void> {
    conn.alive = false;
    await conn.client.close().catch(() => {});
    await conn.transport.close().catch(() => {});
  }

  /** A live connection: the current one, or a new one. */
  #live(): Promise<Connection> {
    if (this.#closed) {
      return Promise.reject(
        new BridgeFailure("execution_failed", "The MCP bridge is closed"),
      );
    }
    if (this.#conn?.alive) return Promise.resolve(this.#conn);
    const lost = this.#conn !== undefined;
    if (this.#conn) {
      void this.#drop(this.#conn);
      this.#conn = undefined;
    }
    this.#connecting ??= this.#connect().then((conn) => {
      this.#conn = conn;
      if (lost) this.#restarts++;
      return conn;
    }).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  #transport(): Transport {
    const s = this.#options.server;
    if (s.kind === "stdio") return new ProcessTransport(s.stdio);
    return new StreamableHTTPClientTransport(s.url, {
      requestInit: { headers: s.headers },
    });
  }

  async #connect(): Promise<Connection> {
    const transport = this.#transport();
    const client = new Client(
      { name: "ph-agent-mcp-bridge", version: this.#options.version },
      { capabilities: {} },
    );
    const conn: Connection = { client, transport, alive: true };
    client.onclose = () => {
      conn.alive = false;
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#refresh(conn).catch((err) =>
        this.#options.warn?.("cannot re-list the tools after list_changed", {
          message: (err as Error).message,
        })
      );
    });
    const timeout = this.#options.connectTimeoutMs;
    try {
      await client.connect(transport, { timeout });
      this.#serverName = client.getServerVersion()?.name ?? "";
      await this.#refresh(conn);
      return conn;
    } catch (err) {
      await this.#drop(conn);
      throw this.#connectFailure(err, transport);
    }
  }

  #connectFailure(err: unknown, transport: Transport): BridgeFailure {
    const s = this.#options.server;
    const stderr = transport instanceof ProcessTransport
      ? transport.stderrTail.trim()
      : "";
    const exit = transport instanceof ProcessTransport
      ? transport.exit
      : undefined;
    const details: JsonObject = {};
    if (stderr) details.stderr = stderr;
    if (exit) details.exit_code = exit.code;
    if (isDenied(err)) {
      const what = s.kind === "stdio"
        ? `running "${s.stdio.command}" is not granted: the operator grants it with allow_run in the mcp provider block`
        : `network access to "${s.url.host}" is not granted: the operator grants it with allow_net in the mcp provider block`;
      return new BridgeFailure(
        "permission_denied",
        `Cannot start ${this.where}: ${what}`,
        { details: { ...details, reason: String((err as Error).message) } },
      );
    }
    if (err instanceof Deno.errors.NotFound && s.kind === "stdio") {
      return new BridgeFailure(
        "execution_failed",
        `Cannot start ${this.where}: "${s.stdio.command}" was not found (or the cwd "${s.stdio.cwd}" does not exist)`,
        { retryable: false, details },
      );
    }
    const timedOut = mcpCode(err) === ErrorCode.RequestTimeout;
    const cause = timedOut
      ? `it did not answer within ${this.#options.connectTimeoutMs} ms`
      : exit
      ? `it exited with code ${exit.code}${
        exit.signal ? ` (${exit.signal})` : ""
      } before it was ready`
      : (err as Error).message;
    return new BridgeFailure(
      timedOut ? "timeout" : "execution_failed",
      `Cannot connect to ${this.where}: ${cause}${
        stderr ? `. Its stderr ends with: ${stderr.slice(-600)}` : ""
      }${sandboxHint(stderr)}`,
      { retryable: true, details },
    );
  }

  /** Lists every tool (all pages) and rebuilds the exposed set. */
  async #refresh(conn: Connection): Promise<void> {
    const listed: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await conn.client.listTools(
        cursor ? { cursor } : {},
        { timeout: this.#options.connectTimeoutMs },
      );
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const before = JSON.stringify(
      this.tools.map((t) => t.schema),
      (_, v) => typeof v === "bigint" ? String(v) : v,
    );
    this.#allListed = new Set(listed.map((t) => t.name));
    const next = new Map<string, ExposedTool>();
    const allow = this.#options.allow;
    for (const tool of listed) {
      if (allow && !allow.includes(tool.name)) continue;
      const name = exposedName(this.#options.prefix, tool.name);
      if (!name) {
        this.#options.warn?.(
          "skipping an MCP tool whose name cannot be exposed",
          {
            tool: tool.name,
            reason: "longer than 64 characters with the prefix",
          },
        );
        continue;
      }
      if (next.has(name)) {
        this.#options.warn?.(
          "skipping an MCP tool whose exposed name repeats another's",
          {
            tool: tool.name,
            name,
          },
        );
        continue;
      }
      next.set(name, this.#expose(name, tool));
    }
    this.#tools = next;
    const after = JSON.stringify(
      this.tools.map((t) => t.schema),
      (_, v) => typeof v === "bigint" ? String(v) : v,
    );
    if (before !== after) this.onToolsChanged?.(this.tools);
  }

  #expose(name: string, tool: Tool): ExposedTool {
    const { kind, risk, idempotent } = classify(
      tool.annotations,
      this.#options.trustAnnotations,
    );
    const translation = translateInputSchema(tool.inputSchema);
    const from = this.#serverName ? ` [MCP server ${this.#serverName}]` : "";
    const description = (tool.description?.trim() ||
      tool.annotations?.title || tool.title || `The MCP tool ${tool.name}.`) +
      from;
    const schema: ToolSchemaInit = {
      name,
      kind,
      risk,
      description,
      inputSchema: translation.schema,
      outputSchema: OUTPUT_SCHEMA,
      streaming: false,
      concurrency: kind === ToolKind.DATA_SOURCE
        ? { safe: true, keyFields: [] }
        : { safe: false, keyFields: [] },
      defaultTimeout: {
        seconds: BigInt(Math.ceil(this.#options.callTimeoutMs / 1000)),
      },
      idempotent,
    };
    return {
      name,
      mcpName: tool.name,
      schema,
      ...(translation.encoded ? { encoded: translation.encoded } : {}),
    };
  }

  /**
   * Calls a tool.
   *
   * @param name The exposed name.
   * @param args The arguments (already parsed).
   * @param signal Cancellation from the kernel.
   * @returns The result payload.
   * @throws {BridgeFailure} Every failure, classified.
   */
  async call(
    name: string,
    args: JsonObject,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    let tool = this.#tools.get(name);
    let conn: Connection;
    try {
      conn = await this.#live();
    } catch (err) {
      if (err instanceof BridgeFailure) {
        throw new BridgeFailure(
          err.kind,
          `${this.where} is unavailable: ${err.message}`,
          { retryable: err.retryable, details: err.details },
        );
      }
      throw err;
    }
    // A restart may have changed the list.
    tool = this.#tools.get(name);
    if (!tool) {
      throw new BridgeFailure(
        "not_found",
        `${this.where} has no tool ${JSON.stringify(name)} (now: ${
          this.tools.map((t) => t.name).join(", ") || "none"
        })`,
      );
    }
    const forwarded = decodeArguments(args, tool.encoded) as Record<
      string,
      JsonValue
    >;
    let result: CallToolResult;
    try {
      result = await conn.client.callTool(
        { name: tool.mcpName, arguments: forwarded },
        undefined,
        { signal, timeout: this.#options.callTimeoutMs },
      ) as CallToolResult;
    } catch (err) {
      throw await this.#callFailure(err, conn, tool, signal);
    }
    if (result.isError) {
      const payload = mapResult(result, this.#options.maxResultChars);
      const text = String(payload.text || "").slice(0, 2000);
      throw new BridgeFailure(
        "execution_failed",
        text || `${tool.mcpName} reported an error without a message`,
        { details: { content: payload.content ?? [] } },
      );
    }
    return mapResult(result, this.#options.maxResultChars);
  }

  async #callFailure(
    err: unknown,
    conn: Connection,
    tool: ExposedTool,
    signal: AbortSignal,
  ): Promise<BridgeFailure> {
    if (signal.aborted) {
      // MCP cancellation is advisory: a mutating tool may have done part
      // of its work (§6.2 MUST 16: say so, never claim success).
      const partial = tool.schema.kind === ToolKind.RESOURCE
        ? "; the MCP server was asked to stop, but may already have applied part of it"
        : "";
      return new BridgeFailure(
        "cancelled",
        `${tool.mcpName} was cancelled${partial}`,
      );
    }
    const transport = conn.transport;
    const stderr = transport instanceof ProcessTransport
      ? transport.stderrTail.trim().slice(-600)
      : "";
    if (mcpCode(err) === ErrorCode.RequestTimeout) {
      // Slow, or hung? A hung server does not answer a ping either; it is
      // stopped so that the next call starts a fresh one.
      let hung = false;
      try {
        await conn.client.ping({ timeout: PING_TIMEOUT_MS });
      } catch {
        hung = true;
        this.#options.warn?.("stopping an MCP server that stopped answering", {
          server: this.where,
        });
        if (this.#conn === conn) this.#conn = undefined;
        await this.#drop(conn);
      }
      return new BridgeFailure(
        "timeout",
        `${tool.mcpName} did not answer within ${this.#options.callTimeoutMs} ms${
          hung
            ? `, and ${this.where} did not answer a ping either: it was stopped and is started again on the next call`
            : ""
        }`,
        { retryable: true, details: { hung } },
      );
    }
    if (
      !conn.alive ||
      (mcpCode(err) === ErrorCode.ConnectionClosed)
    ) {
      const exit = transport instanceof ProcessTransport
        ? transport.exit
        : undefined;
      const how = exit
        ? `exited with code ${exit.code}${
          exit.signal ? ` (${exit.signal})` : ""
        }`
        : "closed the connection";
      const details: JsonObject = { server_exited: true };
      if (exit) details.exit_code = exit.code;
      if (stderr) details.stderr = stderr;
      return new BridgeFailure(
        "execution_failed",
        `${this.where} ${how} during ${tool.mcpName}; it is started again on the next call${
          stderr ? `. Its stderr ends with: ${stderr}` : ""
        }`,
        { retryable: true, details },
      );
    }
    if (isDenied(err)) {
      return new BridgeFailure(
        "permission_denied",
        `${this.where} cannot be reached: ${(err as Error).message}`,
      );
    }
    if (mcpCode(err) === undefined) {
      // Not an answer from the server: the transport failed (a refused or
      // reset HTTP connection, an expired session). The connection is
      // dropped so that the next call connects afresh.
      if (this.#conn === conn) this.#conn = undefined;
      await this.#drop(conn);
      return new BridgeFailure(
        "execution_failed",
        `${this.where} could not be reached during ${tool.mcpName} (${
          (err as Error).message
        }); it is connected again on the next call`,
        { retryable: true, details: { connection_lost: true } },
      );
    }
    if (mcpCode(err) === ErrorCode.InvalidParams) {
      return new BridgeFailure(
        "invalid_arguments",
        `${tool.mcpName} refused its arguments: ${(err as Error).message}`,
      );
    }
    if (mcpCode(err) === ErrorCode.MethodNotFound) {
      return new BridgeFailure(
        "not_found",
        `${tool.mcpName}: ${(err as Error).message}`,
      );
    }
    return new BridgeFailure(
      "execution_failed",
      `${tool.mcpName} failed: ${(err as Error).message}`,
    );
  }
}
