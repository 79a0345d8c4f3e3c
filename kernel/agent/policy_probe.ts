/**
 * The policy probe: what the kernel's gate would decide about one call,
 * computed offline (no plugin starts) by the code the kernel runs at run
 * time — `agent test` and `check-config` judge `agent.test.hcl` with it.
 *
 * For a call `{ provider, tool, input }` in a session of a profile, in the
 * kernel's order:
 *
 * 1. the session's spec ({@linkcode sessionSpecFromPlan}: the profile, its
 *    `tools` resolved against the tools the providers declare), and the
 *    remaining depth of a root session, or of a sub-agent spawned by a
 *    root session of `parent` (config/delegation.ts), with spawn-capable
 *    tools removed when it is 0 ({@linkcode capSpawnTools});
 * 2. a tool that is not in the resulting scope is never called (the
 *    dispatcher answers "not available in this session"): `deny` by
 *    `scope`;
 * 3. otherwise the {@linkcode ApprovalGate} evaluates the call as
 *    {@linkcode policyCallOfTool} describes it (kind, risk, and the
 *    `command` argument judged per shell segment): a data-source or
 *    interactive call passes the precheck (allow or deny, an `ask`
 *    downgraded to deny), a resource call becomes a plan item decided
 *    `allow`, `ask` or `deny`.
 *
 * Tool kinds and risk classes come from the declarations the caller passes
 * (the lock file's recorded tools, else the manifests'). Plugin hooks
 * (`pre-tool-call`, `plan-ready` vetoes) run in plugins and are not
 * consulted: they can only turn an allow into a deny.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import type { Diagnostic } from "../../contract/diagnostic.ts";
import { didYouMean } from "../../contract/diagnostic.ts";
import type {
  PolicyAction,
  RiskClass as PolicyRisk,
  ToolKind as PolicyKind,
} from "../../contract/policy.ts";
import {
  childRemainingDepth,
  rootRemainingDepth,
} from "../../config/delegation.ts";
import type { Plan, ToolDeclaration } from "../../config/plan.ts";
import {
  RiskClass,
  ToolKind,
  type ToolSchema,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { policyCallOfTool } from "./_call_record.ts";
import { ApprovalGate } from "./approval_gate.ts";
import { sessionSpecFromPlan } from "./session_spec_from_plan.ts";
import type { SessionSpec } from "./session_spec.ts";
import { capSpawnTools, isSpawnCapable } from "./spawn_tools.ts";

/** The call to judge. */
export interface PolicyProbeCall {
  /** The provider's local name. */
  readonly provider: string;
  /** The bare operation name. */
  readonly tool: string;
  /** The call's arguments. */
  readonly input: Readonly<Record<string, unknown>>;
}

/** Where the call is made. */
export interface PolicyProbeOptions {
  /** The session's profile. @default {the root profile ("default")} */
  readonly profile?: string;
  /**
   * The profile of the root session that spawned this one as a sub-agent.
   * @default {undefined}
   */
  readonly parent?: string;
}

/** What the gate decides. */
export interface PolicyProbeVerdict {
  /** The decision. */
  readonly action: PolicyAction;
  /**
   * The kernel's `decided_by` text (`policy:no_rm (segment "rm -rf x")`),
   * or why the call never reaches policy.
   */
  readonly decidedBy: string;
  /**
   * The deciding rule: a policy's name, `default` (no rule matched),
   * `unparseable` (a command that cannot be parsed), `scope` (not in the
   * session's tools) or `delegation` (the parent cannot spawn).
   */
  readonly rule: string;
  /** For a call with a command: the normalized deciding segment. */
  readonly segment?: string;
  /** A winning `ask` on a data-source or interactive call became `deny`. */
  readonly downgraded: boolean;
  /**
   * Where the decision is made: the data-source/interactive `precheck`,
   * the resource `plan`, or before policy (`scope`, `delegation`).
   */
  readonly gate: "precheck" | "plan" | "scope" | "delegation";
  /** The tool's kind, when it is declared. */
  readonly kind?: PolicyKind;
  /** The tool's risk class, when it is declared. */
  readonly risk?: PolicyRisk;
}

/** Why a call cannot be judged (a mistake in the test, not a decision). */
export interface PolicyProbeProblem {
  /** What is wrong. */
  readonly field: "profile" | "parent" | "provider" | "tool";
  /** The diagnostic (no range: the caller knows where the field is). */
  readonly diagnostic: Diagnostic;
}

/** What {@linkcode PolicyProbe.decide} returns. */
export type PolicyProbeResult =
  | { readonly verdict: PolicyProbeVerdict; readonly problem?: undefined }
  | { readonly verdict?: undefined; readonly problem: PolicyProbeProblem };

