/**
 * The event bus (kernel.md §4): in-process, non-durable pub/sub for
 * near-real-time plugin-to-plugin reaction and for the live mirror of the
 * durable log on `kernel.event.<kind>`.
 *
 * - **Namespaces.** {@linkcode EventBus.publishPlugin} builds
 *   `plugin.{category}.{name}.{event_type}` from the publisher's
 *   server-derived identity, so a plugin can neither impersonate another nor
 *   reach `kernel.*`; {@linkcode EventBus.publishKernel} is the kernel's own
 *   path and accepts `kernel.*` topics only.
 * - **Delivery.** Best-effort and fan-out to the subscriptions that exist at
 *   publish time; no backlog, no replay. Each subscription sees its matches
 *   in publish order (per-subscriber FIFO); nothing orders one subscription
 *   against another. `BusEvent.sequence` is the persisted sequence on
 *   `kernel.event.*` and 0 on plugin publishes, so a consumer merging the
 *   bus with a `ReadEvents` backfill orders by sequence, never by time.
 * - **Backpressure.** Each {@linkcode Subscription} holds at most `bound`
 *   undelivered events (default {@linkcode DEFAULT_SUBSCRIBE_QUEUE_BOUND},
 *   the `settings.event_bus.subscribe_queue_bound` setting). One more closes
 *   that subscription alone with {@linkcode SubscriberOverflowError}
 *   (`RESOURCE_EXHAUSTED`), discards its queue, logs a warning and counts
 *   it in {@linkcode BusStats.overflowDisconnects}. Publishing never blocks
 *   and never fails because of a subscriber: a throwing
 *   {@linkcode EventBus.listen} handler is logged and skipped. A session
 *   store republishes a whole group commit at once (at most its
 *   `maxBatchSize`, 512 by default) and yields to the event loop between
 *   batches, so keep the bound above the batch size.
 *
 * Subscriptions are async iterables, which the callback service bridges to
 * `Subscribe` server streams.
 *
 * @example Subscribe, publish, receive
 * ```ts
 * import { EventBus } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const bus = new EventBus();
 * const sub = bus.subscribe(["plugin.tool.github.*"]);
 * bus.publishPlugin({ category: "tool", name: "github" }, {
 *   eventType: "pr_opened",
 *   payload: new Uint8Array([1]),
 *   payloadType: "application/octet-stream",
 *   schemaVersion: "1",
 * });
 * const { value } = await sub.next();
 * assert.equal(value?.topic, "plugin.tool.github.pr_opened");
 * assert.equal(value?.sequence, 0n);
 * sub.close();
 * ```
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { getLogger } from "@logtape/logtape";
import {
  type BusEvent,
  BusEventSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import {
  InvalidPublishError,
  InvalidTopicError,
  SubscriberOverflowError,
} from "./errors.ts";
import {
  filterMatches,
  pluginTopic,
  type TopicIdentity,
  validateFilter,
  validateTopic,
} from "./topic.ts";

const log = getLogger(["ph-agent", "kernel", "bus"]);

/** The default bound of undelivered events per subscription. */
export const DEFAULT_SUBSCRIBE_QUEUE_BOUND = 1024;

/** Options of {@linkcode EventBus}. */
export interface EventBusOptions {
  /**
   * The bound of each subscription that does not set its own; values ≤ 0
   * fall back to the default.
   * @default {1024}
   */
  readonly subscribeQueueBound?: number;
  /** The clock for `BusEvent.time` (receipt time). @default {() => new Date()} */
  readonly now?: () => Date;
}

/** Options of {@linkcode EventBus.subscribe}. */
export interface SubscribeOptions {
  /**
   * Most undelivered events before the subscription is closed with
   * {@linkcode SubscriberOverflowError}; `Infinity` for an in-process
   * consumer that must never be dropped.
   * @default {the bus's subscribeQueueBound}
   */
  readonly bound?: number;
  /** Aborting it closes the subscription normally. */
  readonly signal?: AbortSignal;
  /** A name for logs and errors, e.g. the subscribing plugin. */
  readonly label?: string;
  /**
   * Decides, per matching event, whether this subscription receives it;
   * `sessionId` is the session a `kernel.*` publication belongs to
   * (`undefined` for plugin publishes). The callback service uses it to
   * scope a plugin's `kernel.*` subscriptions to its sessions.
   * @default {every matching event}
   */
  readonly accept?: (event: BusEvent, sessionId: string | undefined) => boolean;
}

