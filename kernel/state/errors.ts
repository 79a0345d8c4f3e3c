/**
 * Runtime errors of the state backend that kernel callers catch. Each sets
 * `name`, keeps its data in readonly fields, passes `cause` through and has
 * a stable `code` for `--json` output and for the gRPC mapping of the
 * callback service (`INVALID_ARGUMENT`, `PERMISSION_DENIED`, `NOT_FOUND`,
 * `FAILED_PRECONDITION` or `INTERNAL`, given as {@linkcode StateError.grpcStatus}).
 *
 * @module
 */

/** The gRPC status name a state error maps to at the callback boundary. */
export type StateGrpcStatus =
  | "INVALID_ARGUMENT"
  | "PERMISSION_DENIED"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "FAILED_PRECONDITION"
  | "INTERNAL";

/** Stable codes of the state backend's errors. */
export type StateErrorCode =
  | "event_kind_unspecified"
  | "event_id_duplicate"
  | "event_row_malformed"
  | "producer_reserved"
  | "session_not_found"
  | "session_exists"
  | "session_closed"
  | "session_schema_too_new"
  | "session_unreadable"
  | "session_status_transition_invalid"
  | "storage_failure"
  | "installation_key_unusable"
  | "session_leased";

/**
 * The base class of every state backend error. Catch it to handle them all;
 * switch on {@linkcode StateError.code} for the reason.
 */
export class StateError extends Error {
  /** The stable reason. */
  readonly code: StateErrorCode;
  /** The gRPC status the callback service answers with. */
  readonly grpcStatus: StateGrpcStatus;
  /**
   * Creates the error.
   *
   * @param code The stable reason.
   * @param grpcStatus The gRPC status it maps to.
   * @param message The message, naming the session or file.
   * @param options Standard error options.
   */
  constructor(
    code: StateErrorCode,
    grpcStatus: StateGrpcStatus,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "StateError";
    this.code = code;
    this.grpcStatus = grpcStatus;
  }
}

/** An event named `EVENT_KIND_UNSPECIFIED`, which is never valid. */
export class UnspecifiedEventKindError extends StateError {
  /**
   * Creates the error.
   *
   * @param what What carried the kind, e.g. `Emit` or `ReadEvents filter`.
   * @param options Standard error options.
   */
  constructor(what = "event", options?: ErrorOptions) {
    super(
      "event_kind_unspecified",
      "INVALID_ARGUMENT",
      `Cannot accept ${what}: the event kind is EVENT_KIND_UNSPECIFIED`,
      options,
    );
    this.name = "UnspecifiedEventKindError";
  }
}

/** An emitted event reused an `id` that the session already holds. */
export class DuplicateEventIdError extends StateError {
  /** The session. */
  readonly sessionId: string;
  /** The duplicated event id. */
  readonly eventId: string;
  /**
   * Creates the error.
   *
   * @param sessionId The session.
   * @param eventId The duplicated id.
   * @param options Standard error options.
   */
  constructor(sessionId: string, eventId: string, options?: ErrorOptions) {
    super(
      "event_id_duplicate",
      "INVALID_ARGUMENT",
      `Cannot append to session "${sessionId}": event id "${eventId}" is already stored`,
      options,
    );
    this.name = "DuplicateEventIdError";
    this.sessionId = sessionId;
    this.eventId = eventId;
  }
}

/** A stored event row holds text outside the stored vocabularies. */
export class MalformedEventRowError extends StateError {
  /** The session. */
  readonly sessionId: string;
  /** The row's sequence. */
  readonly sequence: number;
  /**
   * Creates the error.
   *
   * @param sessionId The session.
   * @param sequence The row's sequence.
   * @param detail What is wrong with it.
   * @param options Standard error options.
   */
  constructor(
    sessionId: string,
    sequence: number,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      "event_row_malformed",
      "INTERNAL",
      `Cannot read event ${sequence} of session "${sessionId}": ${detail}`,
      options,
    );
    this.name = "MalformedEventRowError";
    this.sessionId = sessionId;
    this.sequence = sequence;
  }
}

