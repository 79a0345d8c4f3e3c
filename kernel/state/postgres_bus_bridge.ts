/**
 * The cross-kernel half of the event bus on the PostgreSQL backend: the
 * events of `kernel.event.*`, `kernel.state`, `kernel.metadata`,
 * `kernel.approval.*` (decisions across kernels) and `plugin.*` published on this kernel's bus are sent with `NOTIFY` on the
 * channel `agent_bus_<schema>`, and what other kernels send there is
 * delivered to this bus's subscribers with
 * {@linkcode EventBus.publishRemote}. A kernel never delivers its own
 * notifications back (each carries its sender's random id).
 *
 * A notification is JSON; when it would pass NOTIFY's 8000-byte limit the
 * event is stored in `bus_payloads` and the notification carries its row
 * id (payload by reference; rows older than five minutes are deleted as
 * new ones are written). Notifications are sent one at a time, each
 * after the previous one committed, so other kernels receive them in
 * publish order (PostgreSQL delivers notifications in commit order); one
 * that failed because its connection closed (a restart,
 * `pg_terminate_backend`) is sent once more, on another connection. They
 * go through the pool rather than one reserved connection: npm:postgres
 * 3.4.9 crashes the process on the next query of a reserved connection
 * that closed, and can lose a reservation asked for while another
 * connection closes (kernel/state/_postgres_guard.ts). `LISTEN` runs on its own
 * connection, which the client re-establishes after a drop (events sent
 * meanwhile are not replayed: the log has them, by sequence).
 *
 * With the store's commits notifying ({@linkcode
 * PostgresBusBridge.eventsFromCommits}, what
 * `PostgresSessionStore.startBusBridge` sets up), `kernel.event.*` events
 * are not sent from here: each commit sends its events' notifications in
 * its own transaction (no round trip after the commit, delivered at the
 * commit in commit order, none for a batch rolled back), a large payload
 * by reference to its `events` row.
 *
 * @module
 */
