/**
 * The topic and filter grammar of the event bus (kernel.md §4.2, §4.3).
 *
 * - A topic is dot-separated segments; each segment is `[a-z0-9_-]+`. `*`
 *   is never a literal character.
 * - Plugin topics are `plugin.{category}.{name}.{event_type}`, built by
 *   {@linkcode pluginTopic} from the server-derived identity; only
 *   `event_type` comes from the caller, and it must be one `[a-z0-9_]+`
 *   segment. `kernel.*` is publishable by the kernel alone.
 * - A filter is an exact topic, `*` alone (everything), or a prefix ending
 *   in `.*`, which matches topics with every segment before `*` and at
 *   least one more (`plugin.tool.github.*` matches
 *   `plugin.tool.github.pr_opened`, not `plugin.tool.github`).
 *
 * Deviation from §4.2: plugin names may contain `-` (the manifest grammar is
 * `[a-z][a-z0-9_-]*`), so topic segments accept `-`. Rewriting `-` to `_`
 * instead would let `my-tool` and `my_tool` share topics, which breaks the
 * no-impersonation rule. `event_type` keeps the strict `[a-z0-9_]+`.
 *
 * @module
 */
import type { CategoryName } from "../../contract/manifest.ts";
import {
  InvalidPublishError,
  InvalidTopicError,
  InvalidTopicFilterError,
} from "./errors.ts";

const SEGMENT_REGEXP = /^[a-z0-9_-]+$/;
const EVENT_TYPE_REGEXP = /^[a-z0-9_]+$/;

function segmentProblem(topic: string): string | undefined {
  if (topic === "") return "it is empty";
  if (topic.includes("*")) return "`*` is not allowed in a topic";
  for (const seg of topic.split(".")) {
    if (seg === "") return "it has an empty segment";
    if (!SEGMENT_REGEXP.test(seg)) {
      return `segment "${seg}" must match [a-z0-9_-]+`;
    }
  }
  return undefined;
}

/**
 * Checks a topic against the grammar.
 *
 * @example Usage
 * ```ts
 * import { validateTopic } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * validateTopic("kernel.event.tool_call");
 * assert.throws(() => validateTopic("kernel..x"));
 * ```
 *
 * @param topic The topic.
 * @throws {InvalidTopicError} When it breaks the grammar.
 */
export function validateTopic(topic: string): void {
  const problem = segmentProblem(topic);
  if (problem) throw new InvalidTopicError(topic, problem);
}

/**
 * Checks a subscription filter against the grammar.
 *
 * @example Usage
 * ```ts
 * import { validateFilter } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * validateFilter("plugin.tool.github.*");
 * validateFilter("*");
 * assert.throws(() => validateFilter("plugin.*.github"));
 * assert.throws(() => validateFilter("plugin.tool*"));
 * ```
 *
 * @param filter The filter.
 * @throws {InvalidTopicFilterError} When it breaks the grammar.
 */
export function validateFilter(filter: string): void {
  if (filter === "*") return;
  if (filter === "") throw new InvalidTopicFilterError(filter, "it is empty");
  const star = filter.indexOf("*");
  if (star !== -1 && (star !== filter.length - 1 || !filter.endsWith(".*"))) {
    throw new InvalidTopicFilterError(
      filter,
      "`*` may only be the whole filter or its last segment, after a `.`",
    );
  }
  const prefix = star === -1 ? filter : filter.slice(0, -2);
  const problem = segmentProblem(prefix);
  if (problem) throw new InvalidTopicFilterError(filter, problem);
}

/**
 * Tells whether a (valid) filter matches a topic.
 *
 * @example Usage
 * ```ts
 * import { filterMatches } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.ok(filterMatches("plugin.tool.github.*", "plugin.tool.github.pr_opened"));
 * assert.ok(!filterMatches("plugin.tool.github.*", "plugin.tool.github"));
 * assert.ok(!filterMatches("plugin.tool.github.*", "plugin.tool.githubx.a"));
 * assert.ok(filterMatches("*", "kernel.state"));
 * ```
 *
 * @param filter The filter.
 * @param topic The topic.
 * @returns `true` on a match.
 */
export function filterMatches(filter: string, topic: string): boolean {
  if (filter === "*") return true;
  if (filter.endsWith(".*")) {
    const prefix = filter.slice(0, -1); // keeps the trailing "."
    return topic.length > prefix.length && topic.startsWith(prefix);
  }
  return filter === topic;
}

/** The identity part a plugin topic is built from. */
export interface TopicIdentity {
  /** The plugin's category. */
  readonly category: CategoryName;
  /** The plugin's name. */
  readonly name: string;
}

/**
 * Builds `plugin.{category}.{name}.{event_type}` from a server-derived
 * identity; the caller supplies only `eventType`.
 *
 * @example Usage
 * ```ts
 * import { pluginTopic } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   pluginTopic({ category: "tool", name: "github" }, "pr_opened"),
 *   "plugin.tool.github.pr_opened",
 * );
 * assert.throws(() => pluginTopic({ category: "tool", name: "github" }, "a.b"));
 * ```
 *
 * @param identity The publishing plugin's identity.
 * @param eventType The one caller-supplied segment, `[a-z0-9_]+`.
 * @returns The topic.
 * @throws {InvalidPublishError} When `eventType` is not one valid segment.
 * @throws {InvalidTopicError} When the identity cannot form a topic.
 */
export function pluginTopic(
  identity: TopicIdentity,
  eventType: string,
): string {
  if (!EVENT_TYPE_REGEXP.test(eventType)) {
    throw new InvalidPublishError(
      `event_type ${
        JSON.stringify(eventType)
      } must be one segment matching [a-z0-9_]+ (no "." and no "*")`,
    );
  }
  const topic = `plugin.${identity.category}.${identity.name}.${eventType}`;
  validateTopic(topic);
  return topic;
}
