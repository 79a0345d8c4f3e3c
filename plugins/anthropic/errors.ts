/**
 * Vendor failures → the model error taxonomy (`model.v1.ModelError`).
 *
 * | Vendor                                              | Category                  | Retryable |
 * | --------------------------------------------------- | ------------------------- | --------- |
 * | 400 `invalid_request_error`, prompt too long        | `CONTEXT_LENGTH_EXCEEDED` | no        |
 * | 413 `request_too_large`                             | `CONTEXT_LENGTH_EXCEEDED` | no        |
 * | 400 `invalid_request_error`, 404 `not_found_error`  | `INVALID_REQUEST`         | no        |
 * | 401 `authentication_error`                          | `AUTH_ERROR`              | no        |
 * | 402 `billing_error`, 403 `permission_error`         | `AUTH_ERROR`              | no        |
 * | 429 `rate_limit_error`                              | `RATE_LIMITED`            | yes, `retry-after` |
 * | 529 `overloaded_error`, 503                         | `OVERLOADED`              | yes       |
 * | 500 `api_error`, 504 `timeout_error`, other 5xx     | `UNKNOWN`                 | yes       |
 * | network failure, timeout, a stream cut short        | `UNKNOWN`                 | yes       |
 * | anything else                                       | `UNKNOWN`                 | no        |
 *
 * A mid-stream `error` event carries no status; its `error.type` decides.
 * The API key is scrubbed from every message and detail.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ConnectionError, HttpStatusError } from "./client.ts";
import {
  ModelErrorCategory,
  type ModelErrorSchema,
} from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import { Code } from "../../proto/grpc_status.ts";

/** A classified failure (init shape of `model.v1.ModelError`). */
export type ModelErrorInit = MessageInitShape<typeof ModelErrorSchema>;

const BY_TYPE: Readonly<
  Record<string, { category: ModelErrorCategory; retryable: boolean }>
> = {
  invalid_request_error: {
    category: ModelErrorCategory.INVALID_REQUEST,
    retryable: false,
  },
  not_found_error: {
    category: ModelErrorCategory.INVALID_REQUEST,
    retryable: false,
  },
  request_too_large: {
    category: ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
    retryable: false,
  },
  authentication_error: {
    category: ModelErrorCategory.AUTH_ERROR,
    retryable: false,
  },
  permission_error: {
    category: ModelErrorCategory.AUTH_ERROR,
    retryable: false,
  },
  billing_error: { category: ModelErrorCategory.AUTH_ERROR, retryable: false },
  rate_limit_error: {
    category: ModelErrorCategory.RATE_LIMITED,
    retryable: true,
  },
  overloaded_error: {
    category: ModelErrorCategory.OVERLOADED,
    retryable: true,
  },
  api_error: { category: ModelErrorCategory.UNKNOWN, retryable: true },
  timeout_error: { category: ModelErrorCategory.UNKNOWN, retryable: true },
};

const BY_STATUS: Readonly<Record<number, keyof typeof BY_TYPE>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const CONTEXT_LENGTH =
  /prompt is too long|context window|context length|too many (input )?tokens|exceeds? the (model'?s? )?(maximum|context)/i;

/**
 * Replaces every occurrence of the secret in a text.
 *
 * @param text The text.
 * @param secret The API key (ignored when shorter than 8 characters).
 * @returns The text without it.
 */
export function redact(text: string, secret: string): string {
  return secret.length >= 8 ? text.split(secret).join("[REDACTED]") : text;
}

/**
 * Seconds to wait, from a `retry-after` header (delta-seconds or an HTTP
 * date).
 *
 * @param value The header value.
 * @param nowMs The clock, for dates.
 * @returns Seconds (≥ 0), or `undefined`.
 */
export function retryAfterSeconds(
  value: string | null | undefined,
  nowMs = Date.now(),
): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - nowMs) / 1000);
}

function duration(seconds: number): { seconds: bigint; nanos: number } {
  const whole = Math.floor(seconds);
  return {
    seconds: BigInt(whole),
    nanos: Math.round((seconds - whole) * 1e9),
  };
}

