import assert from "node:assert/strict";
import { TurnCancelledError } from "./errors.ts";
import {
  InteractiveGate,
  type InteractiveRequest,
} from "./interactive_gate.ts";
import type { SessionEvent } from "./session_events.ts";

const REQUEST: InteractiveRequest = {
  sessionId: "S",
  callId: "c1",
  provider: "ask",
  tool: "ask_user",
  prompt: { question: "Which?" },
};

function gate(
  options: Partial<ConstructorParameters<typeof InteractiveGate>[0]> = {},
) {
  const events: SessionEvent[] = [];
  const g = new InteractiveGate({
    onAsk: "deny",
    askTimeoutMs: 60_000,
    emit: (e) => events.push(e),
    ...options,
  });
  return { g, events };
}

Deno.test("interactive: the answerer's answer wins and both events are emitted", async () => {
  const { g, events } = gate({
    answer: () => Promise.resolve({ answer: "yes" }),
  });
  const out = await g.ask(REQUEST, new AbortController().signal);
  assert.deepEqual(out, {
    answered: true,
    response: { answer: "yes" },
    source: "callback",
  });
  assert.deepEqual(events.map((e) => e.type), [
    "interactive_requested",
    "interactive_resolved",
  ]);
});

Deno.test("interactive: without an answerer, on_ask deny answers at once and fail says so", async () => {
  for (
    const [onAsk, decidedBy] of [["deny", "on_ask:deny"], [
      "fail",
      "on_ask:fail",
    ]] as const
  ) {
    const { g } = gate({ onAsk });
    assert.deepEqual(await g.ask(REQUEST, new AbortController().signal), {
      answered: false,
      decidedBy,
    });
  }
});

Deno.test("interactive: on_ask callback waits for resolve() up to the timeout", async () => {
  const waiting = gate({ onAsk: "callback", askTimeoutMs: 10_000 });
  const pending = waiting.g.ask(REQUEST, new AbortController().signal);
  assert.equal(waiting.g.resolve("c1", { answer: "ok" }), true);
  assert.equal(waiting.g.resolve("c1", { answer: "again" }), false);
  assert.deepEqual(await pending, {
    answered: true,
    response: { answer: "ok" },
    source: "external",
  });
  const timing = gate({ onAsk: "callback", askTimeoutMs: 5 });
  assert.deepEqual(await timing.g.ask(REQUEST, new AbortController().signal), {
    answered: false,
    decidedBy: "on_ask:timeout",
  });
});

Deno.test("interactive: cancelling the turn cancels the ask and the answerer's signal", async () => {
  let answererSignal: AbortSignal | undefined;
  const { g } = gate({
    answer: (_r, { signal }) => {
      answererSignal = signal;
      return new Promise(() => {});
    },
  });
  const ac = new AbortController();
  const pending = g.ask(REQUEST, ac.signal);
  ac.abort(new Error("ctrl-c"));
  await assert.rejects(pending, TurnCancelledError);
  assert.equal(answererSignal?.aborted, true);
});