/** What the kernel publishes on a `kernel.*` topic. */
export interface KernelPublication {
  /** The payload bytes. */
  readonly payload: Uint8Array;
  /** The payload's message name or media type. */
  readonly payloadType: string;
  /** The payload's schema version. */
  readonly schemaVersion: string;
  /** The persisted sequence, for `kernel.event.*`. @default {0n} */
  readonly sequence?: bigint;
  /**
   * The session the event belongs to. Not on the wire: it decides which
   * session-scoped subscriptions receive the event.
   */
  readonly sessionId?: string;
}

/** A plugin's `Publish` request (its topic is built from its identity). */
export interface PluginPublication {
  /** The one caller-supplied topic segment, `[a-z0-9_]+`. */
  readonly eventType: string;
  /** The payload bytes (may be empty). */
  readonly payload: Uint8Array;
  /** The payload's message name (preferred) or media type; required. */
  readonly payloadType: string;
  /** The payload's schema version; required. */
  readonly schemaVersion: string;
}

/** Counters of one bus. */
export interface BusStats {
  /** Events published (each counted once, whatever its fan-out). */
  published: number;
  /** Subscriptions closed because they overflowed their bound. */
  overflowDisconnects: number;
  /** Listener calls that threw. */
  listenerErrors: number;
}

type Waiter = {
  resolve: (r: IteratorResult<BusEvent>) => void;
  reject: (e: unknown) => void;
};

/**
 * One subscriber's bounded FIFO, consumed as an async iterator. Breaking out
 * of `for await` closes it.
 */
export class Subscription implements AsyncIterableIterator<BusEvent> {
  /** The filters it was created with. */
  readonly filters: readonly string[];
  /** Its bound of undelivered events. */
  readonly bound: number;
  /** Its label. */
  readonly label: string;
  readonly #accept:
    | ((event: BusEvent, sessionId: string | undefined) => boolean)
    | undefined;
  #queue: BusEvent[] = [];
  #head = 0;
  #waiters: Waiter[] = [];
  #closed = false;
  #error: Error | undefined;
  #onClose: (s: Subscription) => void;

  /**
   * Created by {@linkcode EventBus.subscribe}.
   *
   * @param filters Validated filters.
   * @param bound The bound.
   * @param label The label.
   * @param onClose Called once when it closes.
   * @param accept Decides per event whether it is delivered.
   */
  constructor(
    filters: readonly string[],
    bound: number,
    label: string,
    onClose: (s: Subscription) => void,
    accept?: (event: BusEvent, sessionId: string | undefined) => boolean,
  ) {
    this.filters = filters;
    this.bound = bound;
    this.label = label;
    this.#onClose = onClose;
    this.#accept = accept;
  }

  /** Whether it is closed (by the consumer, a signal or an overflow). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Why the bus closed it, when it was an overflow. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Events waiting to be delivered. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Whether a topic matches one of the filters.
   *
   * @param topic The topic.
   * @returns `true` on a match.
   */
  matches(topic: string): boolean {
    for (const f of this.filters) if (filterMatches(f, topic)) return true;
    return false;
  }