const KIND: Readonly<Record<PolicyKind, ToolKind>> = {
  resource: ToolKind.RESOURCE,
  data_source: ToolKind.DATA_SOURCE,
  interactive: ToolKind.INTERACTIVE,
};

const RISK: Readonly<Record<PolicyRisk, RiskClass>> = {
  read_only: RiskClass.READ_ONLY,
  low: RiskClass.LOW,
  moderate: RiskClass.MODERATE,
  high: RiskClass.HIGH,
  critical: RiskClass.CRITICAL,
};

/**
 * The schemas a session sees for declared tools (name, kind, risk: all
 * that policy and scoping read).
 *
 * @param declarations Each provider's declared tools.
 * @returns The schemas by provider.
 */
export function toolSchemasOf(
  declarations: ReadonlyMap<string, readonly ToolDeclaration[]>,
): Map<string, ToolSchema[]> {
  return new Map(
    [...declarations].map(([provider, tools]) => [
      provider,
      tools.map((t) =>
        create(ToolSchemaSchema, {
          name: t.name,
          kind: KIND[t.kind],
          risk: RISK[t.risk],
        })
      ),
    ]),
  );
}

interface Session {
  readonly spec: SessionSpec;
  readonly gate: ApprovalGate;
  /** Why the session cannot exist (a parent that cannot spawn). */
  readonly refused?: string;
}

/** Judges calls offline with the kernel's gate; caches one spec per profile. */
export class PolicyProbe {
  readonly #plan: Plan;
  readonly #declared: ReadonlyMap<string, readonly ToolDeclaration[]>;
  readonly #schemas: Map<string, ToolSchema[]>;
  readonly #sessions = new Map<string, Session | PolicyProbeProblem>();

  /**
   * Creates the probe.
   *
   * @param plan The compiled configuration.
   * @param declarations Each tool provider's declared tools (kinds and
   *   risks), e.g. from the lock file.
   */
  constructor(
    plan: Plan,
    declarations: ReadonlyMap<string, readonly ToolDeclaration[]>,
  ) {
    this.#plan = plan;
    this.#declared = declarations;
    this.#schemas = toolSchemasOf(declarations);
  }

  /**
   * Decides one call.
   *
   * @example Usage
   * ```ts ignore
   * const probe = new PolicyProbe(plan, declarationsFromLock);
   * const r = probe.decide({ provider: "sh", tool: "bash", input: { command: "ls && rm -rf x" } });
   * console.log(r.verdict?.action, r.verdict?.rule, r.verdict?.segment);
   * ```
   *
   * @param call Provider, tool and arguments.
   * @param options The profile (and the delegating parent).
   * @returns The verdict, or the problem that prevents one.
   */
  decide(
    call: PolicyProbeCall,
    options: PolicyProbeOptions = {},
  ): PolicyProbeResult {
    const session = this.#session(options);
    if ("diagnostic" in session) return { problem: session };
    const provider = this.#plan.providers.find((p) => p.name === call.provider);
    const tools = this.#plan.providers.filter((p) => p.category === "tool");
    if (!provider) {
      const hint = didYouMean(call.provider, tools.map((p) => p.name));
      return problem(
        "provider",
        "E_UNKNOWN_PROVIDER",
        `Unknown provider "${call.provider}"`,
        `${
          hint ? `Did you mean "${hint}"? ` : ""
        }A test's call must name a provider declared in required_providers.`,
      );
    }
    const declared = this.#declared.get(call.provider);
    if (declared === undefined) {
      return problem(
        "provider",
        "E_TOOLS_UNKNOWN",
        `Cannot judge a call to provider "${call.provider}" offline`,
        `Neither the lock file nor the plugin's manifest declares its tools (kinds and risk classes), so they are only known when it runs.`,
      );
    }
    const decl = declared.find((t) => t.name === call.tool);
    if (!decl) {
      const hint = didYouMean(call.tool, declared.map((t) => t.name));
      return problem(
        "tool",
        "E_TOOL_UNKNOWN",
        `Unknown tool "${call.provider}.${call.tool}"`,
        `${hint ? `Did you mean "${hint}"? ` : ""}Provider "${call.provider}" ${
          declared.length === 0
            ? "declares no tools"
            : `declares: ${declared.map((t) => `"${t.name}"`).join(", ")}`
        }.`,
      );
    }
    const known = { kind: decl.kind, risk: decl.risk };
    if (session.refused !== undefined) {
      return {
        verdict: {
          action: "deny",
          decidedBy: session.refused,
          rule: "delegation",
          downgraded: false,
          gate: "delegation",
          ...known,
        },
      };
    }
    const schema = session.spec.tools?.get(call.provider)?.find((s) =>
      s.name === call.tool
    );
    if (!schema) {
      return {
        verdict: {
          action: "deny",
          decidedBy: `scope: "${call.provider}.${call.tool}" is not ${
            isSpawnCapable(session.spec, call.provider, call.tool) &&
              this.#inScope(session.spec.profile, call)
              ? "available: the session's remaining depth is 0"
              : "in the tools"
          } of profile "${session.spec.profile}"`,
          rule: "scope",
          downgraded: false,
          gate: "scope",
          ...known,
        },
      };
    }
    const v = session.gate.evaluate(
      policyCallOfTool(call.provider, schema, call.input),
    );
    return {
      verdict: {
        action: v.action,
        decidedBy: v.decidedBy,
        rule: ruleOf(v.decidedBy, v.segment),
        ...(v.segment !== undefined ? { segment: v.segment } : {}),
        downgraded: v.downgraded,
        gate: schema.kind === ToolKind.RESOURCE ? "plan" : "precheck",
        ...known,
      },
    };
  }