/**
 * An event used the reserved kernel producer on a kind other than `plan` or
 * `apply`, or a malformed variant of it.
 */
export class ReservedProducerError extends StateError {
  /**
   * Creates the error.
   *
   * @param detail What was wrong.
   * @param options Standard error options.
   */
  constructor(detail: string, options?: ErrorOptions) {
    super(
      "producer_reserved",
      "PERMISSION_DENIED",
      `Cannot accept event: ${detail}`,
      options,
    );
    this.name = "ReservedProducerError";
  }
}

/** No session file (or in-memory session) has this id. */
export class SessionNotFoundError extends StateError {
  /** The session id that was asked for. */
  readonly sessionId: string;
  /**
   * Creates the error.
   *
   * @param sessionId The id.
   * @param where Where it was looked for.
   * @param options Standard error options.
   */
  constructor(sessionId: string, where: string, options?: ErrorOptions) {
    super(
      "session_not_found",
      "NOT_FOUND",
      `Cannot open session "${sessionId}": no session file at ${where}`,
      options,
    );
    this.name = "SessionNotFoundError";
    this.sessionId = sessionId;
  }
}

/** A session with this id already exists; creation never overwrites. */
export class SessionExistsError extends StateError {
  /** The session id. */
  readonly sessionId: string;
  /**
   * Creates the error.
   *
   * @param sessionId The id.
   * @param options Standard error options.
   */
  constructor(sessionId: string, options?: ErrorOptions) {
    super(
      "session_exists",
      "ALREADY_EXISTS",
      `Cannot create session "${sessionId}": it already exists`,
      options,
    );
    this.name = "SessionExistsError";
    this.sessionId = sessionId;
  }
}

/** The session handle was closed before the call. */
export class SessionClosedError extends StateError {
  /** The session id. */
  readonly sessionId: string;
  /**
   * Creates the error.
   *
   * @param sessionId The id.
   * @param options Standard error options.
   */
  constructor(sessionId: string, options?: ErrorOptions) {
    super(
      "session_closed",
      "FAILED_PRECONDITION",
      `Cannot use session "${sessionId}": its handle is closed`,
      options,
    );
    this.name = "SessionClosedError";
    this.sessionId = sessionId;
  }
}

/**
 * The session file was written by a newer kernel: its `PRAGMA user_version`
 * is above what this kernel supports. The file is left untouched.
 */
export class SchemaTooNewError extends StateError {
  /** The file. */
  readonly path: string;
  /** The file's schema revision. */
  readonly found: number;
  /** The newest revision this kernel reads. */
  readonly supported: number;
  /**
   * Creates the error.
   *
   * @param path The file.
   * @param found Its revision.
   * @param supported The newest supported revision.
   * @param options Standard error options.
   */
  constructor(
    path: string,
    found: number,
    supported: number,
    options?: ErrorOptions,
  ) {
    super(
      "session_schema_too_new",
      "FAILED_PRECONDITION",
      `Cannot open session file "${path}": its schema revision ${found} is newer than the newest this kernel supports (${supported}); upgrade the kernel`,
      options,
    );
    this.name = "SchemaTooNewError";
    this.path = path;
    this.found = found;
    this.supported = supported;
  }
}

/**
 * A session file cannot be read and could not be salvaged (or holds no
 * session at all). The file is left where it was.
 */
export class SessionUnreadableError extends StateError {
  /** The file. */
  readonly path: string;
  /** Why it is unreadable. */
  readonly reason: string;
  /**
   * Creates the error.
   *
   * @param path The file.
   * @param reason Why.
   * @param options Standard error options.
   */
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(
      "session_unreadable",
      "INTERNAL",
      `Cannot read session file "${path}": ${reason}`,
      options,
    );
    this.name = "SessionUnreadableError";
    this.path = path;
    this.reason = reason;
  }
}