import type { Sql } from "postgres";
import { create } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import {
  type BusEvent,
  BusEventSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import type { EventBus } from "../bus/event_bus.ts";
import { isConnectionError } from "./_postgres_guard.ts";

const log = getLogger(["ph-agent", "kernel", "state", "postgres", "bus"]);

/** The topics that cross kernels. */
export const BRIDGED_TOPICS: readonly string[] = Object.freeze([
  "kernel.event.*",
  "kernel.state",
  "kernel.metadata",
  "kernel.approval.*",
  "plugin.*",
]);

/** Largest notification payload sent inline (PostgreSQL's limit is 8000). */
export const NOTIFY_INLINE_LIMIT = 7900;

interface Wire {
  /** Sender. */
  o: string;
  /** Topic. */
  t?: string;
  /** Payload, base64. */
  p?: string;
  /** Payload type. */
  y?: string;
  /** Schema version. */
  v?: string;
  /** Sequence (decimal). */
  s?: string;
  /** Session id. */
  i?: string;
  /** The bus_payloads row holding the rest (by reference). */
  r?: string;
  /** The payload is the `events` row (session `i`, sequence `s`). */
  e?: 1;
}

/** A committed event, as {@linkcode CommitNotifier.text} takes it. */
export interface CommittedEvent {
  /** The bus topic, `kernel.event.<kind>`. */
  readonly topic: string;
  /** The payload bytes. */
  readonly payload: Uint8Array;
  /** The payload's message name. */
  readonly payloadType: string;
  /** The payload's schema version. */
  readonly schemaVersion: string;
  /** The event's sequence. */
  readonly sequence: number;
  /** Its session. */
  readonly sessionId: string;
}

/** How a store's commit notifies the other kernels of its events. */
export interface CommitNotifier {
  /** The channel to `pg_notify` on. */
  readonly channel: string;
  /**
   * The notification of one committed event.
   *
   * @param event The event.
   * @returns The notification's text (under NOTIFY's limit).
   */
  text(event: CommittedEvent): string;
}

function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Options of {@linkcode PostgresBusBridge.start}. */
export interface PostgresBusBridgeOptions {
  /**
   * The schema (names the channel and holds `bus_payloads`).
   * @default {"agent"}
   */
  readonly schema?: string;
  /**
   * The topics sent to other kernels.
   * @default {BRIDGED_TOPICS}
   */
  readonly topics?: readonly string[];
}

/**
 * Connects a kernel's bus to the other kernels' on the same database.
 *
 * @example Two buses, one database (needs a running PostgreSQL)
 * ```ts ignore
 * import { EventBus, PostgresBusBridge, PostgresSessionStore } from "@ph/agent/kernel";
 *
 * const bus = new EventBus();
 * const store = new PostgresSessionStore({ url: Deno.env.get("AGENT_DATABASE_URL")!, bus });
 * const bridge = await PostgresBusBridge.start(bus, await store.sql());
 * // … events emitted by other kernels now reach bus.subscribe(["kernel.event.*"])
 * await bridge.close();
 * await store.close();
 * ```
 */
export class PostgresBusBridge {
  /** This kernel's id on the channel. */
  readonly origin: string = crypto.randomUUID();
  /** Notifications sent and received (for tests and metrics). */
  readonly stats: { sent: number; received: number; byReference: number } = {
    sent: 0,
    received: 0,
    byReference: 0,
  };
  readonly #bus: EventBus;
  readonly #sql: Sql;
  readonly #channel: string;
  #unlisten: (() => Promise<void>) | undefined;
  #stopLocal: (() => void) | undefined;
  #chain: Promise<void> = Promise.resolve();
  #received: Promise<void> = Promise.resolve();
  #injecting = false;
  #closed = false;
  #eventsFromCommits = false;
  #sinceCleanup = 0;

  private constructor(bus: EventBus, sql: Sql, channel: string) {
    this.#bus = bus;
    this.#sql = sql;
    this.#channel = channel;
  }

  /**
   * Starts listening, then forwarding; resolves once `LISTEN` is in place.
   *
   * @param bus This kernel's bus.
   * @param sql The store's pool ({@linkcode PostgresSessionStore.sql}).
   * @param options The schema and topics.
   * @returns The running bridge.
   */
  static async start(
    bus: EventBus,
    sql: Sql,
    options: PostgresBusBridgeOptions = {},
  ): Promise<PostgresBusBridge> {
    const schema = options.schema ?? "agent";
    const bridge = new PostgresBusBridge(bus, sql, `agent_bus_${schema}`);
    const { unlisten } = await sql.listen(
      bridge.#channel,
      (payload) => {
        // In arrival order, even when one is fetched by reference.
        bridge.#received = bridge.#received.then(() =>
          bridge.#receive(payload)
        );
      },
    );
    bridge.#unlisten = unlisten;
    bridge.#stopLocal = bus.listen(
      options.topics ?? BRIDGED_TOPICS,
      (event, sessionId) => {
        if (bridge.#injecting) return;
        if (
          bridge.#eventsFromCommits && event.topic.startsWith("kernel.event.")
        ) return;
        bridge.#send(event, sessionId);
      },
    );
    return bridge;
  }

  #send(event: BusEvent, sessionId: string | undefined): void {
    const wire: Wire = {
      o: this.origin,
      t: event.topic,
      p: toBase64(event.payload),
      y: event.payloadType,
      v: event.schemaVersion,
      ...(event.sequence !== 0n ? { s: String(event.sequence) } : {}),
      ...(sessionId !== undefined ? { i: sessionId } : {}),
    };
    const text = JSON.stringify(wire);
    // In publish order: each once the previous one committed.
    this.#chain = this.#chain.then(async () => {
      for (let attempt = 1;; attempt++) {
        if (this.#closed) return;
        try {
          await this.#notify(text);
          this.stats.sent++;
          return;
        } catch (error) {
          // Its connection closed: once more, on another one.
          if (attempt === 1 && isConnectionError(error)) continue;
          log.warn(
            "Cannot send {topic} to the other kernels: {error}",
            {
              topic: event.topic,
              error: error instanceof Error ? error.message : String(error),
            },
          );
          return;
        }
      }
    });
  }

  async #notify(text: string): Promise<void> {
    const sql = this.#sql;
    let body = text;
    if (new TextEncoder().encode(text).length > NOTIFY_INLINE_LIMIT) {
      const [row] = await sql`INSERT INTO bus_payloads (body)
        VALUES (${new TextEncoder().encode(text)}) RETURNING id`;
      body = JSON.stringify({ o: this.origin, r: String(row.id) });
      this.stats.byReference++;
      if (++this.#sinceCleanup >= 100) {
        this.#sinceCleanup = 0;
        await sql`DELETE FROM bus_payloads
          WHERE created_at < now() - interval '5 minutes'`;
      }
    }
    await sql`SELECT pg_notify(${this.#channel}, ${body})`;
  }

  async #receive(text: string): Promise<void> {
    let wire: Wire;
    try {
      wire = JSON.parse(text);
      if (wire.o === this.origin) return;
      if (wire.r !== undefined) {
        const [row] = await this.#sql`SELECT body FROM bus_payloads
          WHERE id = ${wire.r}`;
        if (!row) {
          log.warn("A bus payload by reference ({id}) is gone", {
            id: wire.r,
          });
          return;
        }
        wire = JSON.parse(new TextDecoder().decode(row.body as Uint8Array));
      } else if (wire.e === 1) {
        const [row] = await this.#sql`SELECT payload FROM events
          WHERE session_id = ${wire.i ?? ""} AND sequence = ${wire.s ?? "0"}`;
        if (!row) {
          log.warn("The event of a notification ({id} #{sequence}) is gone", {
            id: wire.i,
            sequence: wire.s,
          });
          return;
        }
        wire = { ...wire, p: toBase64(row.payload as Uint8Array) };
      }
    } catch (error) {
      log.warn("Ignored a malformed notification on {channel}: {error}", {
        channel: this.#channel,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    if (this.#closed || typeof wire.t !== "string") return;
    this.stats.received++;
    this.#injecting = true;
    try {
      this.#bus.publishRemote(
        create(BusEventSchema, {
          topic: wire.t,
          payload: fromBase64(wire.p ?? ""),
          payloadType: wire.y ?? "",
          schemaVersion: wire.v ?? "",
          sequence: BigInt(wire.s ?? "0"),
        }),
        wire.i,
      );
    } catch (error) {
      log.warn("Cannot deliver {topic} from another kernel: {error}", {
        topic: wire.t,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      this.#injecting = false;
    }
  }

  /**
   * Hands `kernel.event.*` to the store's commits: from now on this bridge
   * does not send them, and each commit sends the notifications the
   * returned notifier writes, in its own transaction.
   *
   * @returns The notifier for the store's commits.
   */
  eventsFromCommits(): CommitNotifier {
    this.#eventsFromCommits = true;
    const origin = this.origin;
    return {
      channel: this.#channel,
      text: (e) => {
        const inline = JSON.stringify(
          {
            o: origin,
            t: e.topic,
            p: toBase64(e.payload),
            y: e.payloadType,
            v: e.schemaVersion,
            s: String(e.sequence),
            i: e.sessionId,
          } satisfies Wire,
        );
        // JSON of base64 is ASCII: its length is its size in bytes.
        if (inline.length <= NOTIFY_INLINE_LIMIT) return inline;
        this.stats.byReference++;
        return JSON.stringify(
          {
            o: origin,
            t: e.topic,
            y: e.payloadType,
            v: e.schemaVersion,
            s: String(e.sequence),
            i: e.sessionId,
            e: 1,
          } satisfies Wire,
        );
      },
    };
  }

  /** Waits until every event published so far has been sent. */
  flush(): Promise<void> {
    return this.#chain;
  }

  /** Stops forwarding and listening (after sending what is queued). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#stopLocal?.();
    await this.#chain;
    this.#closed = true;
    await this.#unlisten?.().catch(() => {});
    await this.#received;
  }
}
