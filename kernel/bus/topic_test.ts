import assert from "node:assert/strict";
import {
  filterMatches,
  pluginTopic,
  validateFilter,
  validateTopic,
} from "./topic.ts";
import {
  InvalidPublishError,
  InvalidTopicError,
  InvalidTopicFilterError,
} from "./errors.ts";

Deno.test("validateTopic() accepts dot-separated [a-z0-9_-] segments only", () => {
  for (
    const ok of [
      "kernel.state",
      "kernel.event.tool_call",
      "plugin.tool.my-tool.x_1",
    ]
  ) {
    validateTopic(ok);
  }
  for (
    const bad of ["", ".a", "a.", "a..b", "Kernel.state", "a.*", "a b", "a.é"]
  ) {
    assert.throws(() => validateTopic(bad), InvalidTopicError, bad);
  }
});

Deno.test("validateFilter() allows an exact topic, `*`, or a trailing `.*`", () => {
  for (
    const ok of ["*", "kernel.*", "plugin.tool.github.*", "kernel.event.plan"]
  ) {
    validateFilter(ok);
  }
  for (
    const bad of [
      "",
      ".*",
      "kernel*",
      "kernel.*.x",
      "*.event",
      "kernel.**",
      "a..*",
      "KERNEL.*",
    ]
  ) {
    assert.throws(
      () => validateFilter(bad),
      (e: unknown) =>
        e instanceof InvalidTopicFilterError &&
        e.grpcStatus === "INVALID_ARGUMENT",
      bad,
    );
  }
});

Deno.test("filterMatches() needs every prefix segment and at least one more", () => {
  const cases: [string, string, boolean][] = [
    ["plugin.tool.github.*", "plugin.tool.github.pr_opened", true],
    ["plugin.tool.github.*", "plugin.tool.github.a.b", true],
    ["plugin.tool.github.*", "plugin.tool.github", false],
    ["plugin.tool.github.*", "plugin.tool.gitlab.x", false],
    ["plugin.tool.github.*", "plugin.tool.githubx.x", false],
    ["kernel.*", "kernel.event.plan", true],
    ["kernel.*", "kernels.x", false],
    ["kernel.event.plan", "kernel.event.plan", true],
    ["kernel.event.plan", "kernel.event.plans", false],
    ["*", "anything.at.all", true],
  ];
  for (const [f, t, want] of cases) {
    assert.equal(filterMatches(f, t), want, `${f} ~ ${t}`);
  }
});

Deno.test("pluginTopic() builds plugin.{category}.{name}.{event_type} and checks event_type", () => {
  assert.equal(
    pluginTopic({ category: "memory", name: "notes" }, "saved"),
    "plugin.memory.notes.saved",
  );
  assert.equal(
    pluginTopic({ category: "tool", name: "my-tool" }, "x"),
    "plugin.tool.my-tool.x",
  );
  for (const bad of ["", "a.b", "a*", "*", "A", "a-b"]) {
    assert.throws(
      () => pluginTopic({ category: "tool", name: "github" }, bad),
      InvalidPublishError,
      bad,
    );
  }
});