interface VendorErrorBody {
  type?: string;
  error?: { type?: string; message?: string };
  request_id?: string;
}

/**
 * Classifies a vendor error (HTTP status or mid-stream `error` event).
 *
 * @param input Status (absent for a mid-stream event), the parsed body,
 * the response headers, and the API key to scrub.
 * @returns The model error.
 */
export function classifyVendorError(input: {
  status?: number;
  body: unknown;
  headers?: Headers;
  apiKey: string;
}): ModelErrorInit {
  const body =
    (typeof input.body === "object" && input.body !== null
      ? input.body
      : {}) as VendorErrorBody;
  const type = body.error?.type ??
    (input.status !== undefined ? BY_STATUS[input.status] : undefined) ??
    (input.status !== undefined && input.status >= 500 ? "api_error" : "");
  let rule = BY_TYPE[type] ??
    { category: ModelErrorCategory.UNKNOWN, retryable: false };
  const vendorMessage = body.error?.message ??
    (typeof input.body === "string" ? input.body : "");
  if (
    rule.category === ModelErrorCategory.INVALID_REQUEST &&
    CONTEXT_LENGTH.test(vendorMessage)
  ) {
    rule = {
      category: ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
      retryable: false,
    };
  }
  const requestId = input.headers?.get("request-id") ?? body.request_id;
  const where = input.status !== undefined
    ? `HTTP ${input.status}`
    : "a mid-stream error event";
  const message = `Anthropic answered ${where}${type ? ` (${type})` : ""}${
    vendorMessage ? `: ${vendorMessage}` : ""
  }${requestId ? ` [request-id ${requestId}]` : ""}`;
  const retryAfter = rule.retryable
    ? retryAfterSeconds(input.headers?.get("retry-after"))
    : undefined;
  return {
    category: rule.category,
    message: redact(message, input.apiKey),
    retryable: rule.retryable,
    ...(retryAfter !== undefined ? { retryAfter: duration(retryAfter) } : {}),
    rawDetail: redact(
      typeof input.body === "string" ? input.body : JSON.stringify(input.body),
      input.apiKey,
    ),
  };
}

/**
 * Classifies anything a request threw: an HTTP error status
 * ({@linkcode HttpStatusError}), no answer at all
 * ({@linkcode ConnectionError}), or a failure while reading the stream.
 *
 * @param err The error.
 * @param apiKey The API key to scrub.
 * @param baseUrl The vendor URL, for network errors.
 * @returns The model error.
 */
export function classifyError(
  err: unknown,
  apiKey: string,
  baseUrl: string,
): ModelErrorInit {
  if (err instanceof HttpStatusError) {
    return classifyVendorError({
      status: err.status,
      body: err.body,
      headers: err.headers,
      apiKey,
    });
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : "";
  const network = err instanceof ConnectionError;
  return {
    category: ModelErrorCategory.UNKNOWN,
    message: redact(
      network
        ? `cannot reach Anthropic at ${baseUrl} (network): ${e.message}${cause}`
        : `the Anthropic stream failed: ${e.message}${cause}`,
      apiKey,
    ),
    retryable: true,
    rawDetail: redact(`${e.name}: ${e.message}${cause}`, apiKey),
  };
}

/**
 * The gRPC status code of a category (plugins.md §3.3), for unary RPCs.
 *
 * @param category The category.
 * @returns The code.
 */
export function statusCodeOf(
  category: ModelErrorCategory,
): (typeof Code)[keyof typeof Code] {
  switch (category) {
    case ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED:
    case ModelErrorCategory.RATE_LIMITED:
      return Code.RESOURCE_EXHAUSTED;
    case ModelErrorCategory.OVERLOADED:
      return Code.UNAVAILABLE;
    case ModelErrorCategory.AUTH_ERROR:
      return Code.UNAUTHENTICATED;
    case ModelErrorCategory.INVALID_REQUEST:
      return Code.INVALID_ARGUMENT;
    case ModelErrorCategory.CONTENT_FILTERED:
      return Code.FAILED_PRECONDITION;
    default:
      return Code.INTERNAL;
  }
}
