/**
 * Step 1 with providers: the context chain (plugins.md §6.3, §6.4). Context
 * providers (`ContextService.Contribute`) and memory providers
 * (`MemoryService.Recall`) run in `agent.hcl` declaration order after the
 * kernel's own sections (system prompt, preamble), each with its cap
 * (`token_budget` from `agent.hcl`, else its declared default) clipped to
 * what is left of the per-call ceiling
 * (`context_window − reserved_output − system_overhead`).
 *
 * The kernel never truncates a section semantically; it enforces:
 * - scope: a non-compactor returns the prior chain unchanged plus sections
 *   of its own provider name, else its whole response is discarded and the
 *   prior chain restored (logged);
 * - content: text blocks only, and every section carries a label (else the
 *   response is discarded);
 * - budget: an own section that does not fit what is left of the
 *   provider's allocation is dropped (the turn goes on); a compactor's
 *   whole chain must fit the ceiling;
 * - history: only compactors see the conversation, and a compactor's
 *   `rewritten_history` replaces the request's messages;
 * - failures: a provider error or timeout drops that provider's
 *   contribution for this call (logged) and the turn goes on.
 *
 * Recalled memory records become sections labelled
 * `memory:<type>:<id>`, stability `DYNAMIC`.
 *
 * @module
 */
