/**
 * Stage A decoding of `agent_profile` blocks (config.md §2.5, §7): the
 * profile's closed schema, its `model {}` chain, tool scope, loop bounds
 * and `generation {}` settings. Private to `config/`; `decode.ts` calls it.
 *
 * @module
 */
import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import type { Attribute, Block } from "./hcl/mod.ts";
import {
  E_MISSING_FIELD,
  E_SLASH_COMMAND_ENTRY,
  W_NO_EFFECT,
} from "./codes.ts";
import { directInvokeEntry } from "./profiles.ts";
import type {
  GenerationSettings,
  ModelRef,
  ModelRouting,
} from "./model_routing.ts";
import { parseToolScope } from "./tool_scope.ts";
import { CHANNEL_NAMES } from "../contract/control_channels.ts";
import { didYouMean } from "../contract/diagnostic.ts";
import { type ProfileBounds, validateBounds } from "./profile_bounds.ts";
import type { PlanControlPlane, PlanProfile } from "./plan.ts";
import {
  checkBody,
  diag,
  evalAttr,
  headerRange,
  itemRanges,
} from "./_schema.ts";

/** Reports a provider name that `required_providers` does not declare. */
export type UnknownProvider = (
  name: string,
  what: string,
  range: SourceRange,
) => void;

const PROFILE_SCHEMA = {
  attributes: {
    tools: { type: "list(string)" },
    slash_commands: { type: "list(string)" },
    max_turns: { type: "number" },
    max_cost_usd: { type: "number" },
    max_wall_clock_s: { type: "number" },
    max_depth: { type: "number" },
    max_concurrent_subagents: { type: "number" },
    doom_loop_threshold: { type: "number" },
    max_result_bytes: { type: "number" },
    kind: { type: "string" },
    max_judge_rounds: { type: "number" },
  },
  blocks: {
    model: { labels: [], unique: "type" },
    generation: { labels: [], unique: "type" },
    control_plane: { labels: [], unique: "type" },
  },
} as const;

const BOUND_OF: Readonly<Record<string, keyof ProfileBounds>> = {
  max_turns: "maxTurns",
  max_cost_usd: "maxCostUsd",
  max_wall_clock_s: "maxWallClockS",
  max_depth: "maxDepth",
  max_concurrent_subagents: "maxConcurrentSubagents",
  doom_loop_threshold: "doomLoopThreshold",
  max_result_bytes: "maxResultBytes",
};

const BOUND_OF_ENTRIES = Object.entries(BOUND_OF);

/**
 * Decodes an `agent_profile "<name>"` block (config.md §2.5): its closed
 * schema, the `model {}` chain, the tool scope, `slash_commands`, the loop
 * bounds and `generation {}`.
 *
 * @param block The block.
 * @param declaredNames The local names `required_providers` declares.
 * @param unknownProvider Reports a provider name that is not declared.
 * @param diagnostics Where problems go.
 * @returns The profile, or `undefined` when the block is unusable.
 */
