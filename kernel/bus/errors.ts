/**
 * Errors of the event bus. Each has a stable `code` and the gRPC status the
 * `Publish`/`Subscribe` bridge answers with.
 *
 * @module
 */

/** Stable codes of {@linkcode BusError}. */
export type BusErrorCode =
  | "bus_topic_invalid"
  | "bus_filter_invalid"
  | "bus_publish_invalid"
  | "bus_subscriber_overflow";

/** The gRPC status name a bus error maps to. */
export type BusGrpcStatus = "INVALID_ARGUMENT" | "RESOURCE_EXHAUSTED";

/** The base class of the bus errors. */
export class BusError extends Error {
  /** The stable reason. */
  readonly code: BusErrorCode;
  /** The gRPC status the bridge answers with. */
  readonly grpcStatus: BusGrpcStatus;
  /**
   * Creates the error.
   *
   * @param code The stable reason.
   * @param grpcStatus The gRPC status.
   * @param message The message.
   * @param options Standard error options.
   */
  constructor(
    code: BusErrorCode,
    grpcStatus: BusGrpcStatus,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "BusError";
    this.code = code;
    this.grpcStatus = grpcStatus;
  }
}

/** A topic that breaks the grammar, or a plugin path aiming at `kernel.*`. */
export class InvalidTopicError extends BusError {
  /** The topic. */
  readonly topic: string;
  /**
   * Creates the error.
   *
   * @param topic The topic.
   * @param detail What is wrong.
   * @param options Standard error options.
   */
  constructor(topic: string, detail: string, options?: ErrorOptions) {
    super(
      "bus_topic_invalid",
      "INVALID_ARGUMENT",
      `Cannot publish on topic "${topic}": ${detail}`,
      options,
    );
    this.name = "InvalidTopicError";
    this.topic = topic;
  }
}

/** A subscription filter outside the filter grammar. */
export class InvalidTopicFilterError extends BusError {
  /** The filter. */
  readonly filter: string;
  /**
   * Creates the error.
   *
   * @param filter The filter.
   * @param detail What is wrong.
   * @param options Standard error options.
   */
  constructor(filter: string, detail: string, options?: ErrorOptions) {
    super(
      "bus_filter_invalid",
      "INVALID_ARGUMENT",
      `Cannot subscribe with filter "${filter}": ${detail}`,
      options,
    );
    this.name = "InvalidTopicFilterError";
    this.filter = filter;
  }
}

/** A plugin `Publish` request with a bad `event_type`, `payload_type` or `schema_version`. */
export class InvalidPublishError extends BusError {
  /**
   * Creates the error.
   *
   * @param detail What is wrong.
   * @param options Standard error options.
   */
  constructor(detail: string, options?: ErrorOptions) {
    super(
      "bus_publish_invalid",
      "INVALID_ARGUMENT",
      `Cannot publish: ${detail}`,
      options,
    );
    this.name = "InvalidPublishError";
  }
}

/**
 * A subscriber fell more than its bound behind; the bus closed that one
 * subscription (`RESOURCE_EXHAUSTED`). It may resubscribe; it lost nothing
 * durable.
 */
export class SubscriberOverflowError extends BusError {
  /** The subscription's bound. */
  readonly bound: number;
  /** The subscription's label, when it has one. */
  readonly label: string;
  /**
   * Creates the error.
   *
   * @param bound The bound that was exceeded.
   * @param label The subscription's label.
   * @param options Standard error options.
   */
  constructor(bound: number, label = "", options?: ErrorOptions) {
    super(
      "bus_subscriber_overflow",
      "RESOURCE_EXHAUSTED",
      `Closed subscription${
        label ? ` "${label}"` : ""
      }: more than ${bound} events were waiting to be delivered; resubscribe and backfill with ReadEvents`,
      options,
    );
    this.name = "SubscriberOverflowError";
    this.bound = bound;
    this.label = label;
  }
}