import { create, equals } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import {
  type ContextSection,
  ContextSectionSchema,
  type Message,
  Stability,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { ContextRequest } from "../../proto/gen/pluggableharness/context/v1/rpc_request_pb.ts";
import type { ContextContribution } from "../../proto/gen/pluggableharness/context/v1/rpc_response_pb.ts";
import type { RecallRequest } from "../../proto/gen/pluggableharness/memory/v1/rpc_request_pb.ts";
import {
  type MemoryRecord,
  MemoryScope,
  MemoryType,
} from "../../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { RecalledMemory } from "../control/memory_channels.ts";
import { fallbackTokenCount } from "../../contract/tokens.ts";
import type {
  ContextAssembler,
  ContextAssembly,
  ContextAssemblyInput,
} from "./context_assembly.ts";

import type { PluginIdentity } from "../../contract/plugin_identity.ts";

const log = getLogger(["ph-agent", "kernel", "context"]);

/** The default deadline of one `Contribute` or `Recall`. */
export const DEFAULT_CONTEXT_TIMEOUT_MS = 10_000;

/** A context provider as the chain uses it. */
export interface ContextProviderEndpoint {
  /** `context`. */
  readonly category: "context";
  /** Its local name (the `provider` of its sections). */
  readonly name: string;
  /**
   * The plugin build: a compactor is granted the session while it
   * contributes (its summary goes through `RunSession`).
   */
  readonly identity?: PluginIdentity;
  /** `default_token_budget` from `GetCapabilities`. */
  readonly defaultTokenBudget: number;
  /** `token_budget` from `agent.hcl`, when set. */
  readonly tokenBudget?: number;
  /** May rewrite, merge or drop others' sections and see the history. */
  readonly compactor: boolean;
  /** Its declared stability. */
  readonly stability: Stability;
  /** `ContextService.Contribute`. */
  contribute(
    request: ContextRequest,
    options: {
      signal: AbortSignal;
      timeoutMs: number;
      /** Sent as `ph-compact: force` (`compactNow()`). */
      forceCompaction?: boolean;
    },
  ): Promise<ContextContribution>;
}

/** A memory provider as the chain uses it. */
export interface MemoryProviderEndpoint {
  /** `memory`. */
  readonly category: "memory";
  /** Its local name. */
  readonly name: string;
  /** `default_token_budget` from `GetCapabilities`. */
  readonly defaultTokenBudget: number;
  /** `token_budget` from `agent.hcl`, when set. */
  readonly tokenBudget?: number;
  /** `MemoryService.Recall`. */
  recall(
    request: RecallRequest,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<MemoryRecord[]>;
}

/** One link of the chain, in declaration order. */
export type ChainProvider = ContextProviderEndpoint | MemoryProviderEndpoint;

/** What one provider did in one assembly (for events and tests). */
export interface ChainReport {
  /** The provider's local name. */
  readonly provider: string;
  /** Its allocation for this call. */
  readonly budgetTokens: number;
  /** `ok`, or why its contribution was not (wholly) used. */
  readonly outcome:
    | "ok"
    | "skipped_no_budget"
    | "failed"
    | "scope_violation"
    | "invalid_content"
    | "over_budget";
  /** Sections of its own that were dropped for the budget. */
  readonly dropped: readonly string[];
  /** The failure, when there was one. */
  readonly message?: string;
}

/** Options of {@linkcode providerContextAssembler}. */
export interface ProviderContextOptions {
  /** The chain in declaration order. */
  readonly providers: readonly ChainProvider[];
  /** One call's deadline. @default {DEFAULT_CONTEXT_TIMEOUT_MS} */
  readonly timeoutMs?: number;
  /** The parent session of each session, when it has one. */
  readonly parentOf?: (sessionId: string) => string | undefined;
  /**
   * Grants a plugin the session while it serves a call (the session
   * registry's `grant`); a compactor is granted during its `Contribute`.
   */
  readonly grant?: (identity: PluginIdentity, sessionId: string) => () => void;
  /** Receives what each provider did, per assembly. */
  readonly onReport?: (
    sessionId: string,
    turnId: string,
    reports: readonly ChainReport[],
  ) => void;
}

const MEMORY_TYPE_NAMES: Readonly<Record<number, string>> = {
  [MemoryType.USER]: "user",
  [MemoryType.FEEDBACK]: "feedback",
  [MemoryType.PROJECT]: "project",
  [MemoryType.REFERENCE]: "reference",
};

/**
 * The tokens of a section: its declared count (the provider's, through
 * the kernel's CountTokens), else the kernel's fallback formula.
 *
 * @param section The section.
 * @returns Its tokens.
 */
export function sectionTokens(section: ContextSection): number {
  const declared = Number(section.tokens);
  return declared > 0 ? declared : fallbackTokenCount(section.content);
}

function chainTokens(sections: readonly ContextSection[]): number {
  return sections.reduce((n, s) => n + sectionTokens(s), 0);
}

/** Text blocks only and a label: why a section is malformed, if it is. */
function malformed(section: ContextSection): string | undefined {
  if (!section.label) return "a section has no label";
  const bad = section.content.find((b) => b.block.case !== "text");
  if (bad) {
    return `section "${section.label}" holds a ${
      bad.block.case ?? "empty"
    } block (only text blocks are allowed)`;
  }
  return undefined;
}

/**
 * The section a recalled memory record becomes.
 *
 * @param provider The memory provider's local name.
 * @param record The record.
 * @returns The section (`memory:<type>:<id>`, `DYNAMIC`).
 */
export function memorySection(
  provider: string,
  record: MemoryRecord,
): ContextSection {
  const type = MEMORY_TYPE_NAMES[record.type] ?? "unknown";
  return create(ContextSectionSchema, {
    provider,
    label: `memory:${type}:${record.id}`,
    content: record.content.filter((b) => b.block.case === "text"),
    tokens: record.tokens,
    stability: Stability.DYNAMIC,
  });
}

const MEMORY_SCOPE_NAMES: Readonly<Record<number, string>> = {
  [MemoryScope.SESSION]: "session",
  [MemoryScope.PROJECT]: "project",
  [MemoryScope.GLOBAL]: "global",
};

/** What `memory-recall` says of a recalled record. */
function recalledMemory(provider: string, r: MemoryRecord): RecalledMemory {
  return {
    provider,
    id: r.id,
    type: MEMORY_TYPE_NAMES[r.type] ?? "unknown",
    scope: MEMORY_SCOPE_NAMES[r.scope] ?? "unknown",
    title: r.title,
    ...(r.updatedAt ? { updatedAtMs: timestampMs(r.updatedAt) } : {}),
  };
}

/** Drops own sections from the end of `own` until they fit `allocation`. */
function fitOwn(
  own: ContextSection[],
  allocation: number,
): { kept: ContextSection[]; dropped: string[] } {
  const kept: ContextSection[] = [];
  const dropped: string[] = [];
  let used = 0;
  for (const s of own) {
    const t = sectionTokens(s);
    if (used + t <= allocation) {
      kept.push(s);
      used += t;
    } else {
      dropped.push(s.label);
    }
  }
  return { kept, dropped };
}

/**
 * Builds the context assembler that runs context and memory providers.
 *
 * @param options The chain and its deadline.
 * @returns The assembler.
 */
export function providerContextAssembler(
  options: ProviderContextOptions,
): ContextAssembler {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONTEXT_TIMEOUT_MS;
  const lastTurn = new Map<string, number>();
  return {
    compactors: options.providers.flatMap((p) =>
      p.category === "context" && p.compactor ? [p.name] : []
    ),
    async assemble(input: ContextAssemblyInput): Promise<ContextAssembly> {
      let messages: Message[] = [...input.history];
      let chain: ContextSection[] = [...input.sections];
      let rewrittenBy: string | undefined;
      const historyTokens = input.historyTokens ??
        fallbackTokenCount(messages.flatMap((m) => m.content));
      let compactionFailure: string | undefined;
      const recalled: RecalledMemory[] = [];
      const ceiling = Math.max(0, input.budgetTokens);
      const reports: ChainReport[] = [];
      const modelTarget = {
        id: input.model.id,
        contextWindow: BigInt(input.model.contextWindow),
        effectiveCeiling: BigInt(ceiling),
      };
      const parent = options.parentOf?.(input.sessionId) ?? "";
      for (const p of options.providers) {
        if (input.signal.aborted) break;
        const cap = p.tokenBudget ?? p.defaultTokenBudget;
        // A compactor may shrink the history, so its room ignores it.
        const left = ceiling -
          (p.category === "context" && p.compactor ? 0 : historyTokens) -
          chainTokens(chain);
        const allocation = Math.max(0, Math.min(cap, left));
        if (allocation <= 0) {
          reports.push({
            provider: p.name,
            budgetTokens: 0,
            outcome: "skipped_no_budget",
            dropped: [],
          });
          continue;
        }
        const call = { signal: input.signal, timeoutMs };
        try {
          if (p.category === "memory") {
            // Loaded at the first recall: a session without a memory
            // provider never builds these descriptors.
            const { RecallRequestSchema } = await import(
              "../../proto/gen/pluggableharness/memory/v1/rpc_request_pb.ts"
            );
            const records = await p.recall(
              create(RecallRequestSchema, {
                sessionId: input.sessionId,
                turnId: input.turnId,
                tokenBudget: BigInt(allocation),
                modelTarget,
                filesTouched: [...(input.filesTouched ?? [])],
                workingDirectory: input.workingDirectory ?? "",
              }),
              call,
            );
            const own = records.map((r) => memorySection(p.name, r));
            const { kept, dropped } = fitOwn(own, allocation);
            chain = [...chain, ...kept];
            const keptLabels = new Set(kept.map((s) => s.label));
            for (const r of records) {
              if (!keptLabels.has(memorySection(p.name, r).label)) continue;
              recalled.push(recalledMemory(p.name, r));
            }
            reports.push({
              provider: p.name,
              budgetTokens: allocation,
              outcome: dropped.length ? "over_budget" : "ok",
              dropped,
            });
            continue;
          }
          const prior = chain;
          const { ContextRequestSchema } = await import(
            "../../proto/gen/pluggableharness/context/v1/rpc_request_pb.ts"
          );
          const release = p.compactor && p.identity
            ? options.grant?.(p.identity, input.sessionId)
            : undefined;
          const out = await p.contribute(
            create(ContextRequestSchema, {
              sessionId: input.sessionId,
              parentSessionId: parent,
              turnId: input.turnId,
              tokenBudget: BigInt(allocation),
              modelTarget,
              filesTouched: [...(input.filesTouched ?? [])],
              workingDirectory: input.workingDirectory ?? "",
              priorSections: prior,
              conversationHistory: p.compactor ? messages : [],
              historyTokens: BigInt(historyTokens),
              assembledTokensLastTurn: BigInt(
                lastTurn.get(input.sessionId) ?? 0,
              ),
            }),
            input.forceCompaction && p.compactor
              ? { ...call, forceCompaction: true }
              : call,
          ).finally(() => release?.());
          const bad = out.sections.map(malformed).find((m) => m);
          if (bad) {
            log.warn(
              "Context provider {provider} returned an invalid chain ({reason}); its contribution is discarded this turn",
              { provider: p.name, reason: bad },
            );
            reports.push({
              provider: p.name,
              budgetTokens: allocation,
              outcome: "invalid_content",
              dropped: [],
              message: bad,
            });
            continue;
          }
          if (p.compactor) {
            const total = chainTokens(out.sections);
            if (
              total > ceiling - historyTokens && !out.rewrittenHistory.length
            ) {
              reports.push({
                provider: p.name,
                budgetTokens: allocation,
                outcome: "over_budget",
                dropped: [],
                message:
                  `its chain needs ${total} tokens, over the ceiling of ${ceiling}`,
              });
              continue;
            }
            chain = [...out.sections];
            if (out.rewrittenHistory.length) {
              messages = [...out.rewrittenHistory];
              rewrittenBy = p.name;
            }
            reports.push({
              provider: p.name,
              budgetTokens: allocation,
              outcome: "ok",
              dropped: [],
            });
            continue;
          }
          const violation = scopeViolation(p.name, prior, out.sections);
          if (violation) {
            log.warn(
              "Context provider {provider} broke the chain's scope ({reason}); its response is discarded and the prior chain restored",
              { provider: p.name, reason: violation },
            );
            reports.push({
              provider: p.name,
              budgetTokens: allocation,
              outcome: "scope_violation",
              dropped: [],
              message: violation,
            });
            continue;
          }
          const own = out.sections.slice(prior.length);
          const { kept, dropped } = fitOwn(own, allocation);
          if (dropped.length) {
            log.warn(
              "Context provider {provider}: {dropped} over its budget of {budget} tokens, dropped this turn",
              {
                provider: p.name,
                dropped: dropped.join(", "),
                budget: allocation,
              },
            );
          }
          chain = [...prior, ...kept];
          reports.push({
            provider: p.name,
            budgetTokens: allocation,
            outcome: dropped.length ? "over_budget" : "ok",
            dropped,
          });
        } catch (err) {
          if (input.signal.aborted) throw err;
          const message = err instanceof Error ? err.message : String(err);
          log.warn(
            "{category} provider {provider} failed ({message}); its contribution is dropped this turn",
            { category: p.category, provider: p.name, message },
          );
          reports.push({
            provider: p.name,
            budgetTokens: allocation,
            outcome: "failed",
            dropped: [],
            message,
          });
          if (p.category === "context" && p.compactor) {
            compactionFailure = `${p.name}: ${message}`;
          }
        }
      }
      lastTurn.set(input.sessionId, historyTokens + chainTokens(chain));
      options.onReport?.(input.sessionId, input.turnId, reports);
      return {
        messages,
        sections: chain,
        ...(rewrittenBy !== undefined ? { rewrittenBy } : {}),
        ...(compactionFailure !== undefined ? { compactionFailure } : {}),
        ...(recalled.length ? { recalled } : {}),
      };
    },
  };
}

/**
 * Why a non-compactor's returned chain breaks its scope: the prior
 * sections must come back unchanged and in order, and every further
 * section must carry the provider's own name.
 *
 * @param provider The provider's local name.
 * @param prior The chain it was given.
 * @param returned The chain it returned.
 * @returns The reason, or `undefined` when the chain is in scope.
 */
export function scopeViolation(
  provider: string,
  prior: readonly ContextSection[],
  returned: readonly ContextSection[],
): string | undefined {
  if (returned.length < prior.length) {
    return `it returned ${returned.length} sections, fewer than the ${prior.length} it was given (a contribution is the whole chain, never a delta)`;
  }
  for (let i = 0; i < prior.length; i++) {
    if (!equals(ContextSectionSchema, prior[i]!, returned[i]!)) {
      return `it changed section "${prior[i]!.label}" of provider "${
        prior[i]!.provider
      }"`;
    }
  }
  const foreign = returned.slice(prior.length).find((s) =>
    s.provider !== provider
  );
  if (foreign) {
    return `it added section "${foreign.label}" under provider "${foreign.provider}"`;
  }
  return undefined;
}