export function decodeProfile(
  block: Block,
  declaredNames: ReadonlySet<string>,
  unknownProvider: UnknownProvider,
  diagnostics: Diagnostic[],
): PlanProfile | undefined {
  const name = block.labels[0]!.value;
  const where = `agent_profile "${name}"`;
  const { attrs, blocks } = checkBody(
    block.body,
    PROFILE_SCHEMA,
    where,
    diagnostics,
    headerRange(block),
  );
  const modelBlock = blocks.get("model")?.[0];
  const model = modelBlock === undefined ? undefined : decodeModelRouting(
    modelBlock,
    where,
    declaredNames,
    unknownProvider,
    diagnostics,
  );
  const list = (n: string): string[] | undefined => {
    const a = attrs.get(n);
    return a
      ? evalAttr(a, "list(string)", where, diagnostics) as string[] | undefined
      : undefined;
  };
  const toolsAttr = attrs.get("tools");
  const toolList = list("tools");
  const scope = parseToolScope(toolList, {
    ranges: toolsAttr ? itemRanges(toolsAttr.expr) : [],
    declaredProviders: declaredNames,
    profile: name,
  });
  for (const each of scope.diagnostics) diagnostics.push(each);
  const slashAttr = attrs.get("slash_commands");
  const slash = list("slash_commands") ?? [];
  const slashRanges = slashAttr ? itemRanges(slashAttr.expr) : [];
  slash.forEach((entry, i) => {
    const d = directInvokeEntry(entry);
    const range = slashRanges[i] ?? slashAttr!.expr.range;
    if (!d) return;
    if (d.provider === "" || d.command === "") {
      diagnostics.push(diag(
        "error",
        E_SLASH_COMMAND_ENTRY,
        `Malformed slash_commands entry "${entry}"`,
        `In ${where}, write "<provider>.<command>" or "<provider>.*" for a slash-command provider's direct-invoke commands, or a plain name for a prompt-expansion command.`,
        range,
      ));
    } else if (!declaredNames.has(d.provider)) {
      unknownProvider(
        d.provider,
        `The slash_commands entry "${entry}" of ${where}`,
        range,
      );
    }
  });
  const bounds = decodeBounds(attrs, name, where, diagnostics);
  const profile: PlanProfile = {
    name,
    tools: scope.entries,
    slashCommands: [...new Set(slash)],
    ...(slashAttr
      ? {
        slashRanges: [...new Set(slash)].map((e) =>
          slashRanges[slash.indexOf(e)] ?? slashAttr.expr.range
        ),
      }
      : {}),
    bounds,
    range: headerRange(block),
  };
  if (model !== undefined) profile.model = model;
  const cpBlock = blocks.get("control_plane")?.[0];
  if (cpBlock !== undefined) {
    const cp = decodeControlPlane(cpBlock, where, diagnostics);
    if (cp) profile.controlPlane = cp;
  }
  const genBlock = blocks.get("generation")?.[0];
  if (genBlock !== undefined) {
    const generation = decodeGeneration(genBlock, where, diagnostics);
    if (generation) profile.generation = generation;
  }
  decodeJudge(attrs, profile, where, diagnostics);
  return profile;
}

const PROFILE_KINDS = ["agent", "judge"];

