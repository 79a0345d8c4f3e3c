/**
 * Stage A decoding of `hook` blocks (config.md §2.6). Private to
 * `config/`; `decode.ts` calls it.
 *
 * @module
 */
import { type Diagnostic, didYouMean } from "../contract/diagnostic.ts";
import type { Block } from "./hcl/mod.ts";
import {
  HOOK_MODES,
  HOOK_POINTS,
  type HookMode,
  type HookPoint,
  type PlanHook,
} from "./plan.ts";
import {
  checkBody,
  checkEnum,
  diag,
  evalAttr,
  headerRange,
} from "./_schema.ts";
import type { UnknownProvider } from "./_decode_profile.ts";

/**
 * Decodes a `hook "<point>"` block (config.md §2.6): the hook point, the
 * subscribing provider, its mode and timeout.
 *
 * @param block The block.
 * @param declaredNames The local names `required_providers` declares.
 * @param unknownProvider Reports a provider name that is not declared.
 * @param diagnostics Where problems go.
 * @returns The hook, or `undefined` when the block is invalid.
 */
export function decodeHook(
  block: Block,
  declaredNames: ReadonlySet<string>,
  unknownProvider: UnknownProvider,
  diagnostics: Diagnostic[],
): PlanHook | undefined {
  const label = block.labels[0]!;
  const where = `hook "${label.value}"`;
  let ok = true;
  if (!(HOOK_POINTS as readonly string[]).includes(label.value)) {
    ok = false;
    const hint = didYouMean(label.value, HOOK_POINTS);
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Unknown hook point "${label.value}"`,
      label.value === "context-assemble"
        ? "context-assemble is not dispatched through hooks: context providers contribute there by their category, with no hook block."
        : `${hint ? `Did you mean "${hint}"? ` : ""}A hook block names one of ${
          HOOK_POINTS.map((p) => `"${p}"`).join(", ")
        }.`,
      label.range,
    ));
  }
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        provider: { type: "string", required: true },
        mode: { type: "string", required: true },
        timeout_ms: { type: "number" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const p = attrs.get("provider");
  const m = attrs.get("mode");
  const t = attrs.get("timeout_ms");
  const timeoutMs = t ? evalAttr(t, "number", where, diagnostics) : undefined;
  if (
    t && typeof timeoutMs === "number" &&
    !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)
  ) {
    ok = false;
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Invalid timeout_ms in ${where}`,
      `Expected a whole number of milliseconds above 0, got ${timeoutMs}.`,
      t.expr.range,
    ));
  }
  const provider = p ? evalAttr(p, "string", where, diagnostics) : undefined;
  const mode = m ? evalAttr(m, "string", where, diagnostics) : undefined;
  if (typeof provider === "string" && !declaredNames.has(provider)) {
    ok = false;
    unknownProvider(provider, "A hook's provider", p!.expr.range);
  }
  if (
    typeof mode === "string" &&
    !checkEnum(mode, HOOK_MODES, "mode", where, m!.expr.range, diagnostics)
  ) ok = false;
  if (!ok || typeof provider !== "string" || typeof mode !== "string") {
    return undefined;
  }
  return {
    point: label.value as HookPoint,
    provider,
    mode: mode as HookMode,
    ...(typeof timeoutMs === "number" ? { timeoutMs } : {}),
    position: block.range.start.byte,
    range: headerRange(block),
  };
}