/**
 * A status change that §3.9 forbids: only `running` ends, and only
 * `completed` or `cancelled` re-open.
 */
export class InvalidStatusTransitionError extends StateError {
  /** The session id. */
  readonly sessionId: string;
  /** The current status text. */
  readonly from: string;
  /** The requested status text. */
  readonly to: string;
  /**
   * Creates the error.
   *
   * @param sessionId The session.
   * @param from The current status text.
   * @param to The requested status text.
   * @param options Standard error options.
   */
  constructor(
    sessionId: string,
    from: string,
    to: string,
    options?: ErrorOptions,
  ) {
    const why = from === to
      ? `it is already ${from}`
      : from === "running"
      ? `a running session can only end`
      : from === "completed" || from === "cancelled"
      ? `a ${from} session can only re-open to running`
      : `a ${from} session is replay-only`;
    super(
      "session_status_transition_invalid",
      "FAILED_PRECONDITION",
      `Cannot change session "${sessionId}" from ${from} to ${to}: ${why}`,
      options,
    );
    this.name = "InvalidStatusTransitionError";
    this.sessionId = sessionId;
    this.from = from;
    this.to = to;
  }
}

/** The storage layer failed (I/O, lock timeout, full disk). */
export class StorageError extends StateError {
  /** The session id. */
  readonly sessionId: string;
  /**
   * Creates the error.
   *
   * @param sessionId The session.
   * @param action What was attempted, e.g. `append 3 events`.
   * @param options Standard error options; `cause` is the storage error.
   */
  constructor(sessionId: string, action: string, options?: ErrorOptions) {
    const cause = options?.cause instanceof Error
      ? `: ${options.cause.message}`
      : "";
    super(
      "storage_failure",
      "INTERNAL",
      `Cannot ${action} in session "${sessionId}"${cause}`,
      options,
    );
    this.name = "StorageError";
    this.sessionId = sessionId;
  }
}

/**
 * The installation key that keys the session chain cannot be used: missing
 * (when it must not be created), readable or writable by others, not a
 * regular file, or not 32 bytes long.
 */
export class InstallationKeyError extends StateError {
  /** The key file. */
  readonly path: string;
  /** Why it cannot be used. */
  readonly reason: string;
  /**
   * Creates the error.
   *
   * @param path The key file.
   * @param reason Why.
   * @param options Standard error options.
   */
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(
      "installation_key_unusable",
      "FAILED_PRECONDITION",
      `Cannot use the installation key "${path}": ${reason}`,
      options,
    );
    this.name = "InstallationKeyError";
    this.path = path;
    this.reason = reason;
  }
}

/**
 * Another kernel drives the session: it holds the session's lease (shared
 * backends only) and the lease has not expired. Only one kernel writes a
 * session at a time; the lease is taken over once its holder stops
 * renewing it (a killed kernel's lease expires).
 */
export class SessionLeasedError extends StateError {
  /** The session id. */
  readonly sessionId: string;
  /** Who holds the lease (`pid@host`). */
  readonly holder: string;
  /** When the lease expires unless renewed (ISO 8601). */
  readonly expiresAt: string;
  /**
   * Creates the error.
   *
   * @param sessionId The session.
   * @param holder Who holds the lease (`pid@host`).
   * @param expiresAt When the lease expires unless renewed.
   * @param options Standard error options.
   */
  constructor(
    sessionId: string,
    holder: string,
    expiresAt: string,
    options?: ErrorOptions,
  ) {
    super(
      "session_leased",
      "FAILED_PRECONDITION",
      `Cannot write session "${sessionId}": another kernel (${holder}) drives it; its lease expires at ${expiresAt} unless that kernel renews it`,
      options,
    );
    this.name = "SessionLeasedError";
    this.sessionId = sessionId;
    this.holder = holder;
    this.expiresAt = expiresAt;
  }
}
