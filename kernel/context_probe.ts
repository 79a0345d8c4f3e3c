/**
 * What `check-config --explain` shows as a profile's assembled context:
 * {@linkcode measureContextChain} starts a plan's context and memory
 * providers alone, assembles the chain once as a session's first turn
 * would, and measures each section.
 *
 * @module
 */
import { resolve } from "node:path";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Plan, revealProviderConfig } from "../config/mod.ts";
import type { BuiltinCatalog } from "../contract/builtins.ts";
import {
  type ChainProvider,
  type ChainReport,
  providerContextAssembler,
  sectionTokens,
} from "./agent/provider_context.ts";
import { PluginHost } from "./plugin/host.ts";
import { SessionRegistry } from "./state/session_registry.ts";
import { ulid } from "./state/ulid.ts";
import { chainProviderOf, launchableOf, plainEnvOf } from "./_providers.ts";

/** One section of the context chain, as `check-config --explain` shows it. */
export interface MeasuredSection {
  /** The provider that contributed it. */
  readonly provider: string;
  /** Its label. */
  readonly label: string;
  /** Its tokens (through the kernel's CountTokens: the fallback formula here). */
  readonly tokens: number;
}

/** What {@linkcode measureContextChain} found. */
export interface MeasuredContext {
  /** The sections in chain order. */
  readonly sections: readonly MeasuredSection[];
  /** Per provider: what happened (`ok`, `failed`, `over_budget`, …). */
  readonly reports: readonly ChainReport[];
}

/**
 * Runs a compiled plan's context and memory providers once, as a session
 * started in `dir` would before its first model call, and reports the
 * assembled sections and their sizes. Only those providers are started
 * (no model, no tools); each gets its `token_budget` (or its default) and
 * no model ceiling. This is what `check-config --explain` shows as the
 * assembled context of every profile.
 *
 * @param dir The project directory.
 * @param plan The compiled plan.
 * @param env The environment (for granted variables).
 * @param builtins The first-party plugins `builtin/<name>` names.
 * @returns The sections, or `undefined` when the plan has no context or
 * memory provider.
 */
export async function measureContextChain(
  dir: string,
  plan: Plan,
  env: Readonly<Record<string, string | undefined>> = Deno.env.toObject(),
  builtins?: BuiltinCatalog,
): Promise<MeasuredContext | undefined> {
  const wanted = plan.providers.filter((p) =>
    p.category === "context" || p.category === "memory"
  );
  if (wanted.length === 0) return undefined;
  const root = resolve(dir);
  await using host = new PluginHost({
    env: plainEnvOf(env),
    cwd: root,
    sandbox: plan.settings.sandbox,
    services: { sessions: new SessionRegistry() },
  });
  const chain: ChainProvider[] = [];
  for (const p of wanted) {
    const { manifest, entrypoint, root: pluginRoot, configRoot } =
      await launchableOf(
        root,
        p,
        builtins,
        plan,
      );
    const config = revealProviderConfig(p) as JsonObject;
    const plugin = await host.launch({
      manifest,
      entrypoint,
      ...(pluginRoot ? { root: pluginRoot } : {}),
      ...(configRoot ? { configRoot } : {}),
      grant: p.permissions.granted,
      config,
      source: p.source,
      name: p.name,
      subscribe: p.permissions.subscribe ?? [],
    });
    chain.push(await chainProviderOf(plugin, p, config));
  }
  const reports: ChainReport[] = [];
  const assembled = await providerContextAssembler({
    providers: chain,
    onReport: (_s, _t, r) => reports.push(...r),
  }).assemble({
    history: [],
    budgetTokens: Number.MAX_SAFE_INTEGER,
    model: { provider: "", id: "", contextWindow: 0 },
    sections: [],
    sessionId: "check-config",
    turnId: ulid(),
    workingDirectory: root,
    signal: new AbortController().signal,
  });
  return {
    sections: assembled.sections.map((s) => ({
      provider: s.provider,
      label: s.label,
      tokens: sectionTokens(s),
    })),
    reports,
  };
}
