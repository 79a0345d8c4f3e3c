/**
 * OpenAI failures mapped to the model error taxonomy
 * (`model.v1.ModelErrorCategory`), with `retryable` and `retry_after` set,
 * and every text scrubbed of the API key.
 *
 * | Vendor failure | Category | retryable |
 * |---|---|---|
 * | 401, `invalid_api_key` | AUTH_ERROR | no |
 * | 403 (permission, region, org) | AUTH_ERROR | no |
 * | 429 `insufficient_quota` | RATE_LIMITED | no |
 * | 429 otherwise (`retry-after-ms` / `retry-after` → retry_after) | RATE_LIMITED | yes |
 * | 503, 529, `overloaded`/`server_is_overloaded`/`slow_down` | OVERLOADED | yes |
 * | other 5xx, `server_error`, timeouts, network failures | OVERLOADED | yes |
 * | 400 `context_length_exceeded` (or the message says so) | CONTEXT_LENGTH_EXCEEDED | no |
 * | 400 content policy / `content_filter` | CONTENT_FILTERED | no |
 * | other 4xx | INVALID_REQUEST | no |
 * | anything else | UNKNOWN | no |
 *
 * 5xx and network failures are OVERLOADED because the kernel retries (with
 * `settings.retry`) and falls back only on RATE_LIMITED and OVERLOADED; the
 * plugin never retries itself. `raw_detail` keeps the HTTP status and vendor
 * code (e.g. `http 500 server_error`), so the two stay distinguishable.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  ModelErrorCategory,
  type ModelErrorSchema,
} from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";

/** A ModelError init (the `error` of a `StreamEvent.error`). */
export type ModelErrorInit = MessageInitShape<typeof ModelErrorSchema>;

/** What is known about a failure, from an HTTP answer or a stream event. */
export interface VendorFailure {
  /** HTTP status; absent for in-stream errors and network failures. */
  status?: number;
  /** Vendor error code (`context_length_exceeded`, `rate_limit_exceeded`, …). */
  code?: string | null;
  /** Vendor error type (`invalid_request_error`, …). */
  type?: string | null;
  /** Vendor message. */
  message: string;
  /** Response headers (for `retry-after-ms` / `retry-after`). */
  headers?: Headers;
  /** The request never got an HTTP answer (refused, reset, DNS, timeout). */
  network?: boolean;
}

const KEY_LIKE_REGEXP = /\bsk-[A-Za-z0-9_\-*]{6,}/g;

/**
 * Removes secrets from a text: every occurrence of each given secret, and
 * anything shaped like an OpenAI key (`sk-…`).
 *
 * @param text The text.
 * @param secrets Secret values (empty strings are ignored).
 * @returns The scrubbed text.
 */
export function redact(
  text: string,
  secrets: readonly (string | undefined)[],
): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  }
  return out.replace(KEY_LIKE_REGEXP, "sk-[redacted]");
}

/**
 * The wait a 429 asks for, in milliseconds: `retry-after-ms`, else
 * `retry-after` as seconds or an HTTP date.
 *
 * @param headers The response headers.
 * @param now The current time (ms since the epoch).
 * @returns The wait, or `undefined` when the headers name none.
 */
export function retryAfterMs(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const v = Number(ms);
    if (Number.isFinite(v) && v >= 0) return Math.round(v);
  }
  const after = headers.get("retry-after");
  if (after !== null && after.trim() !== "") {
    const s = Number(after);
    if (Number.isFinite(s) && s >= 0) return Math.round(s * 1000);
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  return undefined;
}

const CONTEXT_REGEXP =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long/i;

/**
 * Classifies a failure.
 *
 * @param f The failure.
 * @param secrets Secrets to scrub from the message and detail.
 * @returns The ModelError init.
 */
export function classifyFailure(
  f: VendorFailure,
  secrets: readonly (string | undefined)[],
): ModelErrorInit {
  const code = f.code ?? undefined;
  const status = f.status;
  let category: ModelErrorCategory;
  let retryable = false;
  let wait: number | undefined;
  if (f.network) {
    category = ModelErrorCategory.OVERLOADED;
    retryable = true;
  } else if (
    code === "context_length_exceeded" ||
    code === "string_above_max_length" ||
    ((status === 400 || status === 413 || status === undefined) &&
      CONTEXT_REGEXP.test(f.message))
  ) {
    category = ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED;
  } else if (status === 401 || code === "invalid_api_key") {
    category = ModelErrorCategory.AUTH_ERROR;
  } else if (status === 403) {
    category = ModelErrorCategory.AUTH_ERROR;
  } else if (
    status === 429 || code === "rate_limit_exceeded" ||
    code === "insufficient_quota"
  ) {
    category = ModelErrorCategory.RATE_LIMITED;
    retryable = code !== "insufficient_quota";
    wait = retryAfterMs(f.headers);
  } else if (
    status === 503 || status === 529 || code === "server_is_overloaded" ||
    code === "overloaded" || code === "slow_down"
  ) {
    category = ModelErrorCategory.OVERLOADED;
    retryable = true;
    wait = retryAfterMs(f.headers);
  } else if (
    (status !== undefined && status >= 500) || code === "server_error" ||
    status === 408 || status === 409
  ) {
    category = ModelErrorCategory.OVERLOADED;
    retryable = true;
  } else if (
    code === "content_filter" || code === "content_policy_violation" ||
    /content (management )?policy/i.test(f.message)
  ) {
    category = ModelErrorCategory.CONTENT_FILTERED;
  } else if (status !== undefined && status >= 400 && status < 500) {
    category = ModelErrorCategory.INVALID_REQUEST;
  } else if (code === "invalid_prompt" || f.type === "invalid_request_error") {
    category = ModelErrorCategory.INVALID_REQUEST;
  } else {
    category = ModelErrorCategory.UNKNOWN;
  }
  const detail = [
    f.network ? "network" : status !== undefined ? `http ${status}` : "stream",
    code,
    f.type,
  ].filter(Boolean).join(" ");
  const message = redact(f.message || "no message", secrets);
  return {
    category,
    message,
    retryable,
    ...(wait !== undefined
      ? {
        retryAfter: {
          seconds: BigInt(Math.floor(wait / 1000)),
          nanos: (wait % 1000) * 1_000_000,
        },
      }
      : {}),
    rawDetail: redact(detail, secrets),
  };
}
