/**
 * The provider's HTTP requests, sent with `fetch` directly: building and
 * sending a request through the vendor SDK cost about 2 ms per model call
 * (issue 20's turn gap). Headers, timeouts and the shapes of failures
 * follow the SDK's, so the classification in `errors.ts` is unchanged:
 *
 * - a non-2xx answer → {@linkcode HttpStatusError} with the status, the
 *   body's `error` object (when the body is JSON holding one), the message
 *   the SDK would have given and the headers (`retry-after`);
 * - no answer (refused, reset, DNS, the timeout before the headers) →
 *   {@linkcode ConnectionError};
 * - the caller's signal → the `AbortError` of `fetch`.
 *
 * No request is retried here: the kernel retries with `settings.retry`.
 *
 * @module
 */

/** The HTTP timeout of a request, until its response headers arrive. */
export const REQUEST_TIMEOUT_MS = 10 * 60 * 1000;

/** Where and how the provider's requests go. */
export interface HttpTarget {
  /** The API base URL, without a trailing slash (`…/v1`). */
  readonly baseUrl: string;
  /** The API key; absent: no `Authorization` header at all. */
  readonly apiKey?: string;
  /** `OpenAI-Organization`. */
  readonly organization?: string;
  /** `OpenAI-Project`. */
  readonly project?: string;
}

/** The vendor's error object (`{ message, type, code, param }`). */
export interface WireErrorObject {
  /** The message. */
  readonly message?: unknown;
  /** The type (`invalid_request_error`, …). */
  readonly type?: unknown;
  /** The code (`context_length_exceeded`, …). */
  readonly code?: unknown;
}

/** The server answered with an HTTP error status. */
export class HttpStatusError extends Error {
  /**
   * Creates the error.
   *
   * @param status The HTTP status.
   * @param error The body's `error` object, when the body is JSON with one.
   * @param message The message: `<status> <vendor message or body>`.
   * @param headers The response headers.
   */
  constructor(
    readonly status: number,
    readonly error: WireErrorObject | undefined,
    message: string,
    readonly headers: Headers,
  ) {
    super(message);
    this.name = "HttpStatusError";
  }
}

/** The request got no HTTP answer (or none before the timeout). */
export class ConnectionError extends Error {
  /**
   * Creates the error.
   *
   * @param message `Connection error.` or `Request timed out.`
   * @param options The underlying failure.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConnectionError";
  }
}

function headersOf(target: HttpTarget, json: boolean): Headers {
  const h = new Headers({
    "accept": "application/json",
    "user-agent": "ph-agent-openai/0.1.0",
    "x-stainless-retry-count": "0",
  });
  if (json) h.set("content-type", "application/json");
  if (target.apiKey !== undefined) {
    h.set("authorization", `Bearer ${target.apiKey}`);
  }
  if (target.organization) h.set("openai-organization", target.organization);
  if (target.project) h.set("openai-project", target.project);
  return h;
}

/** The SDK's message for a status answer: `<status> <what the body said>`. */
function statusMessage(
  status: number,
  error: unknown,
  text: string | undefined,
): string {
  const inner = (error ?? undefined) as WireErrorObject | undefined;
  const msg = inner?.message
    ? typeof inner.message === "string"
      ? inner.message
      : JSON.stringify(inner.message)
    : error
    ? JSON.stringify(error)
    : text;
  return msg ? `${status} ${msg}` : `${status} status code (no body)`;
}

/**
 * Sends one request and returns a 2xx response with its body unread.
 *
 * @param target The server and credentials.
 * @param method `GET` or `POST`.
 * @param path The path under the base URL (`/chat/completions`).
 * @param body The JSON body (`POST`).
 * @param signal Aborts the request and the body.
 * @param timeoutMs The wait for the response headers.
 * @returns The response.
 * @throws {HttpStatusError} For a non-2xx status.
 * @throws {ConnectionError} When no answer arrived.
 * @throws {DOMException} `AbortError` when `signal` aborted.
 */
export async function request(
  target: HttpTarget,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  signal: AbortSignal,
  timeoutMs: number = REQUEST_TIMEOUT_MS,
): Promise<Response> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new ConnectionError("Request timed out.")),
    timeoutMs,
  );
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: headersOf(target, body !== undefined),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.any([signal, timeout.signal]),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    if (timeout.signal.aborted) throw timeout.signal.reason;
    throw new ConnectionError("Connection error.", { cause: err });
  } finally {
    clearTimeout(timer);
  }
  if (response.ok) return response;
  let text = "";
  try {
    text = await response.text();
  } catch (err) {
    if (signal.aborted) throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const inner = json !== undefined && typeof json === "object" && json !== null
    ? (json as { error?: unknown }).error
    : undefined;
  const error = typeof inner === "object" && inner !== null
    ? inner as WireErrorObject
    : undefined;
  throw new HttpStatusError(
    response.status,
    error,
    statusMessage(response.status, inner, json === undefined ? text : ""),
    response.headers,
  );
}