  /**
   * Whether an event is for this subscription: a filter matches its topic
   * and the subscription's `accept` (if any) takes it.
   *
   * @param event The event.
   * @param sessionId The session a kernel publication belongs to.
   * @returns `true` when it should be delivered.
   */
  wants(event: BusEvent, sessionId: string | undefined): boolean {
    if (!this.matches(event.topic)) return false;
    if (this.#accept === undefined) return true;
    try {
      return this.#accept(event, sessionId);
    } catch (error) {
      log.warn("A subscription filter of {label} threw: {error}", {
        label: this.label || "(unnamed)",
        error,
      });
      return false;
    }
  }

  /**
   * Queues an event (called by the bus). Overflowing the bound closes the
   * subscription with {@linkcode SubscriberOverflowError}.
   *
   * @param event The event.
   * @returns `false` when this delivery overflowed the bound.
   */
  deliver(event: BusEvent): boolean {
    if (this.#closed) return true;
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter.resolve({ value: event, done: false });
      return true;
    }
    if (this.pending >= this.bound) {
      this.#fail(new SubscriberOverflowError(this.bound, this.label));
      return false;
    }
    this.#queue.push(event);
    return true;
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#error = error;
    this.#queue = [];
    this.#head = 0;
    this.#closed = true;
    this.#onClose(this);
    const waiters = this.#waiters.splice(0);
    for (const w of waiters) w.reject(error);
  }

  /** Closes it normally; pending events are discarded. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
    this.#onClose(this);
    const waiters = this.#waiters.splice(0);
    for (const w of waiters) w.resolve({ value: undefined, done: true });
  }

  /**
   * The next event, in publish order. Rejects once with the overflow error
   * when the bus closed the subscription, then reports done.
   *
   * @returns The next event or done.
   */
  next(): Promise<IteratorResult<BusEvent>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head];
      this.#queue[this.#head++] = undefined as unknown as BusEvent;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#closed) {
      const error = this.#error;
      if (error) {
        this.#error = undefined;
        return Promise.reject(error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
    });
  }

  /**
   * Closes it (the end of a `for await` loop).
   *
   * @returns Done.
   */
  return(): Promise<IteratorResult<BusEvent>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /**
   * Itself.
   *
   * @returns This subscription.
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<BusEvent> {
    return this;
  }
}

interface Listener {
  filters: readonly string[];
  handler: (event: BusEvent, sessionId: string | undefined) => void;
}

/**
 * The in-process bus. The kernel holds one and passes it to its session
 * store, which republishes committed events on it.
 */
export class EventBus {
  /** Counters (for the slow-consumer metric). */
  readonly stats: BusStats = {
    published: 0,
    overflowDisconnects: 0,
    listenerErrors: 0,
  };
  readonly #bound: number;
  readonly #now: () => Date;
  #subs = new Set<Subscription>();
  #listeners = new Set<Listener>();

  /**
   * Creates a bus.
   *
   * @param options The default bound and the clock.
   */
  constructor(options: EventBusOptions = {}) {
    const b = options.subscribeQueueBound;
    this.#bound = b !== undefined && b > 0 ? b : DEFAULT_SUBSCRIBE_QUEUE_BOUND;
    this.#now = options.now ?? (() => new Date());
  }

  /** The number of open subscriptions. */
  get subscriberCount(): number {
    return this.#subs.size;
  }

  /**
   * Opens a subscription. Only events published after this call reach it.
   *
   * @param filters One or more filters (exact topic, `*`, or `prefix.*`).
   * @param options Bound, abort signal and label.
   * @returns The subscription.
   * @throws {InvalidTopicFilterError} For a filter outside the grammar.
   * @throws {TypeError} For an empty filter list.
   */
  subscribe(
    filters: readonly string[],
    options: SubscribeOptions = {},
  ): Subscription {
    if (filters.length === 0) {
      throw new TypeError("Cannot subscribe: no topic filters were given");
    }
    for (const f of filters) validateFilter(f);
    const bound = options.bound !== undefined && options.bound > 0
      ? options.bound
      : this.#bound;
    const label = options.label ?? "";
    const sub = new Subscription(
      Object.freeze([...filters]),
      bound,
      label,
      (s) => this.#subs.delete(s),
      options.accept,
    );
    if (options.signal?.aborted) {
      sub.close();
      return sub;
    }
    this.#subs.add(sub);
    options.signal?.addEventListener("abort", () => sub.close(), {
      once: true,
    });
    log.info("Subscribed {label} to {filters} (bound {bound})", {
      label: label || "(unnamed)",
      filters: [...filters],
      bound,
    });
    return sub;
  }

