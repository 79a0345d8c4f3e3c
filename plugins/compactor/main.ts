/**
 * `compactor`: the first-party compactor context provider (plugins.md
 * §6.3). Before each model call it sees the conversation; when the history
 * and the sections reach `threshold` of the model's window (default 80 %),
 * or when the kernel forces a pass (request metadata `ph-compact: force`,
 * sent by `compactNow()` and `/compact`), it summarizes the older history
 * and answers with `rewritten_history`: the summary, the `<cp:compact>`
 * typed summaries of the older part word for word, then the recent turns
 * unchanged. The context sections pass through untouched.
 *
 * The summary is written by a child session of `summary_profile` through
 * the kernel's `RunSession` callback (a profile whose model may be cheaper
 * than the session's); its cost is charged to the session. A summary that
 * fails answers an error: the kernel drops the contribution and the history
 * stays as it was.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Stability } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ContextService } from "../../proto/gen/pluggableharness/context/v1/service_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  serve,
  service,
} from "../sdk/mod.ts";
import {
  type CompactorConfig,
  DEFAULT_CONFIG,
  isOverThreshold,
  keptSummaries,
  rewrittenHistory,
  splitIndex,
  summaryPrompt,
  transcriptOf,
} from "./_compact.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "compactor/plugin.json");

/** The `default_token_budget` it declares (it adds no sections). */
export const DEFAULT_TOKEN_BUDGET = 1;

/** Request metadata with which the kernel forces a pass. */
export const COMPACT_METADATA = "ph-compact";

/** How long the summarizer's session may take. */
const SUMMARY_TIMEOUT_MS = 300_000;

function fail(
  category: "source_unavailable" | "invalid_request",
  message: string,
): never {
  throw new GrpcStatusError(
    category === "invalid_request" ? Code.INVALID_ARGUMENT : Code.UNAVAILABLE,
    `${category}: ${message}`,
  );
}

function numberAttr(
  raw: JsonObject,
  name: string,
  fallback: number,
  valid: (n: number) => boolean,
  what: string,
): number {
  const v = raw[name];
  // The kernel decodes an unset optional attribute to its zero value.
  if (v === undefined || v === null || v === 0) return fallback;
  if (typeof v !== "number" || !valid(v)) {
    fail(
      "invalid_request",
      `config attribute "${name}" must be ${what}, not ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/**
 * Decodes the provider block.
 *
 * @param raw The block as Configure received it.
 * @returns The settings.
 */
export function parseConfig(raw: JsonObject): CompactorConfig {
  const allowed = [
    "threshold",
    "keep_recent_turns",
    "summary_profile",
    "max_result_chars",
    "token_budget",
  ];
  for (const k of Object.keys(raw)) {
    if (!allowed.includes(k)) {
      fail(
        "invalid_request",
        `config attribute "${k}" is not supported by compactor (it takes ${
          allowed.join(", ")
        })`,
      );
    }
  }
  const profile = raw.summary_profile;
  if (typeof profile !== "string" || profile === "") {
    fail(
      "invalid_request",
      `config attribute "summary_profile" must name the agent_profile that writes summaries, not ${
        JSON.stringify(profile ?? null)
      }`,
    );
  }
  return {
    threshold: numberAttr(
      raw,
      "threshold",
      DEFAULT_CONFIG.threshold,
      (n) => n > 0 && n <= 1,
      "a fraction above 0 and at most 1",
    ),
    keepRecentTurns: numberAttr(
      raw,
      "keep_recent_turns",
      DEFAULT_CONFIG.keepRecentTurns,
      (n) => Number.isInteger(n) && n >= 1,
      "a positive integer",
    ),
    maxResultChars: numberAttr(
      raw,
      "max_result_chars",
      DEFAULT_CONFIG.maxResultChars,
      (n) => Number.isInteger(n) && n >= 1,
      "a positive integer",
    ),
    summaryProfile: profile,
  };
}

if (import.meta.main) {
  let config: CompactorConfig | undefined;
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "context",
    },
    services: (ctx) => [
      service(ContextService, {
        getCapabilities: () => ({
          capabilities: {
            defaultTokenBudget: BigInt(DEFAULT_TOKEN_BUDGET),
            stability: Stability.DYNAMIC,
            compactor: true,
            slashCommands: [],
            configSchema: configSchemaOf(manifest),
            supportedHookPoints: [],
          },
        }),
        configure: (req) => {
          config = parseConfig(req.config ?? {});
          return {};
        },
        contribute: async (req, { metadata, signal }) => {
          if (!config) {
            fail(
              "invalid_request",
              "compactor is not configured: Configure must run first",
            );
          }
          if (!req.modelTarget) {
            fail("invalid_request", "model_target is required");
          }
          const unchanged = { sections: req.priorSections };
          const force = metadata.get(COMPACT_METADATA)[0] === "force";
          const used = Number(req.historyTokens) +
            req.priorSections.reduce((n, s) => n + Number(s.tokens), 0);
          const window = Number(req.modelTarget.contextWindow);
          if (!force && !isOverThreshold(used, window, config.threshold)) {
            return unchanged;
          }
          const history = req.conversationHistory;
          const cut = splitIndex(history, config.keepRecentTurns);
          if (cut === 0) return unchanged; // nothing older to summarize
          const older = history.slice(0, cut);
          const kernel = await ctx.kernel();
          const res = await kernel.runSession({
            profile: config.summaryProfile,
            prompt: summaryPrompt(
              transcriptOf(older, config.maxResultChars),
            ),
            parentSessionId: req.sessionId,
          }, {
            signal: AbortSignal.any([
              signal,
              AbortSignal.timeout(SUMMARY_TIMEOUT_MS),
            ]),
          }).catch((err: Error) =>
            fail(
              "source_unavailable",
              `the summary session of profile "${
                config!.summaryProfile
              }" failed: ${err.message}`,
            )
          );
          const summary = (res.finalMessage?.content ?? []).flatMap((b) =>
            b.block.case === "text" ? [b.block.value.text] : []
          ).join("\n").trim();
          if (res.status !== SessionStatus.COMPLETED || summary === "") {
            fail(
              "source_unavailable",
              `the summary session ${res.sessionId} of profile "${config.summaryProfile}" ended ${
                SessionStatus[res.status]?.toLowerCase() ?? "unknown"
              }${summary === "" ? " without a summary" : ""}`,
            );
          }
          ctx.log.info("compactor summarized older history", {
            session: req.sessionId,
            summarized: older.length,
            kept: history.length - cut,
            forced: force,
          });
          return {
            sections: req.priorSections,
            rewrittenHistory: rewrittenHistory(
              history.slice(cut),
              summary,
              keptSummaries(older),
            ),
          };
        },
        render: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "compactor has no Render",
          );
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