  // Whether the profile's own tools name the call (before depth capping).
  #inScope(profile: string, call: PolicyProbeCall): boolean {
    const p = this.#plan.profiles.find((x) => x.name === profile);
    return p?.tools.some((t) =>
      t.provider === call.provider && (t.wildcard || t.tool === call.tool)
    ) ?? false;
  }

  #spec(profile: string | undefined): SessionSpec | PolicyProbeProblem {
    const r = sessionSpecFromPlan(this.#plan, {
      ...(profile !== undefined ? { profile } : {}),
      toolSchemas: this.#schemas,
      workingDirectory: ".",
      // Policy never reads the model chain: a placeholder stands for the
      // kernel's built-in routing when the profile has no model block.
      defaultModels: [{ provider: "(built-in)", id: "(built-in)" }],
      onAsk: "deny",
    });
    if (r.spec) return r.spec;
    const { range: _, ...d } = r.diagnostics.find((x) =>
      x.severity === "error"
    )!;
    // An unknown profile, or a profile whose tools cannot be resolved.
    return { field: "profile", diagnostic: d };
  }

  #session(options: PolicyProbeOptions): Session | PolicyProbeProblem {
    const key = `${options.profile ?? ""}\u0000${options.parent ?? ""}`;
    const cached = this.#sessions.get(key);
    if (cached) return cached;
    const made = this.#makeSession(options);
    this.#sessions.set(key, made);
    return made;
  }

  #makeSession(options: PolicyProbeOptions): Session | PolicyProbeProblem {
    const spec = this.#spec(options.profile);
    if ("diagnostic" in spec) return spec;
    const maxDepth = (name: string) =>
      this.#plan.profiles.find((p) => p.name === name)?.bounds.maxDepth;
    let remaining = rootRemainingDepth(maxDepth(spec.profile));
    let refused: string | undefined;
    if (options.parent !== undefined) {
      const parent = this.#spec(options.parent);
      if ("diagnostic" in parent) return { ...parent, field: "parent" };
      const parentRemaining = rootRemainingDepth(maxDepth(parent.profile));
      const capped = capSpawnTools(parent, parentRemaining);
      const spawners = [...(capped.tools ?? new Map())].flatMap((
        [provider, schemas],
      ) =>
        (schemas as readonly { name: string }[]).filter((s) =>
          isSpawnCapable(capped, provider, s.name)
        )
      );
      if (!(parentRemaining > 0)) {
        refused =
          `delegation: profile "${parent.profile}" cannot spawn a sub-agent: its remaining depth is ${parentRemaining}`;
      } else if (spawners.length === 0) {
        refused =
          `delegation: profile "${parent.profile}" cannot spawn a sub-agent: no spawn-capable tool is in its tools`;
      }
      remaining = childRemainingDepth(parentRemaining, maxDepth(spec.profile));
    }
    const scoped = capSpawnTools(spec, remaining);
    return {
      spec: scoped,
      gate: new ApprovalGate({
        sessionId: "agent-test",
        profile: scoped.profile,
        rules: scoped.policies ?? [],
        onAsk: "deny",
        askTimeoutMs: 0,
        emit: () => {},
      }),
      ...(refused !== undefined ? { refused } : {}),
    };
  }
}

function problem(
  field: PolicyProbeProblem["field"],
  code: string,
  summary: string,
  detail: string,
): PolicyProbeResult {
  return {
    problem: {
      field,
      diagnostic: { severity: "error", code, summary, detail },
    },
  };
}

/** The rule name in a gate's `decided_by` text. */
function ruleOf(decidedBy: string, segment: string | undefined): string {
  let s = decidedBy.replace(/^policy:/, "");
  if (s.startsWith("unparseable command (")) return "unparseable";
  const suffix = segment === undefined
    ? undefined
    : ` (segment ${JSON.stringify(segment)})`;
  if (suffix !== undefined && s.endsWith(suffix)) {
    s = s.slice(0, -suffix.length);
  }
  return s === "" ? "default" : s;
}