// `kind` ("agent", the default, or "judge") and a judge's
// `max_judge_rounds`; settings a judge cannot use are warned about.
function decodeJudge(
  attrs: ReadonlyMap<string, Attribute>,
  profile: PlanProfile,
  where: string,
  diagnostics: Diagnostic[],
): void {
  const kindAttr = attrs.get("kind");
  const kind = kindAttr
    ? evalAttr(kindAttr, "string", where, diagnostics)
    : undefined;
  if (typeof kind === "string" && !PROFILE_KINDS.includes(kind)) {
    const hint = didYouMean(kind, PROFILE_KINDS);
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Unknown profile kind "${kind}" in ${where}`,
      `${
        hint ? `Did you mean "${hint}"? ` : ""
      }kind is "agent" (the default: a profile that does the work) or "judge" (a profile that reviews another session's result and answers with <cp:judge-directive>).`,
      kindAttr!.expr.range,
    ));
  }
  const judge = kind === "judge";
  if (judge) profile.kind = "judge";
  const roundsAttr = attrs.get("max_judge_rounds");
  if (roundsAttr) {
    const v = evalAttr(roundsAttr, "number", where, diagnostics);
    if (typeof v === "number" && (!Number.isSafeInteger(v) || v < 1)) {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid max_judge_rounds in ${where}`,
        `Expected a whole number of at least 1 (the most verdicts one judged run asks for), got ${v}.`,
        roundsAttr.expr.range,
      ));
    } else if (typeof v === "number" && !judge) {
      diagnostics.push(diag(
        "warning",
        W_NO_EFFECT,
        `max_judge_rounds has no effect in ${where}`,
        'Only a judge profile (kind = "judge") uses max_judge_rounds; this profile is an ordinary agent.',
        roundsAttr.expr.range,
      ));
    } else if (typeof v === "number") profile.maxJudgeRounds = v;
  }
  if (!judge) return;
  for (const name of ["max_depth", "max_concurrent_subagents"]) {
    const a = attrs.get(name);
    if (!a) continue;
    diagnostics.push(diag(
      "warning",
      W_NO_EFFECT,
      `${name} has no effect in ${where}`,
      "A judge runs as a child of the session it reviews with no depth left: it cannot spawn sub-agents.",
      a.expr.range,
    ));
  }
  if (profile.controlPlane?.disable.includes("judge-directive")) {
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `A judge cannot disable judge-directive in ${where}`,
      "A judge answers with <cp:judge-directive>; with the channel disabled no verdict could ever be read. Remove it from control_plane { disable }.",
      profile.range,
    ));
  }
}

// A profile's `model {}` block: the `primary` reference and the `fallback`
// chain; `undefined` when any reference is missing or invalid.
function decodeModelRouting(
  modelBlock: Block,
  where: string,
  declaredNames: ReadonlySet<string>,
  unknownProvider: UnknownProvider,
  diagnostics: Diagnostic[],
): ModelRouting | undefined {
  const mb = checkBody(
    modelBlock.body,
    {
      attributes: {},
      blocks: {
        primary: { labels: [], unique: "type" },
        fallback: { labels: [] },
      },
    },
    `the model block of ${where}`,
    diagnostics,
    headerRange(modelBlock),
  );
  const ref = (b: Block): ModelRef | undefined => {
    const rb = checkBody(
      b.body,
      {
        attributes: {
          provider: { type: "string", required: true },
          id: { type: "string", required: true },
        },
        blocks: {},
      },
      `${b.type} of ${where}`,
      diagnostics,
      headerRange(b),
    );
    const p = rb.attrs.get("provider");
    const i = rb.attrs.get("id");
    const pv = p
      ? evalAttr(p, "string", `${b.type} of ${where}`, diagnostics)
      : undefined;
    const iv = i
      ? evalAttr(i, "string", `${b.type} of ${where}`, diagnostics)
      : undefined;
    if (typeof pv !== "string" || typeof iv !== "string") return undefined;
    if (!declaredNames.has(pv)) {
      unknownProvider(pv, `A model's provider`, p!.expr.range);
      return undefined;
    }
    return { provider: pv, id: iv, range: headerRange(b) };
  };
  const primaryBlock = mb.blocks.get("primary")?.[0];
  if (primaryBlock === undefined) {
    diagnostics.push(diag(
      "error",
      E_MISSING_FIELD,
      `Missing primary model in ${where}`,
      'A model block needs exactly one primary { provider = "...", id = "..." } block, then any fallback blocks in order of preference.',
      headerRange(modelBlock),
    ));
  }
  const primary = primaryBlock ? ref(primaryBlock) : undefined;
  const fallbacks = (mb.blocks.get("fallback") ?? []).map(ref);
  if (primary !== undefined && fallbacks.every((f) => f !== undefined)) {
    return { primary, fallbacks: fallbacks as ModelRef[] };
  }
  return undefined;
}

// The loop bounds (`max_turns`, …) a profile sets, checked together.
function decodeBounds(
  attrs: ReadonlyMap<string, Attribute>,
  name: string,
  where: string,
  diagnostics: Diagnostic[],
): ProfileBounds {
  const bounds: ProfileBounds = {};
  const boundRanges: { [K in keyof ProfileBounds]?: SourceRange } = {};
  for (const [attrName, field] of BOUND_OF_ENTRIES) {
    const a = attrs.get(attrName);
    if (a === undefined) continue;
    const v = evalAttr(a, "number", where, diagnostics);
    if (typeof v === "number") {
      bounds[field] = v;
      boundRanges[field] = a.expr.range;
    }
  }
  diagnostics.push(
    ...validateBounds(bounds, { profile: name, ranges: boundRanges }),
  );
  return bounds;
}

/**
 * `generation {}` in a profile: the request's generation parameters. Types
 * and ranges are checked here; each value is checked against the chosen
 * model's declared capabilities per turn.
 */