  /**
   * Registers an in-process handler called synchronously for each matching
   * event. A throwing handler is logged and never fails the publisher; keep
   * handlers fast (they run inside the publish).
   *
   * @param filters One or more filters.
   * @param handler The handler; `sessionId` is the session a `kernel.*`
   *   publication belongs to (`undefined` for plugin publishes).
   * @returns A function that removes the handler.
   * @throws {InvalidTopicFilterError} For a filter outside the grammar.
   */
  listen(
    filters: readonly string[],
    handler: (event: BusEvent, sessionId: string | undefined) => void,
  ): () => void {
    if (filters.length === 0) {
      throw new TypeError("Cannot listen: no topic filters were given");
    }
    for (const f of filters) validateFilter(f);
    const l: Listener = { filters: [...filters], handler };
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  /**
   * Publishes on a `kernel.*` topic (the kernel's own path).
   *
   * @param topic A `kernel.*` topic, e.g. `kernel.event.tool_call`.
   * @param publication Payload, type, schema version and sequence.
   * @returns The number of subscriptions and listeners it reached.
   * @throws {InvalidTopicError} For a topic outside `kernel.*` or the grammar.
   */
  publishKernel(topic: string, publication: KernelPublication): number {
    if (!topic.startsWith("kernel.")) {
      throw new InvalidTopicError(
        topic,
        "the kernel path publishes kernel.* topics only",
      );
    }
    validateTopic(topic);
    return this.#fanOut(
      create(BusEventSchema, {
        topic,
        payload: publication.payload,
        payloadType: publication.payloadType,
        schemaVersion: publication.schemaVersion,
        time: timestampFromDate(this.#now()),
        sequence: publication.sequence ?? 0n,
      }),
      publication.sessionId,
    );
  }

  /**
   * Publishes a plugin's event on `plugin.{category}.{name}.{event_type}`,
   * the topic built from the identity of the connection it arrived on.
   *
   * @param identity The publisher's server-derived identity.
   * @param publication The request fields.
   * @returns The topic it was published on.
   * @throws {InvalidPublishError} For a bad `eventType`, or an empty
   *   `payloadType` or `schemaVersion`.
   */
  publishPlugin(
    identity: TopicIdentity,
    publication: PluginPublication,
  ): string {
    const topic = pluginTopic(identity, publication.eventType);
    if (!publication.payloadType) {
      throw new InvalidPublishError("payload_type is required");
    }
    if (!publication.schemaVersion) {
      throw new InvalidPublishError("schema_version is required");
    }
    this.#fanOut(
      create(BusEventSchema, {
        topic,
        payload: publication.payload,
        payloadType: publication.payloadType,
        schemaVersion: publication.schemaVersion,
        time: timestampFromDate(this.#now()),
        sequence: 0n,
      }),
    );
    return topic;
  }

  /**
   * Delivers an event another kernel published (received through a shared
   * state backend) to this bus's subscribers and listeners, topic and
   * fields as they were; the receipt time is this bus's.
   *
   * @param event The event as the other kernel's bus delivered it.
   * @param sessionId The session a `kernel.*` event belongs to.
   * @returns The number of subscriptions and listeners it reached.
   * @throws {InvalidTopicError} For a topic outside the grammar.
   */
  publishRemote(event: BusEvent, sessionId?: string): number {
    validateTopic(event.topic);
    return this.#fanOut(
      create(BusEventSchema, {
        topic: event.topic,
        payload: event.payload,
        payloadType: event.payloadType,
        schemaVersion: event.schemaVersion,
        time: timestampFromDate(this.#now()),
        sequence: event.sequence,
      }),
      sessionId,
    );
  }

  #fanOut(event: BusEvent, sessionId?: string): number {
    this.stats.published++;
    let reached = 0;
    for (const sub of this.#subs) {
      if (!sub.wants(event, sessionId)) continue;
      reached++;
      if (!sub.deliver(event)) {
        this.stats.overflowDisconnects++;
        log.warn(
          "Closed slow subscription {label}: more than {bound} undelivered events (RESOURCE_EXHAUSTED)",
          { label: sub.label || "(unnamed)", bound: sub.bound },
        );
      }
    }
    for (const l of this.#listeners) {
      if (!l.filters.some((f) => filterMatches(f, event.topic))) continue;
      reached++;
      try {
        l.handler(event, sessionId);
      } catch (error) {
        this.stats.listenerErrors++;
        log.warn("A bus listener threw on {topic}: {error}", {
          topic: event.topic,
          error,
        });
      }
    }
    return reached;
  }

  /** Closes every subscription and removes every listener. */
  close(): void {
    for (const s of [...this.#subs]) s.close();
    this.#listeners.clear();
  }
}
