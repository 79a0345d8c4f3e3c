/**
 * Step 1 of a turn, `context-assemble`: the history and the budget in, the
 * request's messages and `assembled_context` out. Context providers
 * (`ContextService.Contribute`) plug in here later; the built-in
 * {@linkcode passThroughAssembler} sends the history unchanged with the
 * profile's system prompt and preamble sections.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type ContextSection,
  ContextSectionSchema,
  type Message,
  Stability,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { fallbackTokenCount } from "../../contract/tokens.ts";
import { textBlock } from "./_proto.ts";
import type { PreambleSection } from "./session_spec.ts";
import type { RecalledMemory } from "../control/memory_channels.ts";

/** What {@linkcode ContextAssembler.assemble} gets. */
export interface ContextAssemblyInput {
  /** The durable history. */
  readonly history: readonly Message[];
  /** `context_window − reserved_output − system_overhead` of the chosen model. */
  readonly budgetTokens: number;
  /** The chosen model. */
  readonly model: {
    readonly provider: string;
    readonly id: string;
    readonly contextWindow: number;
  };
  /** The profile's system prompt and preamble as sections. */
  readonly sections: readonly ContextSection[];
  /** The session. */
  readonly sessionId: string;
  /** The turn. */
  readonly turnId: string;
  /** The session's working directory. */
  readonly workingDirectory?: string;
  /**
   * Paths the session's tool calls named so far (a `path` argument, or the
   * `path` of each entry of a `files` list), oldest first: for
   * just-in-time context and recall.
   */
  readonly filesTouched?: readonly string[];
  /** The turn's signal. */
  readonly signal: AbortSignal;
  /**
   * The history's tokens, counted by the kernel (exactly when the model's
   * provider has a tokenizer); absent, the fallback formula applies.
   */
  readonly historyTokens?: number;
  /** Asks the compactors for a pass whatever the fill (`compactNow()`). */
  readonly forceCompaction?: boolean;
}

/** What {@linkcode ContextAssembler.assemble} returns. */
export interface ContextAssembly {
  /** The request's messages. */
  readonly messages: Message[];
  /** The request's `assembled_context`, in chain order. */
  readonly sections: ContextSection[];
  /**
   * The compactor whose `rewritten_history` replaced the messages: the
   * kernel makes the rewrite durable (the session's history becomes
   * `messages`).
   */
  readonly rewrittenBy?: string;
  /** Why a compactor's contribution was not used, when it failed. */
  readonly compactionFailure?: string;
  /**
   * The memory records recalled into `sections`, in chain order (the
   * turn's `memory-recall` names them).
   */
  readonly recalled?: readonly RecalledMemory[];
}

/** Builds a model request's context from the history (step 1). */
export interface ContextAssembler {
  /**
   * Assembles one request.
   *
   * @param input History, budget, model and sections.
   * @returns Messages and sections.
   */
  assemble(input: ContextAssemblyInput): Promise<ContextAssembly>;
  /** The local names of the chain's compactors (none when absent). */
  readonly compactors?: readonly string[];
}

/**
 * The sections of a system prompt and preamble (provider `kernel`, token
 * counts from the kernel's fallback formula, `STATIC`).
 *
 * @param systemPrompt The system prompt.
 * @param preamble Further sections.
 * @returns The sections.
 */
export function preambleSections(
  systemPrompt: string | undefined,
  preamble: readonly PreambleSection[],
): ContextSection[] {
  const all = [
    ...(systemPrompt ? [{ label: "system", text: systemPrompt }] : []),
    ...preamble,
  ];
  return all.map((s) => {
    const content = [textBlock(s.text)];
    return create(ContextSectionSchema, {
      provider: "kernel",
      label: s.label,
      content,
      tokens: BigInt(fallbackTokenCount(content)),
      stability: Stability.STATIC,
    });
  });
}

/** Sends the history as it is, with the profile's sections. */
export const passThroughAssembler: ContextAssembler = {
  assemble(input) {
    return Promise.resolve({
      messages: [...input.history],
      sections: [...input.sections],
    });
  },
};