function decodeGeneration(
  block: Block,
  profile: string,
  diagnostics: Diagnostic[],
): GenerationSettings | undefined {
  const where = `the generation block of ${profile}`;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        thinking_effort: { type: "string" },
        thinking_budget_tokens: { type: "number" },
        max_output_tokens: { type: "number" },
        temperature: { type: "number" },
        stop_sequences: { type: "list(string)" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const out: GenerationSettings = {};
  let ok = true;
  const bad = (name: string, detail: string, range: SourceRange) => {
    ok = false;
    diagnostics.push(
      diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid ${name} in ${where}`,
        detail,
        range,
      ),
    );
  };
  const effort = attrs.get("thinking_effort");
  if (effort) {
    const v = evalAttr(effort, "string", where, diagnostics);
    if (typeof v === "string") {
      if (v.trim() === "") {
        bad(
          "thinking_effort",
          'Expected an effort level such as "high", got an empty string.',
          effort.expr.range,
        );
      } else out.thinkingEffort = v;
    } else ok = false;
  }
  for (
    const [name, field, min] of [
      ["thinking_budget_tokens", "thinkingBudgetTokens", 0],
      ["max_output_tokens", "maxOutputTokens", 1],
    ] as const
  ) {
    const a = attrs.get(name);
    if (!a) continue;
    const v = evalAttr(a, "number", where, diagnostics);
    if (typeof v !== "number") {
      ok = false;
    } else if (!Number.isSafeInteger(v) || v < min) {
      bad(
        name,
        `Expected a whole number of tokens of at least ${min}, got ${v}.`,
        a.expr.range,
      );
    } else out[field] = v;
  }
  const t = attrs.get("temperature");
  if (t) {
    const v = evalAttr(t, "number", where, diagnostics);
    if (typeof v !== "number") ok = false;
    else if (!Number.isFinite(v) || v < 0) {
      bad(
        "temperature",
        `Expected a finite number of at least 0, got ${v}.`,
        t.expr.range,
      );
    } else out.temperature = v;
  }
  const stops = attrs.get("stop_sequences");
  if (stops) {
    const v = evalAttr(stops, "list(string)", where, diagnostics);
    if (Array.isArray(v)) out.stopSequences = v as string[];
    else ok = false;
  }
  return ok ? out : undefined;
}

const TOPIC_FILTER_REGEXP = /^(\*|[a-z0-9_-]+(\.[a-z0-9_-]+)*(\.\*)?)$/;

/**
 * `control_plane {}` in a profile (seed 004): `disable` (channel names,
 * with a did-you-mean for a typo), `topics` (event-bus topic filters that
 * fire `event-trigger`), `turn_summaries` (remind the agent of a turn
 * without `<cp:compact>`) and `timer "<name>" { every_s, text }` blocks.
 */
function decodeControlPlane(
  block: Block,
  profile: string,
  diagnostics: Diagnostic[],
): PlanControlPlane | undefined {
  const where = `the control_plane block of ${profile}`;
  const { attrs, blocks } = checkBody(
    block.body,
    {
      attributes: {
        disable: { type: "list(string)" },
        topics: { type: "list(string)" },
        turn_summaries: { type: "bool" },
        watch_fs: { type: "bool" },
      },
      blocks: {
        timer: { labels: ["name"], unique: "label" },
        hook: { labels: ["name"], unique: "label" },
      },
    },
    where,
    diagnostics,
    headerRange(block),
  );
  let ok = true;
  const out: PlanControlPlane = { disable: [], topics: [], timers: [] };
  const disableAttr = attrs.get("disable");
  if (disableAttr) {
    const names = evalAttr(disableAttr, "list(string)", where, diagnostics) as
      | string[]
      | undefined;
    const ranges = itemRanges(disableAttr.expr);
    names?.forEach((name, i) => {
      if (CHANNEL_NAMES.includes(name)) {
        if (!out.disable.includes(name)) out.disable.push(name);
        return;
      }
      ok = false;
      const hint = didYouMean(name, CHANNEL_NAMES);
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Unknown control-plane channel "${name}" in ${where}`,
        `${
          hint ? `Did you mean "${hint}"? ` : ""
        }disable names channels of the control plane: ${
          CHANNEL_NAMES.map((c) => `"${c}"`).join(", ")
        }.`,
        ranges[i] ?? disableAttr.expr.range,
      ));
    });
  }
  const topicsAttr = attrs.get("topics");
  if (topicsAttr) {
    const topics = evalAttr(topicsAttr, "list(string)", where, diagnostics) as
      | string[]
      | undefined;
    const ranges = itemRanges(topicsAttr.expr);
    topics?.forEach((t, i) => {
      if (TOPIC_FILTER_REGEXP.test(t)) {
        out.topics.push(t);
        return;
      }
      ok = false;
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid event-bus topic filter "${t}" in ${where}`,
        'A filter is an exact topic of dot-separated [a-z0-9_-] segments, optionally ending in ".*" (e.g. "plugin.tool.watch.*"), or "*".',
        ranges[i] ?? topicsAttr.expr.range,
      ));
    });
  }
  const watchAttr = attrs.get("watch_fs");
  if (watchAttr) {
    const v = evalAttr(watchAttr, "bool", where, diagnostics);
    if (typeof v !== "boolean") ok = false;
    else if (v) out.watchFs = true;
  }
  const summariesAttr = attrs.get("turn_summaries");
  if (summariesAttr) {
    const v = evalAttr(summariesAttr, "bool", where, diagnostics);
    if (typeof v !== "boolean") ok = false;
    else if (v) {
      // The reminder and the summary it asks for both need their channel.
      const off = ["turn-summary-missing", "compact"].filter((c) =>
        out.disable.includes(c)
      );
      if (off.length) {
        ok = false;
        diagnostics.push(diag(
          "error",
          "E_INVALID_VALUE",
          `turn_summaries = true needs the ${
            off.map((c) => `"${c}"`).join(" and ")
          } channel${off.length > 1 ? "s" : ""} in ${where}`,
          "The agent writes its turn summary as <cp:compact> and is reminded by <cp:turn-summary-missing>: remove them from disable, or drop turn_summaries.",
          summariesAttr.expr.range,
        ));
      } else out.turnSummaries = true;
    }
  }
  for (const t of blocks.get("timer") ?? []) {
    const name = t.labels[0]!.value;
    const tw = `timer "${name}" of ${where}`;
    const tb = checkBody(
      t.body,
      {
        attributes: {
          every_s: { type: "number", required: true },
          text: { type: "string", required: true },
        },
        blocks: {},
      },
      tw,
      diagnostics,
      headerRange(t),
    );
    const everyAttr = tb.attrs.get("every_s");
    const textAttr = tb.attrs.get("text");
    const every = everyAttr
      ? evalAttr(everyAttr, "number", tw, diagnostics)
      : undefined;
    const text = textAttr
      ? evalAttr(textAttr, "string", tw, diagnostics)
      : undefined;
    if (typeof every === "number" && !(every >= 1 && Number.isFinite(every))) {
      ok = false;
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid every_s = ${every} in ${tw}`,
        "every_s is the number of seconds between firings: at least 1.",
        everyAttr!.expr.range,
      ));
    }
    if (typeof text === "string" && text.trim() === "") {
      ok = false;
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Empty text in ${tw}`,
        "text is what the event-trigger tells the agent: say what to check.",
        textAttr!.expr.range,
      ));
    }
    if (typeof every === "number" && typeof text === "string") {
      out.timers.push({ name, everyS: every, text });
    } else ok = false;
  }
  for (const h of blocks.get("hook") ?? []) {
    const hook = decodeTriggerHook(h, where, diagnostics);
    if (hook) (out.hooks ??= []).push(hook);
    else ok = false;
  }
  return ok ? out : undefined;
}

/** A `hook "<name>" { on, text }` trigger hook of `control_plane {}`. */
function decodeTriggerHook(
  h: Block,
  where: string,
  diagnostics: Diagnostic[],
): { name: string; on: string; text: string } | undefined {
  const name = h.labels[0]!.value;
  const hw = `hook "${name}" of ${where}`;
  const hb = checkBody(
    h.body,
    {
      attributes: {
        on: { type: "string", required: true },
        text: { type: "string", required: true },
      },
      blocks: {},
    },
    hw,
    diagnostics,
    headerRange(h),
  );
  const onAttr = hb.attrs.get("on");
  const textAttr = hb.attrs.get("text");
  const on = onAttr ? evalAttr(onAttr, "string", hw, diagnostics) : undefined;
  const text = textAttr
    ? evalAttr(textAttr, "string", hw, diagnostics)
    : undefined;
  let ok = typeof on === "string" && typeof text === "string";
  if (typeof on === "string" && !TOPIC_FILTER_REGEXP.test(on)) {
    ok = false;
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Invalid event-bus topic filter "${on}" in ${hw}`,
      'on is the topic that fires the hook: an exact topic of dot-separated [a-z0-9_-] segments, optionally ending in ".*" (e.g. "plugin.tool.ci.*"), or "*".',
      onAttr!.expr.range,
    ));
  }
  if (typeof text === "string" && text.trim() === "") {
    ok = false;
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Empty text in ${hw}`,
      "text is the line the hook puts before the agent: say what to do.",
      textAttr!.expr.range,
    ));
  }
  return ok ? { name, on: on as string, text: text as string } : undefined;
}
